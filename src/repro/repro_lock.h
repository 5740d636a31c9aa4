// ALock §2 and §6 on the simulator (src/repro/alock/): lock-table points of
// a repro figure (ReproPoint::lock_table) and their run.
#pragma once

#include "repro/repro.h"

namespace lw {

// Runs a lock-table point: its PerfResult carries the Mops (or, with a
// baseline, the mean speedup), latency quantiles in ns, and counters
// "lock.q<P>_us" (latency at the P-th percentile, P in kLockQuantiles),
// "lock.local_p50_us", "lock.remote_p50_us", "lock.<stat>" (LockClientStats
// summed), "lock.exact" and the NIC model's. A run whose counters disagree
// or whose calls failed is reported on stderr and in PerfResult::error.
PerfResult run_lock_point(const ReproPoint& p);
inline constexpr double kLockQuantiles[] = {1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9};

}  // namespace lw
