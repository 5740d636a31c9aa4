// The `threads` backend: real OS threads on real shared memory.
//
// Each simulated thread is an OS thread running its coroutines; a remote
// operation is executed by the calling thread directly on the target node's
// memory through std::atomic_ref. What a NIC guarantees holds here too: an
// aligned 64-byte line is read and written atomically (per-line seqlocks),
// NIC atomics are atomic with each other. The optional adversarial mode adds
// the relaxations a NIC may show: lines of a multi-line READ copied in random
// order with yields between them, multi-line WRITEs landing line by line, and
// NIC atomics done as a separate load and store (so a WRITE or CPU store in
// between is lost).
#pragma once

#include <memory>

#include "latchwork/verbs/backend.h"

namespace lw {

class ThreadsBackend final : public Backend {
 public:
  explicit ThreadsBackend(const ClusterConfig& config);
  ~ThreadsBackend() override;

  std::string_view name() const override { return "threads"; }
  const ClusterConfig& config() const override;
  Capabilities capabilities() const override;
  // Two-sided RPC: each memory node runs config().rpc.cores_per_node server
  // threads during run() (the built-ins are registered at construction).
  Result<HandlerId> register_handler(const RpcHandler& h) override;

  RemoteAddr allocate(NodeId memory_node, uint64_t bytes, uint64_t align = kCacheLine) override;
  RemoteAddr allocate_device_memory(NodeId memory_node, uint64_t bytes) override;
  void host_write(RemoteAddr dst, const void* src, uint64_t bytes) override;
  void host_read(RemoteAddr src, void* dst, uint64_t bytes) override;

  void spawn(Placement where, WorkerMain main) override;
  RunStats run() override;

  // Executes one request on memory directly, outside any coroutine (for the
  // cost benchmark). `rng` drives adversarial choices.
  Status execute_now(WorkRequest& wr, Rng& rng);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace lw
