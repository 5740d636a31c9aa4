// The hold model: exclusive holds overlap nothing, shared holds only shared
// holds; holds of one worker never conflict; touching is fine. A large
// random correct schedule of holds passes until one hold is stretched into
// its neighbour.
#include <gtest/gtest.h>

#include "latchwork/base/random.h"
#include "latchwork/check/history.h"
#include "latchwork/check/models.h"
#include "check/model_test_util.h"

namespace lw {
namespace {

using model_test::first;
using model_test::violations;
using model_test::worker;

TEST(HoldModel, CorrectHoldsPass) {
  HoldModel m;
  m.exclusive(1, 0, 100, worker(0));
  m.exclusive(1, 100, 200, worker(1));  // touching
  m.shared(1, 200, 300, worker(2));
  m.shared(1, 250, 400, worker(3));     // shared with shared
  m.shared(1, 260, 270, worker(4));
  m.exclusive(1, 400, 500, worker(4));
  m.exclusive(2, 0, 1000, worker(0));   // another key
  m.exclusive(1, 450, 460, worker(4));  // the same worker: a re-entrant record, not a race
  m.shared(1, 420, 430, worker(4));
  EXPECT_EQ(m.size(), 9u);
  EXPECT_STREQ(m.name(), "holds");
  auto v = violations(m);
  EXPECT_TRUE(v.empty()) << first(v);
}

TEST(HoldModel, OverlappingExclusiveHolds) {
  HoldModel m;
  m.exclusive(1, 0, 100, worker(0));
  m.exclusive(1, 100, 200, worker(1));
  m.exclusive(1, 150, 250, worker(0));  // overlaps worker 1's
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "overlapping-holds");
  EXPECT_EQ(v[0].key, 1u);
  EXPECT_EQ(v[0].start, 150u);
  EXPECT_EQ(v[0].who.node, 0u);
  EXPECT_EQ(v[0].detail,
            "key 1: exclusive hold by compute 0/0/0 during [150, 250] ns overlaps the exclusive hold "
            "by compute 1/0/0 during [100, 200] ns");
}

TEST(HoldModel, ExclusiveInsideALongHoldOfAnother) {
  // The rival is the earlier hold that lasts longest, not the latest one.
  HoldModel m;
  m.exclusive(1, 0, 1000, worker(0));
  m.exclusive(1, 10, 20, worker(0));
  m.exclusive(1, 30, 40, worker(1));
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].start, 30u);
  EXPECT_NE(v[0].detail.find("compute 0/0/0 during [0, 1000] ns"), std::string::npos) << v[0].detail;
}

TEST(HoldModel, SharedOverlappingExclusive) {
  HoldModel m;
  m.shared(1, 0, 100, worker(0));
  m.shared(1, 10, 50, worker(1));
  m.exclusive(1, 60, 120, worker(2));  // while worker 0 reads
  m.shared(1, 110, 130, worker(3));    // while worker 2 writes
  m.shared(2, 0, 100, worker(0));
  m.exclusive(2, 100, 200, worker(1));  // touching
  auto v = violations(m);
  ASSERT_EQ(v.size(), 2u) << first(v);
  EXPECT_EQ(v[0].kind, "shared-overlaps-exclusive");
  EXPECT_EQ(v[0].start, 60u);
  EXPECT_EQ(v[0].detail,
            "key 1: exclusive hold by compute 2/0/0 during [60, 120] ns overlaps the shared hold by "
            "compute 0/0/0 during [0, 100] ns");
  EXPECT_EQ(v[1].kind, "shared-overlaps-exclusive");
  EXPECT_EQ(v[1].start, 110u);
  EXPECT_NE(v[1].detail.find("the exclusive hold by compute 2/0/0"), std::string::npos) << v[1].detail;
}

// A correct schedule per key: phases one after another (with gaps), each
// either one exclusive hold or several shared holds inside the phase.
struct RandomHolds {
  struct Hold { uint64_t key; Nanos acquired, released; Placement who; bool exclusive; };
  std::vector<Hold> holds;

  RandomHolds(uint64_t seed, size_t phases, uint64_t keys) {
    Rng rng(seed);
    std::vector<Nanos> clock(keys, 0);
    for (size_t i = 0; i < phases; ++i) {
      const uint64_t key = rng.below(keys);
      const Nanos begin = clock[key] + rng.below(50), end = begin + 1 + rng.below(500);
      clock[key] = end;
      if (rng.chance(0.5)) {
        holds.push_back({key, begin, end, pick(rng), true});
        continue;
      }
      for (uint64_t n = rng.between(1, 4); n > 0; --n) {
        const Nanos a = rng.between(begin, end), b = rng.between(a, end);
        holds.push_back({key, a, b, pick(rng), false});
      }
    }
  }
  static Placement pick(Rng& rng) {
    return worker(static_cast<uint32_t>(rng.below(8)), static_cast<uint32_t>(rng.below(4)));
  }
  void record(HoldModel* m) const {
    for (const Hold& h : holds) {
      if (h.exclusive) m->exclusive(h.key, h.acquired, h.released, h.who);
      else m->shared(h.key, h.acquired, h.released, h.who);
    }
  }
};

TEST(HoldModel, LargeRandomCorrectScheduleOfHoldsPasses) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    RandomHolds h(seed, 100000, 16);
    HoldModel m;
    h.record(&m);
    auto v = violations(m);
    EXPECT_TRUE(v.empty()) << "seed " << seed << ": " << v.size() << " violations, first: " << first(v);
  }
}

TEST(HoldModel, InjectedLateReleaseIsCaught) {
  RandomHolds h(5, 20000, 4);
  // An exclusive hold released late, into the next hold of another worker
  // on its key (exclusive or shared).
  size_t injected = h.holds.size(), victim = 0;
  for (size_t i = 0; i < h.holds.size() && injected == h.holds.size(); ++i) {
    if (!h.holds[i].exclusive) continue;
    for (size_t j = i + 1; j < h.holds.size(); ++j) {
      const auto& n = h.holds[j];
      if (n.key != h.holds[i].key) continue;
      if (n.released > n.acquired && !same_worker(n.who, h.holds[i].who)) injected = i, victim = j;
      break;
    }
  }
  ASSERT_LT(injected, h.holds.size());
  h.holds[injected].released = h.holds[victim].acquired + 1;
  HoldModel m;
  h.record(&m);
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u) << first(v);
  EXPECT_EQ(v[0].kind, h.holds[victim].exclusive ? "overlapping-holds" : "shared-overlaps-exclusive");
  EXPECT_EQ(v[0].start, h.holds[victim].acquired);
  EXPECT_TRUE(same_worker(v[0].who, h.holds[victim].who));
}

}  // namespace
}  // namespace lw
