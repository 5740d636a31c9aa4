// A backend runs a cluster: memory nodes, and coroutines on compute (and
// memory-node) threads that use the verbs API.
//
// Life cycle: create, allocate and initialise remote memory from the host,
// spawn coroutines, run() until they all finish, then inspect memory.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "latchwork/config/cluster_config.h"
#include "latchwork/runtime/task.h"
#include "latchwork/verbs/worker.h"

namespace lw {

using WorkerMain = std::function<Task<void>(Worker&)>;

struct RunStats {
  Nanos elapsed_ns = 0;      // virtual time (sim) or wall time (threads)
  uint64_t verbs = 0;        // work requests executed
  uint64_t events = 0;       // simulator events processed (0 elsewhere)
  uint64_t trace_hash = 0;   // rolling hash of every decision (sim only)
  double wall_seconds = 0;   // real time the run took
  // Named counters of the backend's models (NIC cache misses, lock waits...).
  std::map<std::string, double> counters;
};

// Index of the thread a placement names: compute threads first, then
// memory-node threads. Fails an invariant if the cluster has no such slot.
size_t thread_index(const ClusterConfig& c, const Placement& p);
// The seed of a coroutine's random stream, derived from the run's seed and
// its place, identical on every backend.
uint64_t worker_seed(uint64_t run_seed, const Placement& p);

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;
  virtual const ClusterConfig& config() const = 0;

  // Allocation is served by the memory node and may also be called from
  // coroutines during run() (see ChunkAllocator). Returns null when full.
  virtual RemoteAddr allocate(NodeId memory_node, uint64_t bytes, uint64_t align = kCacheLine) = 0;
  // On-chip device memory; null when the node has none left.
  virtual RemoteAddr allocate_device_memory(NodeId memory_node, uint64_t bytes) = 0;
  // Host-side set-up and inspection, only outside run().
  virtual void host_write(RemoteAddr dst, const void* src, uint64_t bytes) = 0;
  virtual void host_read(RemoteAddr src, void* dst, uint64_t bytes) = 0;
  uint64_t host_load(RemoteAddr a) {
    uint64_t v;
    host_read(a, &v, 8);
    return v;
  }
  void host_store(RemoteAddr a, uint64_t v) { host_write(a, &v, 8); }

  // Schedules `main` as a coroutine at `where`. A slot holds one coroutine.
  virtual void spawn(Placement where, WorkerMain main) = 0;
  // Spawns `main` on every coroutine slot of every compute thread.
  void spawn_compute(const WorkerMain& main);

  // Runs every spawned coroutine to completion.
  virtual RunStats run() = 0;
};

}  // namespace lw
