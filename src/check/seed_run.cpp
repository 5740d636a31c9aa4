// What a workload sees of its seed's run, and how findings read.
#include <sstream>
#include <utility>

#include "latchwork/check/driver.h"

namespace lw::check {

SeedRun::SeedRun(Backend& backend, const Options& /*o*/, const SeedPlan& plan, const Shape& shape)
    : backend_(backend), plan_(plan), shape_(shape) {}

uint32_t SeedRun::workers() const {
  return shape_.workers(backend_.config().memory_nodes);
}

uint32_t SeedRun::worker_index(const Worker& w) const {
  const Placement& p = w.placement();
  if (p.on_memory_node())
    return shape_.compute_workers() + p.node * shape_.memory_node_threads + p.thread;
  return (p.node * shape_.threads_per_node + p.thread) * shape_.coroutines_per_thread + p.coroutine;
}

std::vector<const HistoryModel*> SeedRun::models() const {
  std::vector<const HistoryModel*> all = {&registers_, &counters_, &map_, &holds_};
  for (const auto& m : extra_models_) all.push_back(m.get());
  return all;
}

bool SeedRun::crashed(const Worker& w) const {
  if (crash_ == nullptr) return false;
  const Placement& p = w.placement();
  for (const Placement& s : crash_->stopped)
    if (s.kind == p.kind && s.node == p.node && s.thread == p.thread && s.coroutine == p.coroutine) return true;
  return false;
}

uint32_t SeedRun::crashed_workers() const {
  return crash_ == nullptr ? 0 : static_cast<uint32_t>(crash_->stopped.size());
}

void SeedRun::in_flight(const Worker& w, std::function<void(Nanos end)> record) {
  if (crash_ == nullptr) return;
  if (in_flight_.empty()) in_flight_.resize(workers());
  in_flight_[worker_index(w)] = std::move(record);
}

void SeedRun::record_crashed_in_flight(Nanos end) {
  if (crash_ == nullptr) return;
  for (const Placement& p : crash_->stopped) {
    const uint32_t i = (p.node * shape_.threads_per_node + p.thread) * shape_.coroutines_per_thread + p.coroutine;
    if (i < in_flight_.size() && in_flight_[i]) std::exchange(in_flight_[i], nullptr)(end);
  }
}

void SeedRun::op_done(const Worker& w) {
  ++ops_;
  if (!in_flight_.empty()) in_flight_[worker_index(w)] = nullptr;
  // Virtual time only moves forward; a worker's clock may run ahead of the
  // simulator's while it runs, so keep the latest.
  if (w.now() > last_progress_) last_progress_ = w.now();
}

void SeedRun::gave_up(const Worker& w, std::string what) {
  if (gave_up_++ == 0)
    first_gave_up_ = describe(w.placement()) + " at " + std::to_string(w.now()) + " ns: " + std::move(what);
  op_done(w);  // giving up is progress: the worker moves on
}

void SeedRun::fail(std::string kind, std::string detail) {
  Finding f;
  f.kind = std::move(kind);
  f.detail = std::move(detail);
  f.seed = plan_.seed;
  f.plan = plan_;
  f.shape = shape_;
  findings_.push_back(std::move(f));
}

bool SeedResult::failed() const {
  for (const Finding& f : findings)
    if (f.failure) return true;
  return false;
}

std::string Finding::explanation() const {
  if (!explained) return {};
  if (protocol_bug && kind == kind::kCrashLiveness)
    return "the crash alone: it fails under sequential with its crash, and not without it";
  if (protocol_bug && !crash.empty())
    return "none but the crash: the protocol does not survive it (it fails under sequential with it)";
  if (protocol_bug) return "none: the protocol itself is wrong (it fails under sequential)";
  if (necessary.empty()) {
    if (timing_race) return "none: a timing-dependent protocol race (it fails under sequential with wider jitter)";
    if (sufficient.empty()) return "no single relaxation is necessary";
    if (sufficient.size() == 1) return sufficient[0];
    std::string s = "any one of";
    for (size_t i = 0; i < sufficient.size(); ++i)
      s += (i == 0 ? " " : i + 1 == sufficient.size() ? " or " : ", ") + sufficient[i];
    return s;
  }
  std::string s;
  for (const std::string& n : necessary) s += (s.empty() ? "" : " + ") + n;
  return s;
}

std::string Finding::summary() const {
  std::ostringstream os;
  os << "seed " << seed << ": " << kind << (failure ? "" : " (report)") << ": " << detail;
  if (explained) os << " [needs " << explanation() << "]";
  if (!explain_note.empty()) os << " (" << explain_note << ")";
  return os.str();
}

std::string Report::summary() const {
  std::ostringstream os;
  os << seeds_run << " seeds, " << ops << " operations, " << failing_seeds << " failing seed(s)";
  if (failing_seeds > 0)
    os << "; first at seed " << first_failing_seed << " after " << seconds_to_first_failure << " s";
  os << "; " << wall_seconds << " s\n";
  if (crashed_seeds > 0) {
    os << "  crashes: " << crashed_seeds << " seed(s) crashed; what they left:";
    for (const auto& [what, n] : crash_left) os << " " << what << " " << n << ";";
    os << "\n";
  }
  if (!kinds.empty()) {
    os << "  findings by kind:";
    for (const auto& [k, n] : kinds) os << " " << k << " " << n;
    os << "\n";
  }
  size_t shown = 0;
  for (const Finding& f : findings) {
    if (shown++ == 5) break;
    os << "  " << f.summary() << "\n";
    if (!f.replay.empty()) os << "    replay: " << f.replay << "\n";
    if (!f.crash.empty()) os << "    crash: " << f.crash << "\n";
  }
  return os.str();
}

}  // namespace lw::check
