// Swarm testing (as TigerBeetle's VOPR and Groce et al.'s swarm testing do):
// each seed draws which of the base profile's relaxations are on and how
// wide their windows are. A bug that needs one relaxation wide open and
// another off (so that it is not masked) is found by some seed, where one
// hand-tuned configuration finds only the bugs it was tuned for.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "latchwork/base/random.h"
#include "latchwork/check/driver.h"

namespace lw::check {
namespace {

// Log-uniform in [lo, hi]: short and long windows are drawn equally often,
// so both "barely overlapping" and "straddling a whole critical section"
// interleavings occur.
Nanos log_uniform(Rng& r, Nanos lo, Nanos hi) {
  if (hi <= lo) return lo;
  const double a = std::log(static_cast<double>(lo)), b = std::log(static_cast<double>(hi));
  const auto v = static_cast<Nanos>(std::exp(a + (b - a) * r.uniform()));
  return v < lo ? lo : (v > hi ? hi : v);
}

constexpr uint64_t kSwarmSalt = 0x5741524d53454544ull;  // the swarm's own stream, not the sim's
// Crashes draw on a stream of their own: turning them on changes no other
// part of a seed's plan.
constexpr uint64_t kCrashSalt = 0x4352415348455321ull;

PlannedCrash draw_crash(const Options& o, uint64_t seed) {
  PlannedCrash c;
  if (o.crashes.percent == 0) return c;
  Rng r(seed ^ kCrashSalt);
  if (r.below(100) >= o.crashes.percent) return c;
  c.on = true;
  c.worker = static_cast<uint32_t>(r.below(std::max(1u, o.shape.compute_workers())));
  c.whole_node = r.below(100) < o.crashes.node_percent;
  c.at_submission = 1 + r.below(o.crashes.max_submission);
  return c;
}

}  // namespace

ClusterConfig Options::default_cluster() {
  ClusterConfig c;
  c.backend = "sim";
  c.set_profile("spec");
  c.memory_nodes = 1;
  c.memory_node_bytes = 8ull << 20;
  c.budget.progress_seconds = 0;  // the driver reports progress per seed
  return c;
}

SeedPlan plan_for(const Options& o, uint64_t seed) {
  SeedPlan p;
  p.seed = seed;
  p.semantics = o.cluster.semantics;
  p.jitter_ns = o.cluster.timing.jitter_ns;
  p.crash = draw_crash(o, seed);
  if (!o.swarm) return p;
  Rng r(seed ^ kSwarmSalt);
  // Switches added after seeds were published draw after everything else, so
  // that a published seed keeps the plan it had (an old report still replays).
  auto drawn_last = [](const Semantics::Switch& sw) { return sw.field == &Semantics::failed_cas_writes_back; };
  for (const Semantics::Switch& sw : Semantics::switches())
    if (!drawn_last(sw) && o.cluster.semantics.*(sw.field)) p.semantics.*(sw.field) = r.below(4) != 0;
  // Windows are drawn even for switches drawn off, so that a plan with one
  // switch flipped back on (ablation) is still a valid configuration.
  p.semantics.read_spread_ns = log_uniform(r, 200, o.max_read_spread_ns);
  p.semantics.write_line_gap_ns = log_uniform(r, 20, o.max_write_line_gap_ns);
  p.semantics.atomic_window_ns = log_uniform(r, 100, o.max_atomic_window_ns);
  // A quarter of the seeds run without jitter: some interleavings need
  // requests to arrive exactly as posted.
  p.jitter_ns = r.below(4) == 0 ? 0 : log_uniform(r, 10, o.max_jitter_ns);
  for (const Semantics::Switch& sw : Semantics::switches())
    if (drawn_last(sw) && o.cluster.semantics.*(sw.field)) p.semantics.*(sw.field) = r.below(4) != 0;
  return p;
}

std::string SeedPlan::describe() const {
  std::ostringstream os;
  bool any = false;
  for (const Semantics::Switch& sw : Semantics::switches()) {
    if (!(semantics.*(sw.field))) continue;
    os << (any ? " " : "") << sw.name;
    any = true;
  }
  if (!any) os << "no relaxation";
  os << "; read spread " << semantics.read_spread_ns << " ns, write line gap "
     << semantics.write_line_gap_ns << " ns, atomic window " << semantics.atomic_window_ns
     << " ns, jitter " << jitter_ns << " ns";
  if (crash.on)
    os << "; crash: " << (crash.whole_node ? "the compute node of worker " : "worker ") << crash.worker
       << " at its submission " << crash.at_submission;
  return os.str();
}

}  // namespace lw::check
