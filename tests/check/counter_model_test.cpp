// The counter model: correct concurrent histories (overlapping increments,
// increments that gave up) pass; lost updates, stale, phantom and
// non-monotonic reads are caught and explained; a large random linearizable
// history passes until one bug is injected.
#include <gtest/gtest.h>

#include <algorithm>

#include "latchwork/base/random.h"
#include "latchwork/check/history.h"
#include "latchwork/check/models.h"
#include "check/model_test_util.h"

namespace lw {
namespace {

using model_test::first;
using model_test::violations;
using model_test::worker;

TEST(CounterModel, SequentialHistoryPasses) {
  CounterModel m;
  m.read(1, 0, 0, 5, worker(1));
  m.add(1, 1, 10, 20, worker(0));
  m.read(1, 1, 30, 40, worker(1));
  m.add(1, 3, 50, 60, worker(0));
  m.read(1, 4, 70, 80, worker(1));
  m.final_value(1, 4);
  m.final_value(2, 0);  // a counter never touched is 0
  EXPECT_EQ(m.size(), 5u);
  EXPECT_STREQ(m.name(), "counter");
  auto v = violations(m);
  EXPECT_TRUE(v.empty()) << first(v);
}

TEST(CounterModel, ConcurrentIncrementsAndReadsPass) {
  // A read overlapping three increments may see any count from 0 to 3; a
  // read after the two short ones completed at least 2.
  for (uint64_t x = 0; x <= 3; ++x) {
    CounterModel m;
    m.add(1, 1, 0, 100, worker(0));
    m.add(1, 1, 10, 50, worker(1));
    m.add(1, 1, 20, 30, worker(2));
    m.read(1, x, 25, 60, worker(3));
    m.read(1, std::max<uint64_t>(x, 2), 60, 70, worker(4));  // touching the first read: concurrent
    m.read(1, 3, 100, 110, worker(5));  // touching the end of the long increment
    m.final_value(1, 3);
    auto v = violations(m);
    EXPECT_TRUE(v.empty()) << x << ": " << first(v);
  }
}

TEST(CounterModel, IncrementsThatGaveUpMayOrMayNotCount) {
  for (uint64_t total : {1u, 3u}) {  // the uncertain +2 lost or kept
    CounterModel m;
    m.add(1, 1, 0, 10, worker(0));
    m.add(1, 2, 20, 30, worker(1), /*ok=*/false);
    m.read(1, total, 40, 50, worker(2));
    m.final_value(1, total);
    auto v = violations(m);
    EXPECT_TRUE(v.empty()) << first(v);
  }
}

TEST(CounterModel, LostUpdateInTheFinalValue) {
  CounterModel m;
  m.add(1, 1, 0, 10, worker(0));
  m.add(1, 1, 5, 15, worker(1));  // READ + WRITE race: both read 0, both write 1
  m.add(1, 5, 20, 30, worker(2), false);
  m.final_value(1, 1);
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "lost-update");
  EXPECT_EQ(v[0].key, 1u);
  EXPECT_EQ(v[0].detail,
            "counter 1: final value 1 is below the 2 completed increments totalling 2 (the last to "
            "complete: +1 by compute 1/0/0 during [5, 15] ns)");
  EXPECT_TRUE(v[0].final_state);  // no operation's: the driver names no worker's causes
}

TEST(CounterModel, FinalBelowARead) {
  CounterModel m;
  m.add(1, 1, 0, 10, worker(0), false);
  m.read(1, 1, 20, 30, worker(1));  // saw the uncertain increment: it took effect
  m.final_value(1, 0);
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "lost-update");
  EXPECT_NE(v[0].detail.find("read by compute 1/0/0 during [20, 30] ns returning 1"), std::string::npos)
      << v[0].detail;
}

TEST(CounterModel, PhantomUpdateInTheFinalValue) {
  CounterModel m;
  m.add(1, 1, 0, 10, worker(0));
  m.add(1, 1, 0, 10, worker(1), false);
  m.final_value(1, 3);
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "phantom-update");
}

TEST(CounterModel, StaleReadBelowCompletedIncrements) {
  CounterModel m;
  m.add(1, 1, 0, 10, worker(0));
  m.add(1, 1, 20, 30, worker(1));
  m.add(1, 1, 35, 60, worker(2));  // concurrent with the read
  m.read(1, 1, 40, 50, worker(3));
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "stale-read");
  EXPECT_EQ(v[0].start, 40u);
  EXPECT_EQ(v[0].who.node, 3u);
  EXPECT_FALSE(v[0].final_state);
  EXPECT_EQ(v[0].detail,
            "counter 1: read by compute 3/0/0 during [40, 50] ns returning 1, but 2 increments "
            "totalling 2 completed before it began (the last: +1 by compute 1/0/0 during [20, 30] ns)");
}

