// The bounce buffer's ring: spans come back in any order, space is reused
// from the oldest on, and it never hands out overlapping spans.
#include "span_ring.h"

#include <gtest/gtest.h>

#include <map>

#include "latchwork/base/random.h"

namespace lw::rdma {
namespace {

TEST(SpanRing, TakesInOrderAndWrapsOnceTheOldestReturns) {
  SpanRing r(1024);
  uint64_t a, b, c, d;
  ASSERT_TRUE(r.take(400, &a));  // rounds to 448
  ASSERT_TRUE(r.take(400, &b));  // 448..896
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 448u);
  EXPECT_FALSE(r.take(200, &c));  // 896 + 256 > 1024 and the start is taken
  r.give_back(b);                 // not the oldest: nothing reclaimed yet
  EXPECT_FALSE(r.take(200, &c));
  r.give_back(a);                 // both gone: the ring is empty again
  EXPECT_TRUE(r.empty());
  ASSERT_TRUE(r.take(900, &c));
  EXPECT_EQ(c, 0u);
  ASSERT_TRUE(r.take(64, &d));
  EXPECT_EQ(d, 960u);
  EXPECT_FALSE(r.take(1, &d));
  EXPECT_FALSE(r.take(2048, &d));  // larger than the ring: never
}

TEST(SpanRing, RandomTakesAndReturnsNeverOverlap) {
  Rng rng(7);
  SpanRing r(1 << 16);
  std::map<uint64_t, uint64_t> live;  // offset -> rounded length
  uint64_t taken = 0;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng.below(100) < 55) {
      const uint64_t len = 1 + rng.below(9000);
      uint64_t off;
      if (!r.take(len, &off)) continue;
      ++taken;
      const uint64_t rounded = (len + 63) / 64 * 64;
      ASSERT_LE(off + rounded, r.capacity());
      auto next = live.lower_bound(off);
      if (next != live.end()) {
        ASSERT_LE(off + rounded, next->first) << "overlaps the next span";
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second, off) << "overlaps the previous span";
      }
      live[off] = rounded;
    } else {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng.below(live.size())));
      r.give_back(it->first);
      live.erase(it);
    }
  }
  EXPECT_GT(taken, 5000u);
  for (auto& [off, len] : live) r.give_back(off);
  EXPECT_TRUE(r.empty());
}

TEST(SpanRingDeathTest, GivingBackTwiceIsAnInvariantViolation) {
  SpanRing r(4096);
  uint64_t a, b;
  ASSERT_TRUE(r.take(64, &a));
  ASSERT_TRUE(r.take(64, &b));
  r.give_back(b);
  EXPECT_DEATH(r.give_back(b), "given back twice");
}

}  // namespace
}  // namespace lw::rdma
