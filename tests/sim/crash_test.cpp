// Crash injection (sim/crash.h): the victim stops at its chosen submission
// and is never resumed; its WRITE in flight lands whole, as a prefix of its
// lines or not at all, as memory afterwards shows; a whole node stops
// together; survivors finish; the seed replays the crash.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <span>
#include <set>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw {
namespace {

constexpr Placement kVictim{Placement::Kind::kCompute, 0, 0, 0};
constexpr Placement kSurvivor{Placement::Kind::kCompute, 1, 0, 0};
constexpr uint32_t kLines = 4;

struct Outcome {
  RunStats stats;
  CrashRecord rec;
  uint64_t line_value[kLines] = {};  // the first word of each line of the target
  bool victim_went_on = false;       // code after the crash point ran
  uint64_t survivor_ops = 0;
};

// The victim READs, then WRITEs 4 lines of 7s over 4 lines of 1s (its 2nd
// submission), then would write a flag. The survivor does 20 FAAs.
Outcome write_crash(uint64_t seed, uint64_t at_submission, bool crash = true, bool staggered = true) {
  ClusterConfig c;
  c.seed = seed;
  // Off: the WRITE lands in one event, which a prefix cut rewrites.
  c.semantics.write_lines_staggered = staggered;
  c.compute_nodes = 2;
  SimBackend sim(c);
  const RemoteAddr target = sim.allocate(0, kLines * kCacheLine, kCacheLine);
  const RemoteAddr counter = sim.allocate(0, 8, 8);
  std::vector<uint64_t> ones(kLines * kCacheLine / 8, 1);
  sim.host_write(target, ones.data(), kLines * kCacheLine);
  if (crash) sim.set_crash({kVictim, false, at_submission});
  Outcome out;
  sim.spawn(kVictim, [&, target](Worker& w) -> Task<void> {
    uint64_t v = 0;
    co_await w.read(&v, target, 8);
    std::vector<uint64_t> sevens(kLines * kCacheLine / 8, 7);
    co_await w.write(target, sevens.data(), kLines * kCacheLine);
    out.victim_went_on = true;
  });
  sim.spawn(kSurvivor, [&, counter](Worker& w) -> Task<void> {
    for (int i = 0; i < 20; ++i) {
      co_await w.faa(counter, 1);
      ++out.survivor_ops;
    }
  });
  out.stats = sim.run();
  out.rec = sim.crash();
  for (uint32_t l = 0; l < kLines; ++l) out.line_value[l] = sim.host_load(target + l * kCacheLine);
  return out;
}

void expect_three_outcomes(bool staggered) {
  std::set<uint32_t> landed_seen;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const Outcome o = write_crash(seed, 2, true, staggered);
    ASSERT_TRUE(o.rec.happened) << "seed " << seed;
    EXPECT_FALSE(o.victim_went_on) << "seed " << seed << ": the victim was resumed after its crash";
    EXPECT_EQ(o.survivor_ops, 20u) << "seed " << seed;
    EXPECT_TRUE(o.stats.stalled.empty() && o.stats.budget_exhausted.empty()) << o.stats.stalled;
    ASSERT_EQ(o.rec.stopped.size(), 1u);
    ASSERT_EQ(o.rec.in_flight.size(), 1u) << "seed " << seed;
    const CrashedVerb& v = o.rec.in_flight[0];
    EXPECT_EQ(v.opcode, Opcode::kWrite);
    EXPECT_EQ(v.lines, kLines);
    // Memory agrees with the record: the first `landed` lines, in address order.
    for (uint32_t l = 0; l < kLines; ++l)
      EXPECT_EQ(o.line_value[l], l < v.landed ? 7u : 1u) << "seed " << seed << " line " << l;
    landed_seen.insert(v.landed);
  }
  EXPECT_TRUE(landed_seen.count(0)) << "never dropped";
  EXPECT_TRUE(landed_seen.count(kLines)) << "never whole";
  EXPECT_TRUE(landed_seen.count(1) || landed_seen.count(2) || landed_seen.count(3)) << "never a prefix";
}

TEST(CrashSim, AWriteInFlightLandsWholeAsAPrefixOrNotAtAll) { expect_three_outcomes(/*staggered=*/true); }

TEST(CrashSim, AWriteLandingInOneEventIsCutToo) { expect_three_outcomes(/*staggered=*/false); }

TEST(CrashSim, TheSeedReplaysTheCrash) {
  for (uint64_t seed : {3u, 17u, 99u}) {
    const Outcome a = write_crash(seed, 2), b = write_crash(seed, 2);
    EXPECT_EQ(a.stats.trace_hash, b.stats.trace_hash);
    EXPECT_EQ(a.rec.at, b.rec.at);
    ASSERT_EQ(a.rec.in_flight.size(), b.rec.in_flight.size());
    EXPECT_EQ(a.rec.in_flight[0].landed, b.rec.in_flight[0].landed);
  }
}

