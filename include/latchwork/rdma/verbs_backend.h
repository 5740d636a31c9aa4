// The `verbs` backend: real RDMA NICs through rdma-core's libibverbs.
//
// A compute process opens the device named by the cluster file, connects to
// every memory node (`latchwork memnode`) over a small TCP exchange, and
// gives each compute thread a completion queue and one RC queue pair per
// memory node. A Batch is posted as one linked ibv_post_send; unsignaled
// requests are completed passively by the next signaled one on their QP;
// the fence flag maps to IBV_SEND_FENCE.
//
// Two-sided RPC (Worker::call/send) travels as RC SEND/RECV on the same
// per-thread QPs, served by polling threads of the memory node process
// (src/rdma/rpc_wire.h). The QP policy (NicConfig::qp_policy) picks the
// thread-aware resources (thread domains, contexts; thread_resources.h);
// capabilities().thread_resources says what was obtained.
//
// Local buffers of the verbs API are ordinary memory, so each thread copies
// through a registered bounce buffer (verbs.staging_bytes). Requests are
// validated against the memory node's registered bounds before posting, so
// misuse completes with the same Status as on sim and threads and never
// breaks a queue pair. Capabilities: no masked atomics on upstream verbs
// (they complete kUnsupported; use full-word CAS), device memory only where
// the device has it (rxe has none; keep latches in host memory).
#pragma once

#include <memory>
#include <string>

#include "latchwork/verbs/backend.h"

namespace lw {

class VerbsBackend final : public Backend {
 public:
  // Opens the device and connects to every memory node, within
  // verbs.connect_timeout_ms each. Null with *error set on failure.
  static std::unique_ptr<VerbsBackend> connect(const ClusterConfig& config, std::string* error);
  ~VerbsBackend() override;

  std::string_view name() const override { return "verbs"; }
  const ClusterConfig& config() const override;
  Capabilities capabilities() const override;

  RemoteAddr allocate(NodeId memory_node, uint64_t bytes, uint64_t align = kCacheLine) override;
  RemoteAddr allocate_device_memory(NodeId memory_node, uint64_t bytes) override;
  RemoteAddr allocate_shared(NodeId memory_node, const std::string& name, uint64_t bytes) override;
  std::string barrier(const std::string& name, uint32_t parties, uint64_t timeout_ms) override;
  // Resolves the handler by name against the table the memory nodes serve
  // (they announce it at connect); kUnsupported for a name they do not serve.
  // In a process serving its own node (verbs.local_node), the code of a
  // non-builtin handler is also bound to that node's late-bound handler of
  // the same name (late_bound_handlers(), memnode.h).
  Result<HandlerId> register_handler(const RpcHandler& h) override;
  void host_write(RemoteAddr dst, const void* src, uint64_t bytes) override;
  void host_read(RemoteAddr src, void* dst, uint64_t bytes) override;

  void spawn(Placement where, WorkerMain main) override;
  RunStats run() override;

  struct Impl;

 private:
  explicit VerbsBackend(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lw
