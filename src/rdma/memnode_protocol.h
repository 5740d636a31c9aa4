// Requests of the memory node's control protocol (TCP, see tcp_channel.h).
// Every reply carries "ok"; a refused request carries "error".
//
//   hello         -> version, device, node_bytes, addr, rkey, dm_bytes, dm_rkey,
//                    handlers[]: the RPC handler names the node serves, in id order,
//                    instance: random per server (a backend in the server's own
//                    process finds its memory by it: local_region.h)
//   connect qps[] -> qps[]: one responder QP per requester QP endpoint, each
//                    with rpc_wire.h's kRpcSlots RECVs posted (version 2)
//   alloc bytes align device   -> offset (0 = full)
//   alloc_shared name bytes [align] -> offset of the zeroed region all callers
//                    share (align default 64); offset 0 when full, or 0 and the
//                    existing region's bytes when the name exists with another size
//   barrier name parties timeout_ms -> ok once `parties` callers arrived
#pragma once

#include <cstdint>

namespace lw::rdma {

inline constexpr uint32_t kProtocolVersion = 2;
inline constexpr const char* kOpHello = "hello";
inline constexpr const char* kOpConnect = "connect";
inline constexpr const char* kOpAlloc = "alloc";
inline constexpr const char* kOpAllocShared = "alloc_shared";
inline constexpr const char* kOpBarrier = "barrier";

}  // namespace lw::rdma
