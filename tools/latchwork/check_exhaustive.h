// `latchwork check --structure locks --exhaustive`: a lock under the
// exhaustive explorer (check/explore_locks.h) instead of sampled seeds.
#pragma once

#include <cstdint>
#include <string>

#include "latchwork/check/explore_locks.h"

namespace lw::tool {

// The lock and variant of a locks scheme name; false if it is not one.
bool lock_scheme(const std::string& scheme, check::LockExploreOptions* o);
// Explores each scheme ("all": every locks scheme), prints a row (or a JSON
// object) per scheme with the state count, time and any violation with its
// trace. Exit code: 1 when a correct scheme has a violation or a negative
// control has none, else 0.
int run_exhaustive_locks(const std::string& scheme, const check::LockExploreOptions& base, bool json);

}  // namespace lw::tool
