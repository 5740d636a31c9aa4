// A 4-ary min-heap of events on the key (time, seq): the agenda's store for
// events too far ahead for its timing wheel (event_queue.h).
//
// Half the depth of a binary heap, and a node's four children share one or two
// cache lines. Keys are unique (seq is), so the pop order is the total order on
// (time, seq) whatever the heap's shape.
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
  uint64_t seq;  // push order: breaks ties in time
  void* target;
  uint32_t arg;
  EventKind kind;
};

inline bool event_before(const Event& a, const Event& b) {
  return a.time != b.time ? a.time < b.time : a.seq < b.seq;
}

class EventHeap {
 public:
  void push(const Event& e) {
    heap_.emplace_back();
    // Sift the hole up by the key alone and write the entry once: copying a
    // just-written struct back as a whole stalls store forwarding.
    size_t i = heap_.size() - 1;
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (event_before(heap_[parent], e)) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const {
    LW_CHECK(!heap_.empty());
    return heap_[0];
  }
  Event pop() {
    LW_CHECK(!heap_.empty());
    const Event top = heap_[0];
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return top;
  }

 private:
  static constexpr size_t kArity = 4;
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
        if (event_before(heap_[c], heap_[best])) best = c;
      if (!event_before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
};

}  // namespace lw::sim
