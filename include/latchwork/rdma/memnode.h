// A memory node of the verbs backend: a process that registers a region of
// memory with the RDMA device and serves it to compute processes. Its CPU
// sets up connections (queue pairs over a TCP exchange), answers allocation
// requests, runs barriers, and serves two-sided RPCs (builtin_rpc_handlers(),
// one polling thread per connected compute process); every other data
// access is one-sided.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "latchwork/config/cluster_file.h"
#include "latchwork/verbs/rpc.h"

namespace lw {

struct MemnodeOptions {
  MemoryNodeAddress listen{"127.0.0.1", 7471};
  uint64_t bytes = 64ull << 20;    // registered host memory
  uint64_t device_memory_bytes = 256ull << 10;  // on-chip memory, when the device has it
  std::string device;              // "" = the first RDMA device
  uint32_t ib_port = 1;
  int32_t gid_index = -1;          // -1 = choose (see ClusterFile)
  std::string huge_pages = "auto"; // auto | on | off
  // Served after builtin_rpc_handlers(), their ids continuing in this order
  // (every node of a cluster must serve the same list, so that an id names
  // the same handler everywhere). `latchwork memnode` serves none.
  std::vector<RpcHandler> extra_handlers;

  std::string validate() const;
};

// Serves until `stop` becomes true. `log` receives one line per event (ready,
// client connected/left). `serving`, if given, is called once the node
// listens and its memory is registered (`latchwork node` runs this on a thread
// of its own and then connects to itself). Returns an error message, or ""
// after a clean stop. A VerbsBackend in the same process reaches the memory
// with its CPU too (Worker::cpu_*; ClusterConfig::verbs.local_node).
std::string run_memnode(const MemnodeOptions& options, const std::atomic<bool>& stop,
                        const std::function<void(const std::string&)>& log,
                        const std::function<void()>& serving = {});

// Waits at the barrier `name` that the memory node at `node` keeps until
// `parties` callers arrived, at most `timeout_ms` (plus reaching the node
// within `connect_timeout_ms`). "" or an error message. Used where no backend
// is connected: a `latchwork node` process keeps serving until its peers are
// done with its memory.
// Handlers whose code arrives later, in this process: each answers
// kUnsupported until a VerbsBackend of this process that serves the node
// itself (verbs.local_node) registers a handler of the same name
// (Backend::register_handler, host-side, before run()); from then on it runs
// that handler's code. `latchwork node` serves the transaction engine's
// handlers so: their code needs the store's layout, known only once the
// backend is connected to every node, which needs the nodes to serve first.
// Peers call them only after run()'s start barrier, by which time every
// process has registered. Names must be unique and not builtin names.
std::vector<RpcHandler> late_bound_handlers(const std::vector<std::string>& names);

std::string memnode_barrier(const MemoryNodeAddress& node, const std::string& name, uint32_t parties,
                            uint64_t timeout_ms, uint32_t connect_timeout_ms);

}  // namespace lw
