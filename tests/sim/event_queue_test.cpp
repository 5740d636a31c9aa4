#include "event_queue.h"

#include <gtest/gtest.h>

#include <queue>
#include <vector>

#include "latchwork/base/random.h"

namespace lw::sim {
namespace {

TEST(EventQueue, PopsByTimeThenByPushOrder) {
  EventQueue q;
  q.push(20, EventKind::kWake, nullptr, 1);
  q.push(10, EventKind::kWake, nullptr, 2);
  q.push(20, EventKind::kWake, nullptr, 3);
  q.push(10, EventKind::kWake, nullptr, 4);
  std::vector<uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().arg);
  EXPECT_EQ(order, (std::vector<uint32_t>{2, 4, 1, 3}));
}

TEST(EventQueue, RejectsAnEventBeforeTheLastOnePopped) {
  EventQueue q;
  q.push(100, EventKind::kWake, nullptr);
  q.pop();
  q.push(100, EventKind::kWake, nullptr);  // now is fine
  EXPECT_DEATH(q.push(99, EventKind::kWake, nullptr), "scheduled in the past");
}

// The agenda as it was first written: std::priority_queue on (time, seq).
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
};

// Random interleavings of pushes (many ties, some far ahead) and pops, as the
// simulator makes them: every pop must return the reference's event.
TEST(EventQueue, MatchesAPriorityQueueOnRandomInterleavings) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed);
    EventQueue q;
    std::priority_queue<Event, std::vector<Event>, Later> ref;
    uint64_t seq = 0, peeked = 0;
    Nanos now = 0;
    // Ties, near events, events around the wheel's reach (2^18 ns: they wait
    // in its far heap and move in), and jumps over whole turns of the wheel.
    const Nanos spreads[] = {4, 1000, 1000000, (Nanos{1} << 18) + 3, Nanos{1} << 30};
    const Nanos spread = spreads[seed % 5];
    for (int step = 0; step < 20000; ++step) {
      const bool push = ref.empty() || rng.below(100) < 52;
      if (push) {
        // Some events exactly at the wheel's edge, one slot either side.
        const Nanos edge = (Nanos{1} << 18) - 1 + rng.below(3);
        const Nanos t = now + (rng.below(8) == 0 ? edge : rng.below(spread));
        const auto kind = static_cast<EventKind>(rng.below(12));
        const uint32_t arg = static_cast<uint32_t>(rng.next());
        q.push(t, kind, &now, arg);
        ref.push(Event{t, seq++, &now, arg, kind});
      } else {
        const Event a = q.pop(), b = ref.top();
        ref.pop();
        ASSERT_EQ(a.time, b.time) << "seed " << seed << " step " << step;
        ASSERT_EQ(a.seq, b.seq) << "seed " << seed << " step " << step;
        ASSERT_EQ(a.arg, b.arg);
        ASSERT_EQ(a.kind, b.kind);
        now = a.time;
      }
      Event p;  // when peek_near knows the next event, it is what pop will return
      if (q.peek_near(&p)) {
        ++peeked;
        ASSERT_EQ(p.time, ref.top().time);
        ASSERT_EQ(p.seq, ref.top().seq);
      }
      ASSERT_EQ(q.size(), ref.size());
    }
    EXPECT_GT(peeked, 0u) << "seed " << seed;
    while (!ref.empty()) {
      ASSERT_EQ(q.pop().seq, ref.top().seq);
      ref.pop();
    }
    EXPECT_TRUE(q.empty());
    Event none;
    EXPECT_FALSE(q.peek_near(&none));
  }
}

// Bursts of thousands of events into one block ahead alternate with small
// ones, into the same two level-2 buckets by turns (each filled again after
// it was spread), every pop checked against the reference.
TEST(EventQueue, MatchesAPriorityQueueWhenBucketsHoldBursts) {
  Rng rng(7);
  EventQueue q;
  std::priority_queue<Event, std::vector<Event>, Later> ref;
  uint64_t seq = 0;
  Nanos now = 0;
  for (int round = 0; round < 16; ++round) {
    const uint64_t burst = round % 2 == 0 ? 3000 + rng.below(3000) : 1 + rng.below(200);
    // Two buckets by turns (blocks 5 and 9 modulo the wheel's 4,096), so
    // each is filled again after it was spread, kept or dropped.
    uint64_t block = now / 4096 + 2;
    while (block % 4096 != (round % 4 < 2 ? 5u : 9u)) ++block;
    const Nanos block_ahead = block * 4096;
    for (uint64_t i = 0; i < burst; ++i) {
      // Most in one block ahead (many per nanosecond), a few in the current one.
      const Nanos t = rng.below(10) == 0 ? now + rng.below(64) : block_ahead + rng.below(rng.below(2) ? 4096 : 8);
      const uint32_t arg = static_cast<uint32_t>(rng.next());
      q.push(t, EventKind::kWake, &now, arg);
      ref.push(Event{t, seq++, &now, arg, EventKind::kWake});
    }
    // Pop all but a few, so the next round's bucket meets leftovers.
    while (ref.size() > 5) {
      const Event a = q.pop(), b = ref.top();
      ref.pop();
      ASSERT_EQ(a.time, b.time) << "round " << round;
      ASSERT_EQ(a.seq, b.seq) << "round " << round;
      ASSERT_EQ(a.arg, b.arg);
      now = a.time;
    }
  }
  while (!ref.empty()) {
    ASSERT_EQ(q.pop().seq, ref.top().seq);
    ref.pop();
  }
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace lw::sim
