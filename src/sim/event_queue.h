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
};

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
    heap_.push_back(Event{time, next_seq_++, target, arg, kind});
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
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
  void sift_up(size_t i) {
    const Event e = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
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
