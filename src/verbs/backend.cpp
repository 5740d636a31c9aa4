#include "latchwork/verbs/backend.h"

namespace lw {

void Backend::spawn_compute(const WorkerMain& main) {
  const ClusterConfig& c = config();
  for (uint32_t n = 0; n < c.compute_nodes; ++n)
    for (uint32_t t = 0; t < c.threads_per_node; ++t)
      for (uint32_t k = 0; k < c.coroutines_per_thread; ++k)
        spawn({Placement::Kind::kCompute, n, t, k}, main);
}

}  // namespace lw
