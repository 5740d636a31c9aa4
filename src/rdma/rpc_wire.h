// The wire format of two-sided RPC on the verbs backend, shared by the
// compute side (rpc_client.cpp) and the memory node (rpc_server.cpp).
//
// Transport: RC SEND/RECV on the queue pairs that already carry a thread's
// one-sided verbs to a memory node (docs/verbs-backend.md, "Two-sided RPC").
// RC rather than UD (FaSST) because the connected QPs exist anyway, RC
// delivers reliably and in order (no software retransmission, no loss
// handling), its ACK is the passive acknowledgement of one-way messages, and
// a request (at most kMaxRpcBytes + header) fits one MTU either way; UD's
// advantage, few QPs for many peers, does not matter for a handful of
// memory nodes per thread.
//
// Flow control: each side keeps kRpcSlots RECVs posted per QP, and a
// requester holds one credit per request the responder has not yet
// recycled. A call's credit comes back with its reply; one-way messages'
// credits come back piggybacked on the next reply (RpcHeader::credits) or,
// when kRpcCreditBatch of them are unreturned, in a credit message. Every
// message the responder sends answers a distinct outstanding credit, so the
// requester's kRpcSlots RECVs always suffice: neither side sees RNR.
#pragma once

#include <cstddef>
#include <cstdint>

#include "latchwork/verbs/rpc.h"

namespace lw::rdma {

// RECVs posted per QP on each side, and credits per QP.
inline constexpr uint32_t kRpcSlots = 16;
// A responder returns one-way credits in a message of their own at this many.
inline constexpr uint32_t kRpcCreditBatch = kRpcSlots / 2;

enum class RpcKind : uint8_t { kRequest = 1, kOneWay = 2, kReply = 3, kCredit = 4 };

struct RpcHeader {
  uint32_t call_id = 0;    // request: the requester's id; reply: echoed
  uint16_t handler = 0;    // request: the handler's id in the node's table
  RpcKind kind = RpcKind::kRequest;
  uint8_t status = 0;      // reply: the handler's Status
  uint32_t length = 0;     // payload bytes after the header
  uint16_t credits = 0;    // reply/credit: one-way credits returned
  uint16_t reply_cap = 0;  // request: room for the reply (<= kMaxRpcBytes)
  uint32_t node = 0;       // request: the memory node's id in the requester's cluster
  uint32_t reserved = 0;
};
static_assert(sizeof(RpcHeader) == 24);
static_assert(kMaxRpcBytes <= 0xffff, "reply_cap is 16 bits");

// One registered message buffer: header and the largest payload.
inline constexpr uint32_t kRpcSlotBytes = 64 * ((sizeof(RpcHeader) + kMaxRpcBytes + 63) / 64);

// wr_id bit that marks a RECV completion (the rest: the buffer slot).
inline constexpr uint64_t kRecvWrFlag = uint64_t{1} << 63;

}  // namespace lw::rdma
