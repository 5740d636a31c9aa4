#include "latchwork/verbs/rpc_builtin.h"

#include <cstring>

namespace lw {

namespace {

Status alloc_chunk(RpcServer& server, std::span<const std::byte> request,
                   std::span<std::byte> reply, uint32_t* reply_bytes) {
  uint64_t req[2];
  if (request.size() != sizeof req || reply.size() < 8) return Status::kBadLength;
  std::memcpy(req, request.data(), sizeof req);
  const uint64_t bytes = req[0], align = req[1];
  if (bytes == 0 || align == 0 || (align & (align - 1)) != 0 || align > 4096)
    return Status::kBadLength;
  const uint64_t raw = server.allocate(bytes, align).raw();
  std::memcpy(reply.data(), &raw, 8);
  *reply_bytes = 8;
  return Status::kOk;
}

Status echo(RpcServer&, std::span<const std::byte> request, std::span<std::byte> reply,
            uint32_t* reply_bytes) {
  if (reply.size() < request.size()) return Status::kBadLength;
  if (!request.empty()) std::memcpy(reply.data(), request.data(), request.size());
  *reply_bytes = static_cast<uint32_t>(request.size());
  return Status::kOk;
}

Status null_handler(RpcServer&, std::span<const std::byte>, std::span<std::byte>,
                    uint32_t* reply_bytes) {
  *reply_bytes = 0;
  return Status::kOk;
}

Status fetch_add(RpcServer& server, std::span<const std::byte> request, std::span<std::byte> reply,
                 uint32_t* reply_bytes) {
  uint64_t req[2];
  if (request.size() != sizeof req || reply.size() < 8) return Status::kBadLength;
  std::memcpy(req, request.data(), sizeof req);
  const Result<uint64_t> r = server.faa(req[0], req[1]);
  if (r.status != Status::kOk) return r.status;
  std::memcpy(reply.data(), &r.value, 8);
  *reply_bytes = 8;
  return Status::kOk;
}

}  // namespace

const std::vector<RpcHandler>& builtin_rpc_handlers() {
  // Modelled CPU time on the node's polling core (simulator only): each
  // pays the dispatch; fetch_add's CPU atomic is charged as it runs
  // (RpcServer), and alloc_chunk's bump of the node's allocator is host
  // bookkeeping the model does not charge.
  static const std::vector<RpcHandler> handlers = {
      {"alloc_chunk", alloc_chunk, kRpcDispatchCpuNs},
      {"echo", echo, kRpcDispatchCpuNs},
      {"null", null_handler, kRpcDispatchCpuNs},
      {"fetch_add", fetch_add, kRpcDispatchCpuNs},
  };
  return handlers;
}

}  // namespace lw
