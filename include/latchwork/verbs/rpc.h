// Two-sided RPC: a coroutine sends a request to a handler that a memory
// node's CPU runs, and awaits its reply.
//
//   HandlerId h = backend.register_handler(my_handler).value;   // host, before run()
//   std::array<std::byte, 16> reply;
//   Result<uint32_t> r = co_await w.call(node, h, request_bytes, reply);  // r.value: reply bytes
//
// Requests and replies are bounded (kMaxRpcBytes); errors are statuses, never
// exceptions. A handler runs on one of the node's polling cores
// (RpcConfig::cores_per_node); when all are busy requests wait in a bounded
// queue. In the simulator the cores, the per-request CPU cost
// (RpcHandler::cpu_ns) and the SEND/RECV messages are modelled in virtual
// time; on threads they are real server threads; on verbs they are RC
// SEND/RECV messages served by the memory node process.
//
// Handlers that every backend knows, and that `latchwork memnode` serves,
// are the built-ins (rpc_builtin.h). A verbs run can call only handlers its
// memory node processes were built with: register_handler() there resolves
// the handler's name against the node's table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "latchwork/base/layout.h"
#include "latchwork/base/remote_ptr.h"
#include "latchwork/base/status.h"
#include "latchwork/verbs/cpu_work.h"

namespace lw {

using HandlerId = uint16_t;
// Bytes of one request or one reply (a registered receive buffer each on verbs).
inline constexpr uint32_t kMaxRpcBytes = 1024;
// Handlers per backend: ids are 0 .. kMaxRpcHandlers - 1.
inline constexpr HandlerId kMaxRpcHandlers = 64;

// What a handler may do on its node: CPU accesses to the node's host memory
// (8-byte accesses aligned; CPU atomics are not atomic with NIC atomics, as
// for memory-node threads) and allocation from the node's allocator.
// Offsets are byte offsets in the node's memory; an access out of bounds
// returns kOutOfBounds and touches nothing.
class RpcServer {
 public:
  virtual ~RpcServer() = default;
  virtual NodeId node() const = 0;
  virtual Result<uint64_t> load(uint64_t offset) = 0;
  virtual Status store(uint64_t offset, uint64_t value) = 0;
  virtual Result<uint64_t> cas(uint64_t offset, uint64_t expected, uint64_t desired) = 0;
  virtual Result<uint64_t> faa(uint64_t offset, uint64_t add) = 0;
  virtual Status read(uint64_t offset, void* dst, uint64_t bytes) = 0;
  virtual Status write(uint64_t offset, const void* src, uint64_t bytes) = 0;
  // Zeroed host memory of the node; null when full.
  virtual RemoteAddr allocate(uint64_t bytes, uint64_t align) = 0;
  // CPU time beyond the handler's fixed cost (e.g. per byte); virtual time
  // in the simulator, nothing elsewhere. The simulator already charges each
  // access above as a memory-node thread's (NicParams::cpu_access_ns) and the
  // bytes read or written as copies (copy_ns_per_byte).
  virtual void charge_cpu(Nanos ns) = 0;
  // Modelled CPU time of `units` of `kind` (0 where real CPU time passes).
  virtual Nanos work_cost(CpuWork /*kind*/, uint64_t /*units*/) const { return 0; }
  // Accounts a handler's own measured work (hashing, scanning, checks).
  void compute(CpuWork kind, uint64_t units) { charge_cpu(work_cost(kind, units)); }
};

// A handler: reads `request`, writes at most reply.size() bytes into
// `reply`, sets *reply_bytes, and returns a status that the caller's call
// completes with (kOk, or the handler's error; the reply is then empty).
using RpcHandlerFn = std::function<Status(RpcServer& server, std::span<const std::byte> request,
                                          std::span<std::byte> reply, uint32_t* reply_bytes)>;

struct RpcHandler {
  std::string name;     // unique per backend; how verbs runs find it on the node
  RpcHandlerFn fn;
  // Modelled CPU time of one request on a polling core, beyond what the
  // handler charges: dispatch and reply assembly.
  Nanos cpu_ns = 300;
};

// One call in flight: what WorkerPort::rpc() receives.
struct RpcCall {
  NodeId node = 0;
  HandlerId handler = 0;
  std::span<const std::byte> request;
  std::span<std::byte> reply;  // empty for one-way messages
  bool one_way = false;        // no reply; acknowledged passively
  // Filled in when the call completes.
  Status status = Status::kOk;
  uint32_t reply_bytes = 0;
};

}  // namespace lw