TEST(CounterModel, PhantomReadAboveBegunIncrements) {
  CounterModel m;
  m.add(1, 1, 0, 10, worker(0));
  m.read(1, 2, 20, 30, worker(1));
  m.add(1, 1, 40, 50, worker(2));  // began after the read ended
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "phantom-read");
  EXPECT_NE(v[0].detail.find("the next: +1 by compute 2/0/0 during [40, 50] ns"), std::string::npos)
      << v[0].detail;
}

TEST(CounterModel, NonMonotonicReads) {
  CounterModel m;
  m.add(1, 1, 0, 100, worker(0));
  m.add(1, 1, 0, 100, worker(1));
  m.read(1, 2, 10, 20, worker(2));
  m.read(1, 1, 30, 40, worker(3));  // both increments are in flight, but 2 was seen already
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "non-monotonic-read");
  EXPECT_EQ(v[0].start, 30u);
}

TEST(CounterModel, KeysAreIndependentAndSortedAfterEarlierViolations) {
  CounterModel m;
  m.add(2, 1, 0, 10, worker(0));
  m.read(2, 0, 20, 30, worker(1));
  m.add(1, 1, 0, 10, worker(0));
  m.read(1, 0, 20, 30, worker(1));
  m.final_value(1, 1);
  std::vector<ModelViolation> v(1);  // someone else's, left alone
  v[0].kind = "other";
  v[0].key = 99;
  m.check(&v);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].kind, "other");
  EXPECT_EQ(v[1].key, 1u);
  EXPECT_EQ(v[2].key, 2u);
}

// A linearizable counter history: each increment takes effect at a unique
// point, reads return the sum at theirs; intervals extend randomly around the
// points, and some increments give up (having taken effect or not).
struct RandomCounter {
  struct Add { uint64_t key, amount; Nanos start, end; Placement who; bool ok; };
  struct Read { uint64_t key, value; Nanos start, end; Placement who; };
  std::vector<Add> adds;
  std::vector<Read> reads;
  std::vector<uint64_t> finals;

  RandomCounter(uint64_t seed, size_t n, uint64_t keys) : finals(keys, 0) {
    Rng rng(seed);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t key = rng.below(keys);
      const Nanos at = i * 100 + 50;
      const Nanos start = at - rng.below(2000) % at, end = at + rng.below(2000);
      const Placement who = worker(static_cast<uint32_t>(rng.below(8)), static_cast<uint32_t>(rng.below(4)));
      if (rng.chance(0.4)) {
        reads.push_back({key, finals[key], start, end, who});
        continue;
      }
      const uint64_t amount = rng.chance(0.7) ? 1 : rng.between(2, 1000);
      const bool gave_up = rng.chance(0.05);
      if (!gave_up || rng.chance(0.5)) finals[key] += amount;  // took effect
      adds.push_back({key, amount, start, end, who, !gave_up});
    }
  }
  void record(CounterModel* m) const {
    for (const Add& a : adds) m->add(a.key, a.amount, a.start, a.end, a.who, a.ok);
    for (const Read& r : reads) m->read(r.key, r.value, r.start, r.end, r.who);
    for (uint64_t k = 0; k < finals.size(); ++k) m->final_value(k, finals[k]);
  }
};

TEST(CounterModel, LargeRandomLinearizableHistoryPasses) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    RandomCounter h(seed, 100000, 16);
    CounterModel m;
    h.record(&m);
    auto v = violations(m);
    EXPECT_TRUE(v.empty()) << "seed " << seed << ": " << v.size() << " violations, first: " << first(v);
  }
}

TEST(CounterModel, InjectedLostIncrementIsCaught) {
  RandomCounter h(11, 20000, 4);
  // Drop one completed increment of key 2, and every uncertain one, from its
  // final value: a lost update.
  uint64_t completed = 0;
  const RandomCounter::Add* dropped = nullptr;
  for (const auto& a : h.adds)
    if (a.key == 2 && a.ok) {
      completed += a.amount;
      dropped = &a;
    }
  ASSERT_NE(dropped, nullptr);
  h.finals[2] = completed - dropped->amount;
  CounterModel m;
  h.record(&m);
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u) << first(v);
  EXPECT_EQ(v[0].kind, "lost-update");
  EXPECT_EQ(v[0].key, 2u);
}

TEST(CounterModel, InjectedStaleReadIsCaught) {
  RandomCounter h(12, 20000, 4);
  // A read in the middle returns one less than the increments that completed
  // before it began.
  RandomCounter::Read& r = h.reads[h.reads.size() / 2];
  uint64_t completed = 0;
  for (const auto& a : h.adds)
    if (a.key == r.key && a.ok && a.end < r.start) completed += a.amount;
  ASSERT_GT(completed, 0u);
  ASSERT_LE(completed, r.value);  // the correct value respected the bound
  r.value = completed - 1;
  CounterModel m;
  h.record(&m);
  auto v = violations(m);
  ASSERT_GE(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "stale-read") << v[0].detail;
  EXPECT_EQ(v[0].start, r.start);
  // Lowering one read cannot make any other operation look wrong.
  EXPECT_EQ(v.size(), 1u) << v.back().detail;
}

}  // namespace
}  // namespace lw
