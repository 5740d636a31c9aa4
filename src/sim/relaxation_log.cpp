// The simulator's relaxation log: a bounded list of events, queried by worker
// and time.
#include "latchwork/sim/relaxation_log.h"

#include <algorithm>

namespace lw {
namespace {
bool overlaps(const RelaxationEvent& e, Nanos start, Nanos end) {
  return e.at <= end && start <= e.until;
}
bool same(const Placement& a, const Placement& b) {
  return a.kind == b.kind && a.node == b.node && a.thread == b.thread && a.coroutine == b.coroutine;
}
}  // namespace

RelaxationLog::RelaxationLog(size_t max_events) : max_(max_events) {}

void RelaxationLog::add(RelaxationEvent e) {
  if (events_.size() >= max_) {
    ++dropped_;
    return;
  }
  events_.push_back(std::move(e));
}

std::vector<RelaxationEvent> RelaxationLog::of(const Placement& who, Nanos start, Nanos end) const {
  std::vector<RelaxationEvent> out;
  for (const RelaxationEvent& e : events_)
    if (same(e.who, who) && overlaps(e, start, end)) out.push_back(e);
  return out;
}

std::vector<RelaxationEvent> RelaxationLog::overlapping(Nanos start, Nanos end) const {
  std::vector<RelaxationEvent> out;
  for (const RelaxationEvent& e : events_)
    if (overlaps(e, start, end)) out.push_back(e);
  return out;
}

size_t RelaxationLog::count(const std::string& relaxation) const {
  return static_cast<size_t>(std::count_if(events_.begin(), events_.end(), [&](const RelaxationEvent& e) {
    return e.relaxation == relaxation;
  }));
}

}  // namespace lw
