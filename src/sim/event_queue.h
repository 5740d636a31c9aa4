// The simulator's agenda: events ordered by virtual time, ties broken by the
// order they were scheduled in (so runs are deterministic).
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

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
  void push(Nanos time, EventKind kind, void* target, uint32_t arg = 0) {
    heap_.push(Event{time, next_seq_++, target, arg, kind});
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace lw::sim
