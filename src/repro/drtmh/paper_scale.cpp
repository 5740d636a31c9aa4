// DrTM+H at --scale paper (paper_scale.h): what stays scaled down, and why.
#include "common.h"
#include "repro/paper_scale.h"

namespace lw::drtmh {

std::string paper_scale_unchanged() {
  // Measured 2026-11-29 with `latchwork txn --design drtmh --workload tpcc
  // --nodes 16 --coroutines 4 --rpc-servers workers`: --threads 2
  // --warehouses-per-node 4 loads in 7 s and 1.6 GB; --threads 24
  // --warehouses-per-node 24 in 46 s and 6.6 GB, and simulates 12x the
  // coordinators' events.
  return "the DrTM+H points keep 2 threads per node and the workloads sized for them: the paper's 24 threads and "
         "24 warehouses per node take 46 s and 6.6 GB to load a TPC-C store and 12x the events of a point, so the "
         "DrTM+H figures alone (about 150 s at the default scale) would take about 30 minutes";
}

}  // namespace lw::drtmh
