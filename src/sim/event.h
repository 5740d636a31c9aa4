// A simulator event: what happens (its kind and target) and when, with the
// push order that breaks ties in time.
#pragma once

#include <cstdint>

#include "latchwork/base/layout.h"

namespace lw::sim {

enum class EventKind : uint8_t {
  kReadLines,        // a READ fetches some of its lines (arg: first line, count in op)
  kWriteLine,        // a WRITE lands one line (arg: line index) or all lines
  kAtomicRead,       // a NIC atomic reads its word
  kAtomicWriteBack,  // and writes it back
  kComplete,         // a work request's completion reaches the requester
  kCpuAccess,        // a memory-node CPU access takes effect
  kWake,             // a sleeping coroutine becomes ready
  kThreadRun,        // a thread's CPU is free to run its next ready coroutine
  kDeviceOp,         // the switch's pipeline or a SmartNIC core executes a request
  kSwitchRequest,    // a request to a memory node passes the switch (§5.5 program)
  kSwitchResponse,   // its response (READ data, WRITE ACK) passes the switch
  kSwitchDuplicate,  // a retransmitted request reaches the switch again (fault injection)
  kRpcArrive,        // an RPC's request SEND is in the memory node's receive buffer
  kRpcServe,         // a polling core runs the call's handler
  kRpcDone,          // the core has posted the reply and is free
  kRpcReply,         // the reply reaches the caller
};
// The trace hash mixes (seq << 4) | kind: kinds must fit in 4 bits.
static_assert(static_cast<unsigned>(EventKind::kRpcReply) < 16);

struct Event {
  Nanos time;
  uint64_t seq;  // push order: breaks ties in time
  void* target;
  uint32_t arg;
  EventKind kind;
};

inline bool event_before(const Event& a, const Event& b) {
  return a.time != b.time ? a.time < b.time : a.seq < b.seq;
}

}  // namespace lw::sim
