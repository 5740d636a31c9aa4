// The SMART runtime's switches and parameters (Ren et al., SMART, §4.2-4.3).
// Thread-aware resource allocation (§4.1) is the cluster's QP policy
// (NicConfig::qp_policy), not a switch here. JSON: the "smart" object;
// flags: --throttling, --backoff, --dynamic-limit, --coroutine-throttling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "latchwork/base/layout.h"

namespace lw {

struct SmartConfig {
  // §4.2, Alg. 1: per-thread credits bound the work requests in flight.
  bool throttling = false;
  // §4.3, Eq. 1: truncated exponential backoff after a failed backoff_cas.
  bool backoff = false;
  // §4.3: t_max doubles when the retry rate exceeds gamma_high and halves
  // below gamma_low, between t0 and 2^max_backoff_shift t0.
  bool dynamic_limit = false;
  // §4.3: at most c_max operations in flight per thread, c_max driven by the
  // retry rate like t_max.
  bool coroutine_throttling = false;

  std::vector<uint32_t> candidate_credits{4, 6, 8, 10, 12};  // Alg. 1 line 17
  Nanos delta_ns = 8'000'000;   // Δ: each candidate is measured this long
  uint32_t stable_deltas = 60;  // stable phase = 60 Δ (480 ms)
  // t0: the backoff unit, "4096 cycles, close to an RDMA round trip" (§4.3);
  // 1.6 us at the paper's 2.4-2.6 GHz, so that t_M = 2^10 t0 = 1.6 ms as stated.
  Nanos t0_ns = 1'600;
  uint32_t max_backoff_shift = 10;  // t_M = 2^shift t0
  double gamma_high = 0.5;
  double gamma_low = 0.1;
  Nanos retry_window_ns = 1'000'000;  // the retry rate is measured every millisecond

  static constexpr uint32_t kMaxCredits = 1u << 16;
  static constexpr uint32_t kMaxCandidates = 16;
  static constexpr uint32_t kMaxShift = 20;
  // delta_ns, t0_ns, t_M = 2^max_backoff_shift t0 and retry_window_ns: at
  // most one second each (ClusterConfig::kMaxLatencyNs).
  static constexpr Nanos kMaxIntervalNs = 1'000'000'000;
  static constexpr uint32_t kMaxStableDeltas = 1'000'000;
  // The retry rate is retries per operation (it may exceed 1).
  static constexpr double kMaxGamma = 1'000;
  // Checks every field's range, gamma_low <= gamma_high, and that
  // dynamic_limit comes with backoff (it only moves the backoff's limit).
  // An error message naming the bad field, or "".
  std::string validate() const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const SmartConfig&) const = default;
};

}  // namespace lw
