// `latchwork node --workload cpu-nic`: on symmetric nodes (verbs), checks that
// a node's CPU accesses and remote NICs' verbs reach the same memory, and
// measures whether CPU and NIC atomics on one word are atomic with each
// other (IBV_ATOMIC_HCA says they need not be).
#pragma once

#include <cstdint>

#include "latchwork/config/cluster_config.h"

namespace lw::tool {

struct CpuNicOptions {
  uint64_t ops_per_worker = 2000;  // increments of each counter by each worker
  static constexpr uint64_t kMaxOps = 1'000'000;
};

// Runs the check in this node process (c.verbs.local_node), whose memory node
// must already serve. Prints what it found; returns the exit code (0, or 1
// when memory was not shared, a NIC-only counter was not exact, or an access
// failed). Lost updates between CPU and NIC atomics are reported, not failed.
int run_cpu_nic(const ClusterConfig& c, const CpuNicOptions& o);

}  // namespace lw::tool