TEST(CrashSim, ACrashPointNeverReachedChangesNothing) {
  const Outcome none = write_crash(5, 0, /*crash=*/false);
  const Outcome late = write_crash(5, 3);  // the victim posts only 2
  EXPECT_FALSE(late.rec.happened);
  EXPECT_TRUE(late.victim_went_on);
  EXPECT_EQ(late.stats.trace_hash, none.stats.trace_hash);
  for (uint32_t l = 0; l < kLines; ++l) EXPECT_EQ(late.line_value[l], 7u);
}

TEST(CrashSim, AWholeNodeStopsTogetherAndTheOtherNodeFinishes) {
  ClusterConfig c;
  c.seed = 8;
  c.compute_nodes = 2;
  c.threads_per_node = 2;
  c.coroutines_per_thread = 2;
  SimBackend sim(c);
  const RemoteAddr counter = sim.allocate(0, 8, 8);
  sim.set_crash({kVictim, /*whole_node=*/true, 5});
  uint64_t done[2] = {0, 0};
  sim.spawn_compute([&, counter](Worker& w) -> Task<void> {
    for (int i = 0; i < 30; ++i) {
      co_await w.faa(counter, 1);
      ++done[w.placement().node];
    }
  });
  const RunStats st = sim.run();
  EXPECT_TRUE(st.stalled.empty()) << st.stalled;
  const CrashRecord& rec = sim.crash();
  ASSERT_TRUE(rec.happened);
  ASSERT_EQ(rec.stopped.size(), 4u);
  for (const Placement& p : rec.stopped) EXPECT_EQ(p.node, 0u);
  EXPECT_EQ(done[1], 4u * 30);  // every survivor finished
  EXPECT_LT(done[0], 4u * 30);  // node 0 stopped short
  // Each landed FAA counts once: node 1's, node 0's completed ones, and
  // those of node 0's in flight that the cut let land.
  uint64_t landed = 0;
  for (const CrashedVerb& v : rec.in_flight) landed += v.landed;
  const uint64_t total = sim.host_load(counter);
  EXPECT_GE(total, done[0] + done[1]);
  EXPECT_LE(total, done[0] + done[1] + rec.stopped.size());
  EXPECT_LE(landed, rec.in_flight.size());
}

// A node crash stops a worker of the node that awaits an RPC and one that
// sleeps: the reply and the wake-up reach nobody, and the run ends when the
// other node's worker does.
TEST(CrashSim, ANodeCrashDropsRepliesAndWakeupsOfItsWorkers) {
  ClusterConfig c;
  c.seed = 4;
  c.compute_nodes = 2;
  c.threads_per_node = 3;
  SimBackend sim(c);
  const RemoteAddr word = sim.allocate(0, 8, 8);
  sim.set_crash({kVictim, /*whole_node=*/true, 3});
  uint64_t after[3] = {0, 0, 0};  // node 0's workers' steps; [2]: node 1's
  std::array<std::byte, 16> reply{};
  sim.spawn(kVictim, [&, word](Worker& w) -> Task<void> {
    for (int i = 0; i < 10; ++i) {
      co_await w.faa(word, 1);
      ++after[0];
    }
  });
  sim.spawn({Placement::Kind::kCompute, 0, 1, 0}, [&](Worker& w) -> Task<void> {
    for (int i = 0; i < 100; ++i) {
      const char msg[] = "ping";
      (void)co_await w.call(0, kEchoHandler, std::as_bytes(std::span(msg)), reply);
      ++after[1];
    }
  });
  sim.spawn({Placement::Kind::kCompute, 0, 2, 0}, [&](Worker& w) -> Task<void> {
    for (int i = 0; i < 100; ++i) {
      co_await w.sleep(300);
      ++after[1];
    }
  });
  sim.spawn(kSurvivor, [&, word](Worker& w) -> Task<void> {
    for (int i = 0; i < 40; ++i) {
      co_await w.faa(word, 1);
      ++after[2];
    }
  });
  const RunStats st = sim.run();
  EXPECT_TRUE(st.stalled.empty() && st.budget_exhausted.empty()) << st.stalled << st.budget_exhausted;
  ASSERT_TRUE(sim.crash().happened);
  EXPECT_EQ(sim.crash().stopped.size(), 3u);
  EXPECT_EQ(after[0], 2u);      // stopped at its third FAA
  EXPECT_LT(after[1], 200u);    // the RPC caller and the sleeper stopped too
  EXPECT_EQ(after[2], 40u);     // the survivor finished
}

}  // namespace
}  // namespace lw
