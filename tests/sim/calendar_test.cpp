#include "calendar.h"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <vector>

#include "latchwork/base/random.h"

namespace lw::sim {
namespace {

TEST(Calendar, BooksBackToBackWhenBusy) {
  Calendar c;
  EXPECT_EQ(c.book(100, 10, 0), 100u);
  EXPECT_EQ(c.book(100, 10, 0), 110u);
  EXPECT_EQ(c.book(105, 10, 0), 120u);
  EXPECT_EQ(c.intervals(), 1u);  // touching bookings merge
}

TEST(Calendar, EarlyRequestUsesAGapBeforeALaterBooking) {
  // A booking made first for a later time must not delay an earlier request.
  Calendar c;
  EXPECT_EQ(c.book(1000, 10, 0), 1000u);
  EXPECT_EQ(c.book(100, 10, 0), 100u);
  EXPECT_EQ(c.book(995, 10, 0), 1010u);  // a 5 ns gap is too small
  EXPECT_EQ(c.intervals(), 2u);
}

TEST(Calendar, ReleasedTimeCanBeBookedAgain) {
  Calendar c;
  EXPECT_EQ(c.book(0, 100, 0), 0u);
  c.release(40, 100);
  EXPECT_EQ(c.book(50, 20, 0), 50u);
  EXPECT_EQ(c.book(0, 10, 0), 40u);  // the first gap that fits is [40, 50)
}

TEST(Calendar, ForgetsThePast) {
  Calendar c;
  for (Nanos t = 0; t < 1000; t += 20) c.book(t, 10, t);
  EXPECT_LE(c.intervals(), 2u);
}

TEST(Calendar, MergesWithBothNeighbours) {
  Calendar c;
  EXPECT_EQ(c.book(0, 10, 0), 0u);
  EXPECT_EQ(c.book(20, 10, 0), 20u);
  EXPECT_EQ(c.intervals(), 2u);
  EXPECT_EQ(c.book(10, 10, 0), 10u);  // fills the gap exactly
  EXPECT_EQ(c.intervals(), 1u);
  EXPECT_EQ(c.book(0, 1, 0), 30u);
}

TEST(Calendar, ReleaseSplitsShrinksOrRemoves) {
  Calendar c;
  c.book(0, 100, 0);
  c.release(40, 60);  // split
  EXPECT_EQ(c.intervals(), 2u);
  EXPECT_EQ(c.earliest_fit(0, 20), 40u);
  EXPECT_EQ(c.earliest_fit(0, 21), 100u);
  c.release(0, 10);  // shrink from the front
  EXPECT_EQ(c.earliest_fit(0, 10), 0u);
  c.release(90, 100);  // shrink from the back
  EXPECT_EQ(c.earliest_fit(61, 30), 90u);
  c.release(60, 90);  // remove
  EXPECT_EQ(c.intervals(), 1u);
  EXPECT_EQ(c.earliest_fit(0, 31), 40u);
}

TEST(Calendar, StaysSmallWhenTheClockPassesManyIntervals) {
  // Gapped bookings that the horizon overtakes: the live set stays bounded
  // (the front is trimmed), and results match bookings made afresh.
  Calendar c;
  for (Nanos t = 0; t < 100000; t += 10) {
    EXPECT_EQ(c.book(t + 100, 5, t), t + 100);
    EXPECT_LE(c.intervals(), 11u);
  }
}

// The calendar as it was first written (a std::map of start -> end): the
// reference whose start times every figure and trace hash depend on.
class MapCalendar {
 public:
  Nanos book(Nanos earliest, Nanos duration, Nanos horizon) {
    while (!busy_.empty() && busy_.begin()->second <= horizon) busy_.erase(busy_.begin());
    if (duration == 0) return earliest;
    const Nanos start = earliest_fit(earliest, duration);
    Nanos lo = start, hi = start + duration;
    auto next = busy_.lower_bound(lo);
    if (next != busy_.end() && next->first == hi) {
      hi = next->second;
      next = busy_.erase(next);
    }
    if (next != busy_.begin()) {
      auto prev = std::prev(next);
      if (prev->second == lo) {
        prev->second = hi;
        return start;
      }
    }
    busy_.emplace_hint(next, lo, hi);
    return start;
  }
  Nanos earliest_fit(Nanos earliest, Nanos duration) const {
    if (duration == 0) return earliest;
    Nanos start = earliest;
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
  void release(Nanos start, Nanos end) {
    if (start >= end) return;
    auto it = std::prev(busy_.upper_bound(start));
    const Nanos lo = it->first, hi = it->second;
    busy_.erase(it);
    if (lo < start) busy_.emplace(lo, start);
    if (end < hi) busy_.emplace(end, hi);
  }
  size_t intervals() const { return busy_.size(); }
  // A booked sub-interval to release, chosen by `pick`; false if none.
  bool booked_part(uint64_t pick, Nanos horizon, Nanos* start, Nanos* end) const {
    std::vector<std::pair<Nanos, Nanos>> live;
    for (auto [lo, hi] : busy_)
      if (hi > horizon) live.emplace_back(std::max(lo, horizon), hi);
    if (live.empty()) return false;
    auto [lo, hi] = live[pick % live.size()];
    const Nanos len = hi - lo;
    *start = lo + (pick >> 8) % len;
    *end = *start + 1 + (pick >> 24) % (hi - *start);
    return true;
  }

 private:
  std::map<Nanos, Nanos> busy_;
};

// Random mixes of in-order and out-of-order bookings, probes and releases,
// against the reference: every start time and interval count must agree.
void differential(uint64_t seed, Nanos spread, Nanos max_duration) {
  Rng rng(seed);
  Calendar c;
  MapCalendar ref;
  Nanos horizon = 0;
  for (int step = 0; step < 20000; ++step) {
    const uint64_t what = rng.below(100);
    if (what < 3) {
      horizon += rng.below(spread);  // the event clock moves on
    } else if (what < 10) {
      Nanos start, end;
      if (ref.booked_part(rng.next(), horizon, &start, &end)) {
        c.release(start, end);
        ref.release(start, end);
      }
    } else if (what < 20) {
      const Nanos e = horizon + rng.below(spread), d = rng.below(max_duration + 1);
      ASSERT_EQ(c.earliest_fit(e, d), ref.earliest_fit(e, d)) << "seed " << seed << " step " << step;
    } else {
      // Mostly appends just ahead of the clock, some far ahead, some early.
      const Nanos e = horizon + (what < 90 ? rng.below(spread / 8 + 1) : rng.below(spread));
      const Nanos d = rng.below(max_duration + 1);
      ASSERT_EQ(c.book(e, d, horizon), ref.book(e, d, horizon)) << "seed " << seed << " step " << step;
    }
    ASSERT_EQ(c.intervals(), ref.intervals()) << "seed " << seed << " step " << step;
  }
}

TEST(Calendar, MatchesTheMapCalendarOnRandomSequences) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    differential(seed, 1000, 20);   // dense: many merges and tiny gaps
    differential(seed, 100000, 500);  // sparse: many intervals, long gaps
    differential(seed, 64, 1);       // unit bookings on a short window
  }
}

}  // namespace
}  // namespace lw::sim
