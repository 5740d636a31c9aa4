#include "latchwork/workloads/ycsb.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace lw::ycsb {
namespace {

double update_share(Mix m, uint64_t draws) {
  Workload w({m, 1000, 0.99, 3});
  Rng rng(11);
  uint64_t updates = 0;
  for (uint64_t i = 0; i < draws; ++i) updates += w.next(rng).type == OpType::kUpdate;
  return static_cast<double>(updates) / static_cast<double>(draws);
}

TEST(Ycsb, MixRatios) {
  EXPECT_NEAR(update_share(Mix::kWriteHeavy, 100000), 0.50, 0.01);
  EXPECT_NEAR(update_share(Mix::kReadHeavy, 100000), 0.05, 0.005);
  EXPECT_EQ(update_share(Mix::kReadOnly, 10000), 0.0);
  EXPECT_EQ(update_share(Mix::kUpdateOnly, 10000), 1.0);
}

TEST(Ycsb, ParseNames) {
  Mix m;
  for (const char* n : {"write-heavy", "read-heavy", "read-only", "update-only"}) {
    ASSERT_TRUE(parse_mix(n, &m));
    EXPECT_STREQ(to_string(m), n);
  }
  EXPECT_FALSE(parse_mix("scan-heavy", &m));
}

TEST(Ycsb, KeysAreAScrambledBijectionWithoutZero) {
  Workload w({Mix::kReadOnly, 4096, 0.99, 7});
  const std::vector<uint64_t> keys = w.load_keys();
  std::set<uint64_t> distinct(keys.begin(), keys.end());
  EXPECT_EQ(distinct.size(), 4096u);
  EXPECT_EQ(*distinct.begin(), 1u);
  EXPECT_EQ(*distinct.rbegin(), 4096u);
  // The hottest ranks are not consecutive keys.
  EXPECT_NE(w.key_of_rank(1), w.key_of_rank(0) + 1);
}

TEST(Ycsb, ZipfSkewAndUniform) {
  const uint64_t n = 10000, draws = 200000;
  for (double theta : {0.99, 0.0}) {
    Workload w({Mix::kReadOnly, n, theta, 5});
    Rng rng(1);
    std::map<uint64_t, uint64_t> hits;
    for (uint64_t i = 0; i < draws; ++i) ++hits[w.next(rng).key];
    const double hottest = static_cast<double>(hits[w.key_of_rank(0)]) / draws;
    if (theta > 0) {
      // 1 / H(10000, 0.99) is about 0.095.
      EXPECT_NEAR(hottest, ZipfKeys(n, theta).probability(0), 0.01);
      EXPECT_GT(hits[w.key_of_rank(0)], 10 * hits[w.key_of_rank(100)]);
    } else {
      EXPECT_LT(hottest, 0.001);
      EXPECT_GT(hits.size(), n * 9 / 10);
    }
  }
}

TEST(Ycsb, DeterministicFromSeeds) {
  Workload a({Mix::kWriteHeavy, 1000, 0.99, 9}), b({Mix::kWriteHeavy, 1000, 0.99, 9}),
      c({Mix::kWriteHeavy, 1000, 0.99, 10});
  EXPECT_EQ(a.load_keys(), b.load_keys());
  EXPECT_NE(a.load_keys(), c.load_keys());
  Rng r1(4), r2(4);
  for (int i = 0; i < 1000; ++i) {
    const Op x = a.next(r1), y = b.next(r2);
    ASSERT_EQ(x.key, y.key);
    ASSERT_EQ(x.type, y.type);
  }
}

TEST(Ycsb, ActiveSchedule) {
  const ActiveSchedule s = ActiveSchedule::make(96, 36, 96, 1000, 50, 3);
  uint32_t lo = 96, hi = 0;
  for (uint32_t i = 0; i < s.intervals(); ++i) {
    uint32_t n = 0;
    for (uint32_t t = 0; t < 96; ++t) n += s.active(t, i);
    EXPECT_EQ(n, s.active_count(i));
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  EXPECT_GE(lo, 36u);
  EXPECT_LE(hi, 96u);
  EXPECT_LT(lo + 20, hi);  // the count really changes over time
  EXPECT_EQ(s.interval_at(2500), 2u);
  EXPECT_EQ(s.interval_at(50 * 1000 + 10), 0u);  // repeats
  EXPECT_EQ(s.next_boundary(2500), 3000);
  const ActiveSchedule again = ActiveSchedule::make(96, 36, 96, 1000, 50, 3);
  for (uint32_t i = 0; i < 50; ++i)
    for (uint32_t t = 0; t < 96; ++t) ASSERT_EQ(s.active(t, i), again.active(t, i));
  EXPECT_FALSE(ActiveSchedule::validate(96, 40, 30, 1000, 5).empty());
  EXPECT_FALSE(ActiveSchedule::validate(96, 36, 97, 1000, 5).empty());
}

}  // namespace
}  // namespace lw::ycsb
