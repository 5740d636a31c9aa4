// Liveness reports (sim_backend.h): the watchdog stops a run whose workers no
// longer make progress, report_stalls turns a deadlock into a message, and
// blocked() says what each unfinished worker waits on and last saw.
#include <gtest/gtest.h>

#include <string>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

constexpr Placement kWaiter{Placement::Kind::kCompute, 0, 0, 0};
constexpr Placement kSetter{Placement::Kind::kCompute, 1, 0, 0};

ClusterConfig two_nodes() {
  ClusterConfig c;
  c.seed = 11;
  c.compute_nodes = 2;
  return c;
}

struct Handoff {
  RunStats stats;
  std::vector<BlockedWorker> blocked;
  std::string flag;  // its address
};

// The setter does some work, advancing `progress`, then (unless it forgets:
// a lost wake-up) sets the flag from 5 to 6. The waiter polls the flag.
Handoff handoff(bool setter_forgets, bool watchdog) {
  SimBackend sim(two_nodes());
  const RemoteAddr flag = sim.allocate(0, 8, 8);
  const RemoteAddr work = sim.allocate(0, 8, 8);
  sim.host_store(flag, 5);
  Nanos progress = 0;
  if (watchdog) sim.set_watchdog(&progress, 50'000);
  sim.spawn(kWaiter, [=](Worker& w) -> Task<void> {
    for (;;) {
      uint64_t v = 0;
      co_await w.read(&v, flag, 8);
      if (v == 6) break;
      co_await w.sleep(1000);
    }
  });
  sim.spawn(kSetter, [=, &progress](Worker& w) -> Task<void> {
    for (int i = 0; i < 20; ++i) {
      co_await w.faa(work, 1);
      progress = w.now();
    }
    if (!setter_forgets) {
      co_await w.cas(flag, 5, 6);
      progress = w.now();
    }
  });
  Handoff h;
  h.stats = sim.run();
  h.blocked = sim.blocked();
  h.flag = flag.to_string();
  return h;
}

TEST(Liveness, WatchdogStopsALostWakeup) {
  const Handoff h = handoff(/*setter_forgets=*/true, /*watchdog=*/true);
  EXPECT_TRUE(contains(h.stats.stalled, "stalled: no progress for more than 50000 ns")) << h.stats.stalled;
  EXPECT_TRUE(contains(h.stats.stalled, "1 of 2 workers finished")) << h.stats.stalled;
  EXPECT_TRUE(h.stats.budget_exhausted.empty());
  ASSERT_EQ(h.blocked.size(), 1u);
  const BlockedWorker& b = h.blocked[0];
  EXPECT_EQ(b.where.node, 0u);
  EXPECT_EQ(b.where.thread, 0u);
  EXPECT_TRUE(contains(b.waiting_on, "sleeping until") || contains(b.waiting_on, "awaits READ of 8 B at " + h.flag))
      << b.waiting_on;
  ASSERT_FALSE(b.last_seen.empty());
  EXPECT_LE(b.last_seen.size(), 4u);
  // The word it polls and the value it keeps seeing.
  EXPECT_TRUE(contains(b.last_seen.back(), "READ of 8 B at " + h.flag + " -> ok, read 0x5"))
      << b.last_seen.back();
  EXPECT_TRUE(b.any_completion);
  EXPECT_GT(b.last_completion, 50'000u);
  const std::string d = b.describe();
  EXPECT_TRUE(contains(d, "compute 0 thread 0 coroutine 0: ")) << d;
  EXPECT_TRUE(contains(d, "read 0x5")) << d;
}

TEST(Liveness, WatchdogThatDoesNotFireChangesNothing) {
  const Handoff with = handoff(false, true);
  const Handoff without = handoff(false, false);
  EXPECT_TRUE(with.stats.stalled.empty()) << with.stats.stalled;
  EXPECT_TRUE(with.blocked.empty());
  EXPECT_EQ(with.stats.trace_hash, without.stats.trace_hash);
  EXPECT_EQ(with.stats.events, without.stats.events);
}

TEST(Liveness, StallReportsAreDeterministic) {
  const Handoff a = handoff(true, true);
  const Handoff b = handoff(true, true);
  EXPECT_EQ(a.stats.stalled, b.stats.stalled);
  EXPECT_EQ(a.stats.trace_hash, b.stats.trace_hash);
  ASSERT_EQ(a.blocked.size(), b.blocked.size());
  EXPECT_EQ(a.blocked[0].describe(), b.blocked[0].describe());
}

TEST(Liveness, DeadlockIsReportedWhenAsked) {
  SimBackend sim(two_nodes());
  const RemoteAddr x = sim.allocate(0, 8, 8);
  sim.set_report_stalls(true);
  sim.spawn(kWaiter, [=](Worker& w) -> Task<void> {
    co_await w.faa(x, 3);
    co_await std::suspend_always{};  // waits for something that never comes
  });
  sim.spawn(kSetter, [=](Worker& w) -> Task<void> { co_await w.faa(x, 1); });
  const RunStats s = sim.run();
  EXPECT_EQ(s.stalled, "deadlock: 1 of 2 workers are suspended with nothing left to wake them");
  const auto blocked = sim.blocked();
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_EQ(blocked[0].where.node, 0u);
  EXPECT_TRUE(contains(blocked[0].waiting_on, "cannot wake")) << blocked[0].waiting_on;
  ASSERT_EQ(blocked[0].last_seen.size(), 1u);
  EXPECT_TRUE(contains(blocked[0].last_seen[0], "FAA of 8 B at " + x.to_string() + " -> ok, old 0x"))
      << blocked[0].last_seen[0];
}

TEST(Liveness, BudgetStopNamesTheVerbsInFlight) {
  ClusterConfig c = two_nodes();
  c.budget.max_events = 40;
  SimBackend sim(c);
  const RemoteAddr x = sim.allocate(0, 8, 8);
  sim.spawn_compute([=](Worker& w) -> Task<void> {
    for (int i = 0; i < 100; ++i) co_await w.faa(x, 1);
  });
  const RunStats s = sim.run();
  ASSERT_FALSE(s.budget_exhausted.empty());
  EXPECT_TRUE(s.stalled.empty());
  const auto blocked = sim.blocked();
  ASSERT_EQ(blocked.size(), 2u);
  int awaiting = 0;
  for (const BlockedWorker& b : blocked) {
    if (contains(b.waiting_on, "awaits FAA of 8 B at " + x.to_string() + ", posted at ")) ++awaiting;
    EXPECT_FALSE(b.describe().empty());
  }
  EXPECT_GE(awaiting, 1) << blocked[0].waiting_on << "\n" << blocked[1].waiting_on;
}

TEST(Liveness, NothingBlockedAfterACompleteRun) {
  const Handoff h = handoff(false, false);
  EXPECT_TRUE(h.stats.stalled.empty());
  EXPECT_TRUE(h.blocked.empty());
}

}  // namespace
}  // namespace lw
