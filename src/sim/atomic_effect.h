// What a NIC atomic does to its word under the semantics contract: shared by
// the simulator (sim_ops.cpp) and the exhaustive explorer (explore_machine.cpp).
#pragma once

#include <cstdint>

#include "latchwork/config/semantics.h"
#include "latchwork/verbs/work_request.h"

namespace lw::sim {

struct AtomicEffect {
  bool writes = false;      // the atomic writes its word back (*out)
  bool failed_cas = false;  // ... although it is a CAS that failed
};

// apply_atomic, except that under failed_cas_writes_back a CAS that fails
// writes back the value it read (*out = old).
inline AtomicEffect atomic_effect(const Semantics& sem, const WorkRequest& wr, uint64_t old, uint64_t* out) {
  if (apply_atomic(wr, old, out)) return {true, false};
  if (!sem.failed_cas_writes_back) return {false, false};
  *out = old;
  return {true, true};
}

}  // namespace lw::sim
