#include "latchwork/verbs/backend.h"

#include <vector>

namespace lw {

size_t thread_index(const ClusterConfig& c, const Placement& p) {
  LW_CHECK_MSG(p.coroutine < c.coroutines_per_thread, "coroutine slot out of range");
  if (p.kind == Placement::Kind::kCompute) {
    LW_CHECK_MSG(p.node < c.compute_nodes && p.thread < c.threads_per_node,
                 "spawn on a compute thread the cluster does not have");
    return size_t{p.node} * c.threads_per_node + p.thread;
  }
  LW_CHECK_MSG(p.node < c.memory_nodes && p.thread < c.memory_node_threads,
               "spawn on a memory-node thread the cluster does not have");
  return c.total_compute_threads() + size_t{p.node} * c.memory_node_threads + p.thread;
}

uint64_t worker_seed(uint64_t run_seed, const Placement& p) {
  uint64_t seed = run_seed;
  splitmix64(seed);
  seed ^= (uint64_t{static_cast<uint8_t>(p.kind)} << 60) ^ (uint64_t{p.node} << 40) ^
          (uint64_t{p.thread} << 20) ^ p.coroutine;
  return splitmix64(seed);
}

void Backend::spawn_compute(const WorkerMain& main) {
  const ClusterConfig& c = config();
  for (uint32_t n = 0; n < c.compute_nodes; ++n)
    for (uint32_t t = 0; t < c.threads_per_node; ++t)
      for (uint32_t k = 0; k < c.coroutines_per_thread; ++k)
        spawn({Placement::Kind::kCompute, n, t, k}, main);
}

RemoteAddr Backend::allocate_shared(NodeId memory_node, const std::string& name, uint64_t bytes) {
  auto key = std::make_pair(memory_node, name);
  if (auto it = shared_.find(key); it != shared_.end())
    return it->second.second == bytes ? it->second.first : RemoteAddr();
  RemoteAddr a = allocate(memory_node, bytes);
  if (a.is_null()) return a;
  // Fresh bump allocations are zero on every in-process backend; zero again
  // so the contract does not depend on it.
  std::vector<std::byte> zeros(bytes);
  host_write(a, zeros.data(), bytes);
  shared_[key] = {a, bytes};
  return a;
}

std::string Backend::barrier(const std::string& name, uint32_t parties, uint64_t) {
  if (parties == 1) return {};
  return "barrier \"" + name + "\" wants " + std::to_string(parties) + " processes, but the " +
         std::string(this->name()) + " backend runs in one process";
}

void Backend::host_install_image(NodeId, const HostImage&) {
  LW_CHECK_MSG(false, std::string(name()) + " backend cannot install host images (can_install_host_images)");
}

}  // namespace lw
