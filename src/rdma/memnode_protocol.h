// Requests of the memory node's control protocol (TCP, see tcp_channel.h).
// Every reply carries "ok"; a refused request carries "error".
//
//   hello         -> version, device, node_bytes, addr, rkey, dm_bytes, dm_rkey,
//                    handlers[]: the RPC handler names the node serves, in id order
//   connect qps[] -> qps[]: one responder QP per requester QP endpoint, each
//                    with rpc_wire.h's kRpcSlots RECVs posted (version 2)
//   alloc bytes align device   -> offset (0 = full)
//   alloc_shared name bytes    -> offset of the zeroed region all callers share
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
