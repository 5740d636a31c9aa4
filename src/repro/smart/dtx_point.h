// A FORD+ or SMART-DTX point of SMART §6.2.2 (Figs. 10, 11): one compute
// node, two memory blades, the data and window both figures use.
#pragma once

#include <string>

#include "repro/repro_txn.h"

namespace lw {

inline constexpr uint32_t kDtxMemoryNodes = 2;  // "Two memory blades are used for each test"

// `design`: ford | smart-dtx (txn_cluster gives FORD+ threads' QPs on shared
// doorbells, the driver's default, SMART §2.2, and SMART-DTX a doorbell per
// thread, §4.1). x: the point's abscissa.
inline ReproPoint dtx_point(const std::string& series, double x, const std::string& design,
                            const std::string& workload, uint32_t threads, uint32_t coroutines) {
  ReproPoint p = txn_point(series, x, design, "", workload, 1, threads, coroutines);
  p.txn->memory_nodes = kDtxMemoryNodes;
  p.txn->oltp.accounts_per_node = 50'000;
  p.txn->oltp.subscribers_per_node = 50'000;
  // Both replicas of 2 x 50,000 subscribers on each memory node, and 768 log rings.
  p.txn->memory_node_bytes = 512ull << 20;
  // 768 coordinators (96 x 8) take ~250 us per transaction at the start (cold
  // caches, every coroutine posting at once): a 20 + 60 us window saw no commit.
  p.txn->run.warmup_ns = 200'000;
  p.txn->run.measure_ns = 600'000;
  p.panel = workload;
  return p;
}

}  // namespace lw
