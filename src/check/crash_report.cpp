// Injected crashes in the driver: the victim of a plan, the report of what a
// crash left, and liveness findings attributed to it by a rerun without it.
#include <sstream>

#include "driver_internal.h"
#include "latchwork/sim/blocked_worker.h"

namespace lw::check::detail {

namespace {

const char* kLeftHeld = "latch held forever";
const char* kLeftHalfWritten = "half-written range";
const char* kLeftOther = "reported by the workload";
const char* kLeftNothing = "nothing left";

bool liveness_kind(const std::string& k) {
  return k == kind::kHang || k == kind::kDeadlock || k == kind::kStuckLatch;
}

std::string crashed_verb_line(const CrashedVerb& v) {
  std::ostringstream os;
  os << to_string(v.opcode) << " of " << v.length << " B at " << v.remote.to_string() << " (posted at "
     << v.posted << " ns) ";
  if (v.landed == 0) os << "did not land";
  else if (v.landed == v.lines) os << "landed whole";
  else os << "landed " << v.landed << " of its " << v.lines << " lines";
  return os.str();
}

}  // namespace

CrashSpec crash_spec_of(const PlannedCrash& c, const Shape& shape) {
  // Worker indices as SeedRun::worker_index numbers compute workers; a
  // minimised shape has fewer, hence the modulo.
  const uint32_t i = c.worker % shape.compute_workers();
  CrashSpec s;
  s.victim.kind = Placement::Kind::kCompute;
  s.victim.coroutine = i % shape.coroutines_per_thread;
  s.victim.thread = (i / shape.coroutines_per_thread) % shape.threads_per_node;
  s.victim.node = i / (shape.coroutines_per_thread * shape.threads_per_node);
  s.whole_node = c.whole_node;
  s.at_submission = c.at_submission;
  return s;
}

void describe_crash(const CrashRecord& rec, const std::string& held, const std::string& other,
                    SeedResult* r) {
  r->crashed = true;
  std::ostringstream os;
  os << (rec.spec.whole_node ? "compute node " + std::to_string(rec.spec.victim.node) + " (" : std::string())
     << to_string(rec.spec.victim) << (rec.spec.whole_node ? ")" : "") << " crashed at " << rec.at
     << " ns, at its submission " << rec.spec.at_submission << "; " << rec.stopped.size()
     << " worker(s) stopped";
  // Bounded: a whole node may have dozens in flight.
  constexpr size_t kListed = 6;
  bool half = false;
  for (size_t i = 0; i < rec.in_flight.size(); ++i) {
    half = half || rec.in_flight[i].prefix();
    if (i < kListed) os << (i == 0 ? "; in flight: " : "; ") << crashed_verb_line(rec.in_flight[i]);
  }
  if (rec.in_flight.size() > kListed) os << "; and " << rec.in_flight.size() - kListed << " more";
  if (rec.in_flight.empty()) os << "; no WRITE or atomic of theirs in flight";
  os << ". Left: ";
  std::vector<std::string>& left = r->crash_left;
  if (!held.empty()) {
    left.push_back(kLeftHeld);
    os << "a latch held forever (" << held << ")";
  }
  if (half) {
    left.push_back(kLeftHalfWritten);
    os << (left.size() > 1 ? "; " : "") << "a half-written range (a WRITE landed as a prefix of its lines)";
  }
  if (!other.empty()) {
    left.push_back(kLeftOther);
    os << (left.size() > 1 ? "; " : "") << other;
  }
  if (left.empty()) {
    left.push_back(kLeftNothing);
    os << "nothing the workload or the driver could see";
  }
  r->crash = os.str();
}

void attribute_to_crash(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                        const Shape& shape, std::vector<Finding>* findings) {
  bool any = false;
  for (const Finding& f : *findings) any = any || (f.failure && liveness_kind(f.kind));
  if (!any) return;
  // The same seed without the crash: a hang that stays is not the crash's.
  SeedPlan without = plan;
  without.crash.on = false;
  Options quiet = o;
  quiet.keep_causes = false;
  const SeedResult alone = run_in_process(factory, quiet, without, shape, {});
  bool alone_hangs = false;
  for (const Finding& f : alone.findings) alone_hangs = alone_hangs || (f.failure && liveness_kind(f.kind));
  for (Finding& f : *findings) {
    if (!f.failure || !liveness_kind(f.kind)) continue;
    if (alone_hangs) {
      f.detail += " (it happens without the crash too)";
      continue;
    }
    f.detail = "the survivors of the crash made no progress (" + f.kind + ", not without the crash): " + f.detail;
    f.kind = kind::kCrashLiveness;
  }
}

}  // namespace lw::check::detail
