// `latchwork check --structure locks --exhaustive`: a lock under the
// exhaustive explorer (check/explore_locks.h) instead of sampled seeds.
#pragma once

#include <cstdint>
#include <string>

#include "latchwork/check/builtin.h"
#include "latchwork/check/explore_locks.h"

namespace lw::tool {

// The lock and variant of a locks scheme name; false if it is not one.
bool lock_scheme(const std::string& scheme, check::LockExploreOptions* o);
// Explores each scheme ("all": every locks scheme), prints a row (or a JSON
// object) per scheme with the state count, time and any violation with its
// trace. Exit code: 1 when a correct scheme has a violation or a negative
// control has none, else 0.
int run_exhaustive_locks(const std::string& scheme, const check::LockExploreOptions& base, bool json);

// `latchwork check --exhaustive` for the other built-ins: each scheme of
// `base.structure` (`scheme` "all") as a workload under the explorer
// (check/explore_workload.h) at scope `scope` (cluster prepared per scheme).
// A row (or a JSON object) per scheme: verdict, state count, time, and a
// violation's shortest trace. Exit code: 1 when a correct scheme is not
// proved or a negative control is not violated, else 0.
int run_exhaustive_workloads(const std::string& scheme, const check::BuiltinOptions& base,
                             const ClusterConfig& cluster, const check::WorkloadExploreOptions& scope, bool json);

}  // namespace lw::tool
