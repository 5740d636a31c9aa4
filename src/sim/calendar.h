// A resource that serves one thing at a time (a NIC processing unit, a link, a
// PCIe engine, a lock-table slot, a doorbell lock), booked in virtual time.
//
// The simulator books a request's whole path when it is posted, and threads
// post slightly ahead of the event clock, so bookings do not arrive in time
// order. A plain "free at" counter would then make an early request queue
// behind a later one's booking. The calendar keeps the booked intervals and
// gives each request the first gap, at or after its arrival, that fits it.
//
// Storage: the disjoint intervals sorted by start in one vector, live from
// `head_` on. Most bookings land at or after the last interval, so that case
// is checked first; the front is trimmed as the event clock passes, and the
// vector is compacted in place, so a steady state allocates nothing.
#pragma once

#include <algorithm>
#include <vector>

#include "latchwork/base/assert.h"
#include "latchwork/base/layout.h"

namespace lw::sim {

class Calendar {
 public:
  // Books `duration` ns starting at the first free instant >= `earliest`;
  // Always inlined, with its helpers: a booking is short, and a call's
  // register saves were a third of it.
  // returns the start. `horizon` is the event clock: nothing will ever be
  // booked before it again, so intervals ending earlier are forgotten.
  [[gnu::always_inline]] Nanos book(Nanos earliest, Nanos duration, Nanos horizon) {
    LW_CHECK(earliest >= horizon);
    forget_before(horizon);
    if (duration == 0) return earliest;
    size_t at;
    const Nanos start = fit(earliest, duration, &at);
    insert(at, start, start + duration);
    return start;
  }

  // Where book() would start `duration`, without booking it (also to pick
  // the first free of several identical servers). Bounded by the number of
  // intervals.
  Nanos earliest_fit(Nanos earliest, Nanos duration) const {
    if (duration == 0) return earliest;
    size_t at;
    return fit(earliest, duration, &at);
  }

  // Gives back [start, end) of an earlier booking (an atomic that turned out
  // not to need its write-back).
  void release(Nanos start, Nanos end) {
    if (start >= end) return;
    const size_t after = upper_bound(start);
    LW_CHECK(after > head_);
    const size_t k = after - 1;
    const Nanos lo = busy_[k].lo, hi = busy_[k].hi;
    LW_CHECK_MSG(lo <= start && end <= hi, "released time that was not booked");
    if (lo < start && end < hi) {
      busy_[k].hi = start;
      busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(k + 1), Interval{end, hi});
    } else if (lo < start) {
      busy_[k].hi = start;
    } else if (end < hi) {
      busy_[k].lo = end;
    } else {
      busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }

  size_t intervals() const { return busy_.size() - head_; }

 private:
  struct Interval {
    Nanos lo, hi;  // [lo, hi), lo < hi
  };

  // The first live index whose interval starts after `t`.
  [[gnu::always_inline]] size_t upper_bound(Nanos t) const {
    const size_t n = busy_.size();
    // Appends dominate: the answer is usually the end, and otherwise a few
    // intervals before it (measured under perf's NIC-model runs: within 3
    // for READs, within 15 for 99% of CAS bookings), so walk back first.
    if (n == head_ || busy_[n - 1].lo <= t) return n;
    size_t i = n - 1;  // busy_[i].lo > t
    for (int step = 0; step < kWalkBack && i > head_; ++step, --i)
      if (busy_[i - 1].lo <= t) return i;
    if (i == head_) return head_;
    // Further back, gallop (steps doubling from the walk's length) and search
    // only the last step: the answer is still near the end (a few dozen
    // intervals back in smart-fig7's links, of hundreds live), and a search
    // over all live intervals missed the cache at every probe.
    size_t from = head_;
    for (size_t step = kWalkBack; i - head_ > step; step *= 2) {
      if (busy_[i - step].lo <= t) {
        from = i - step;
        break;
      }
      i -= step;  // busy_[i].lo > t still
    }
    auto it = std::upper_bound(busy_.begin() + static_cast<std::ptrdiff_t>(from),
                               busy_.begin() + static_cast<std::ptrdiff_t>(i), t,
                               [](Nanos v, const Interval& iv) { return v < iv.lo; });
    return static_cast<size_t>(it - busy_.begin());
  }
  static constexpr int kWalkBack = 16;

  // The first gap at or after `earliest` that holds `duration` (> 0); `*at`
  // is the index the new interval would take (every interval before it ends
  // at or before the start, every one from it on starts at or after the end).
  [[gnu::always_inline]] Nanos fit(Nanos earliest, Nanos duration, size_t* at) const {
    Nanos start = earliest;
    size_t i = upper_bound(start);
    // The interval starting at or before `start` may cover it.
    if (i > head_ && busy_[i - 1].hi > start) start = busy_[i - 1].hi;
    while (i < busy_.size() && busy_[i].lo < start + duration) {
      start = std::max(start, busy_[i].hi);
      ++i;
    }
    *at = i;
    return start;
  }

  [[gnu::always_inline]] void insert(size_t at, Nanos lo, Nanos hi) {
    // Merge with touching neighbours so a saturated resource stays one interval.
    const bool next = at < busy_.size() && busy_[at].lo == hi;
    const bool prev = at > head_ && busy_[at - 1].hi == lo;
    if (prev && next) {
      busy_[at - 1].hi = busy_[at].hi;
      busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (prev) {
      busy_[at - 1].hi = hi;
    } else if (next) {
      busy_[at].lo = lo;
    } else if (at == busy_.size()) {
      busy_.push_back(Interval{lo, hi});
    } else {
      busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(at), Interval{lo, hi});
    }
  }

  [[gnu::always_inline]] void forget_before(Nanos horizon) {
    // Intervals are disjoint and sorted, so their ends are sorted too.
    while (head_ < busy_.size() && busy_[head_].hi <= horizon) ++head_;
    if (head_ == busy_.size()) {
      busy_.clear();
      head_ = 0;
    } else if (head_ >= 32 && head_ * 2 >= busy_.size()) {
      // Compact when the dead prefix outweighs the live part: each interval
      // moves O(1) times on average, and the capacity stays put.
      busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

  std::vector<Interval> busy_;  // disjoint, sorted by start; live from head_
  size_t head_ = 0;
};

}  // namespace lw::sim
