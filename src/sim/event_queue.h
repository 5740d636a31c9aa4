// The simulator's agenda: events ordered by virtual time, ties broken by the
// order they were scheduled in (so runs are deterministic).
//
// A 4-ary min-heap on the key (time, seq): half the depth of a binary heap,
// and a node's four children share one or two cache lines. Keys are unique
// (seq is), so the pop order is the total order on (time, seq) whatever the
// heap's shape.
#pragma once

#include <cstdint>
#include <vector>

#include "latchwork/base/assert.h"
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
  uint64_t seq;
  void* target;
  uint32_t arg;
  EventKind kind;
};

class EventQueue {
 public:
  // Events are never scheduled before the last one popped: the clock only
  // moves forward.
  void push(Nanos time, EventKind kind, void* target, uint32_t arg = 0) {
    LW_CHECK_MSG(time >= floor_, "an event was scheduled in the past");
    const uint64_t seq = next_seq_++;
    heap_.emplace_back();
    // Sift the hole up by the key alone and write the new entry once, field
    // by field: copying a just-written struct back as a whole stalls store
    // forwarding.
    size_t i = heap_.size() - 1;
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      const Event& p = heap_[parent];
      if (p.time < time || (p.time == time && p.seq < seq)) break;
      heap_[i] = p;
      i = parent;
    }
    Event& e = heap_[i];
    e.time = time;
    e.seq = seq;
    e.target = target;
    e.arg = arg;
    e.kind = kind;
  }
  bool empty() const { return heap_.empty(); }
  // The event pop() would return now, or null.
  const Event* peek() const { return heap_.empty() ? nullptr : &heap_[0]; }
  size_t size() const { return heap_.size(); }
  Event pop() {
    LW_CHECK(!heap_.empty());
    const Event top = heap_[0];
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    floor_ = top.time;
    return top;
  }

 private:
  static constexpr size_t kArity = 4;
  static bool before(const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  }
  // Places `e` from the root down (the root's old entry is gone).
  void sift_down(const Event& e) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t first = i * kArity + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = first + kArity < n ? first + kArity : n;
      for (size_t c = first + 1; c < end; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
  Nanos floor_ = 0;  // time of the last event popped
};

}  // namespace lw::sim
