// Pieces the structure runners (hash_run.cpp, sherman_run.cpp) share: the
// latency percentiles they report, the seed of each process of a
// multi-process run, and the PerfResult fields every runner fills the same
// way. Internal to src/bench.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "latchwork/base/random.h"
#include "latchwork/bench/perf.h"

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
  return p;
}

}  // namespace lw::run_common
