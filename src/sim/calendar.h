// A resource that serves one thing at a time (a NIC processing unit, a link, a
// PCIe engine, a lock-table slot, a doorbell lock), booked in virtual time.
//
// The simulator books a request's whole path when it is posted, and threads
// post slightly ahead of the event clock, so bookings do not arrive in time
// order. A plain "free at" counter would then make an early request queue
// behind a later one's booking. The calendar keeps the booked intervals and
// gives each request the first gap, at or after its arrival, that fits it.
#pragma once

#include <iterator>
#include <map>

#include "latchwork/base/assert.h"
#include "latchwork/base/layout.h"

namespace lw::sim {

class Calendar {
 public:
  // Books `duration` ns starting at the first free instant >= `earliest`;
  // returns the start. `horizon` is the event clock: nothing will ever be
  // booked before it again, so intervals ending earlier are forgotten.
  Nanos book(Nanos earliest, Nanos duration, Nanos horizon) {
    LW_CHECK(earliest >= horizon);
    forget_before(horizon);
    if (duration == 0) return earliest;
    const Nanos start = earliest_fit(earliest, duration);
    insert(start, start + duration);
    return start;
  }

  // Where book() would start `duration`, without booking it (also to pick
  // the first free of several identical servers). Bounded by the number of
  // intervals.
  Nanos earliest_fit(Nanos earliest, Nanos duration) const {
    if (duration == 0) return earliest;
    Nanos start = earliest;
    // The interval starting at or before `start` may cover it.
    auto it = busy_.upper_bound(start);
    if (it != busy_.begin()) {
      auto prev = std::prev(it);
      if (prev->second > start) start = prev->second;
    }
    while (it != busy_.end() && it->first < start + duration) {
      start = std::max(start, it->second);
      ++it;
    }
    return start;
  }

  // Gives back [start, end) of an earlier booking (an atomic that turned out
  // not to need its write-back).
  void release(Nanos start, Nanos end) {
    if (start >= end) return;
    auto it = busy_.upper_bound(start);
    LW_CHECK(it != busy_.begin());
    --it;
    const Nanos lo = it->first, hi = it->second;
    LW_CHECK_MSG(lo <= start && end <= hi, "released time that was not booked");
    busy_.erase(it);
    if (lo < start) busy_.emplace(lo, start);
    if (end < hi) busy_.emplace(end, hi);
  }

  size_t intervals() const { return busy_.size(); }

 private:
  void insert(Nanos lo, Nanos hi) {
    // Merge with touching neighbours so a saturated resource stays one interval.
    auto next = busy_.lower_bound(lo);
    if (next != busy_.end() && next->first == hi) {
      hi = next->second;
      next = busy_.erase(next);
    }
    if (next != busy_.begin()) {
      auto prev = std::prev(next);
      if (prev->second == lo) {
        prev->second = hi;
        return;
      }
    }
    busy_.emplace_hint(next, lo, hi);
  }

  void forget_before(Nanos horizon) {
    while (!busy_.empty() && busy_.begin()->second <= horizon) busy_.erase(busy_.begin());
  }

  std::map<Nanos, Nanos> busy_;  // start -> end, disjoint
};

}  // namespace lw::sim
