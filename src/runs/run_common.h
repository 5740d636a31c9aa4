// Pieces the structure runners (hash_run.cpp, sherman_run.cpp) share: the
// latency percentiles they report, the seed of each process of a
// multi-process run, and the PerfResult fields every runner fills the same
// way. Internal to src/runs.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "latchwork/base/assert.h"
#include "latchwork/base/random.h"
#include "runs/perf.h"
#include "latchwork/config/cluster_config.h"
#include "latchwork/verbs/backend.h"

namespace lw::run_common {

// The q-quantile of sorted latencies, in microseconds (0 when empty).
inline double percentile_us(const std::vector<Nanos>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t i = std::min(sorted.size() - 1, static_cast<size_t>(q * static_cast<double>(sorted.size())));
  return static_cast<double>(sorted[i]) / 1e3;
}

// Process I > 0 of a multi-process run draws its own operations.
inline uint64_t process_seed(uint64_t seed, uint32_t process_index) {
  if (process_index == 0) return seed;
  uint64_t s = seed ^ (uint64_t{process_index} * 0x9e37'79b9'7f4a'7c15ull);
  return splitmix64(s);
}

// The drain deadline of a windowed simulator run (drain_ns of the runners'
// options): the run stops `drain` after the window, riding on the virtual-
// time budget. Operations count only if they end inside the window, so the
// window's results are those of the run played out, provided every
// coroutine's window closed by the deadline (note() and stopped()).
class DrainDeadline {
 public:
  // Lowers c's virtual-time budget to the deadline; none when `drain` is 0,
  // off the simulator, or when the configured budget comes first (it stays
  // a budget).
  DrainDeadline(ClusterConfig* c, Nanos warmup, Nanos measure, Nanos drain) {
    if (drain == 0 || c->backend != "sim") return;
    const Nanos d = warmup + measure + drain;
    if (d >= c->budget.max_virtual_ns) return;
    c->budget.max_virtual_ns = d;
    deadline_ = d;
  }
  // A coroutine's window ends at `window_end`.
  void note(Nanos window_end) {
    for (Nanos seen = last_window_end_.load(); seen < window_end;)
      if (last_window_end_.compare_exchange_weak(seen, window_end)) break;
  }
  // Whether the deadline stopped the run (not the event budget, which
  // stops it at exactly max_events); then every window must have closed.
  bool stopped(const RunStats& s, uint64_t max_events) const {
    if (deadline_ == 0 || s.budget_exhausted.empty() || s.events >= max_events) return false;
    LW_CHECK_MSG(last_window_end_.load() <= deadline_,
                 "a coroutine's window closed after the drain deadline: raise drain_ns");
    return true;
  }

 private:
  Nanos deadline_ = 0;
  std::atomic<Nanos> last_window_end_{0};
};

// The fields of a runner's result every repro figure reads.
template <typename R>
PerfResult base_perf_result(const R& r, const std::string& op) {
  PerfResult p;
  p.op = op;
  p.workers = r.workers;
  p.ops = r.ops;
  p.mops = r.mops;
  p.latency_ns_mean = r.latency_us_mean * 1e3;
  p.latency_ns_p50 = r.latency_us_p50 * 1e3;
  p.latency_ns_p99 = r.latency_us_p99 * 1e3;
  p.verbs = r.verbs;
  p.wall_seconds = r.wall_seconds + r.load_wall_seconds;
  p.counters = r.counters;
  // Coroutines cut in an operation by the drain deadline (repro prints them).
  p.counters["run.drained_workers"] = static_cast<double>(r.drained_workers);
  return p;
}

}  // namespace lw::run_common
