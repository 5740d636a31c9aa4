// A log of the weak behaviours the simulator actually produced, each named by
// the semantics switch that allowed it (Semantics::switches()), so a checker
// that found a violation can say which RDMA relaxation caused it.
//
//   RelaxationLog log;
//   sim.set_relaxation_log(&log);   // before run()
//   sim.run();
//   for (auto& e : log.of(violation.who, violation.start, violation.end)) ...
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "latchwork/base/layout.h"
#include "latchwork/verbs/worker.h"

namespace lw {

struct RelaxationEvent {
  Nanos at = 0, until = 0;  // when the relaxed behaviour happened (an interval)
  Placement who;            // the coroutine whose request was affected
  std::string relaxation;   // the semantics switch name, e.g. "read_lines_unordered"
  std::string what;         // what happened, naming requests, addresses and instants
  RemoteAddr addr;          // the affected request's bytes: [addr, addr + length)
  uint64_t length = 0;

  // Whether the affected request touched [lo, lo + bytes) of lo's node.
  bool touches(RemoteAddr lo, uint64_t bytes) const {
    return addr.node() == lo.node() && addr.offset() < lo.offset() + bytes &&
           lo.offset() < addr.offset() + length;
  }
};

class RelaxationLog {
 public:
  // Keeps the first `max_events` events and counts the rest.
  explicit RelaxationLog(size_t max_events = 1 << 16);
  void add(RelaxationEvent e);
  // Events of `who` (kind, node, thread, coroutine all equal) overlapping [start, end].
  std::vector<RelaxationEvent> of(const Placement& who, Nanos start, Nanos end) const;
  // Events of anyone overlapping [start, end].
  std::vector<RelaxationEvent> overlapping(Nanos start, Nanos end) const;
  const std::vector<RelaxationEvent>& events() const { return events_; }
  size_t dropped() const { return dropped_; }
  // Events kept per switch name.
  size_t count(const std::string& relaxation) const;

 private:
  size_t max_;
  size_t dropped_ = 0;
  std::vector<RelaxationEvent> events_;
};

}  // namespace lw
