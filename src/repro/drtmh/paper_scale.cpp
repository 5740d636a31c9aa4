// DrTM+H at --scale paper (paper_scale.h): what stays scaled down, and why.
#include "common.h"
#include "repro/paper_scale.h"

namespace lw::drtmh {

std::string paper_scale_unchanged() {
  // Measured 2026-11-29 with `latchwork txn --design drtmh --workload tpcc
  // --nodes 16 --coroutines 4 --rpc-servers workers --warmup-us 100
  // --measure-us 500`: --threads 2 --warehouses-per-node 4 loads in 7 s
  // with 1.6 GB and runs in 0.23 s; --threads 24 --warehouses-per-node 24
  // --memory-node-mb 1024 (256 does not hold the store) loads in 142 s
  // with 9.4 GB and runs in 3.4 s, committing 308 transactions in the
  // window, about one per coordinator: the windows would have to grow too.
  return "the DrTM+H points keep 2 threads per node and the workloads sized for them: the paper's 24 threads and "
         "24 warehouses per node take 142 s and 9.4 GB to load one TPC-C store and 15x the wall time to run a point "
         "whose window then holds about one transaction per coordinator; the store's image is past what the set-up "
         "store keeps (2 GB), so every point would load afresh, and the DrTM+H figures alone (about 150 s at the "
         "default scale) would take hours";
}

}  // namespace lw::drtmh
