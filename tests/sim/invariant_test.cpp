// A violated invariant in the simulator names the seed and how to replay it;
// a deadlocked program is reported, not hung.
#include <gtest/gtest.h>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

TEST(InvariantDeathTest, ViolationPrintsSeedAndReplay) {
  set_replay_hint({});
  EXPECT_DEATH(
      {
        ClusterConfig c;
        c.seed = 4242;
        SimBackend sim(c);
        RemoteAddr x = sim.allocate(0, 8, 8);
        sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [x](Worker& w) -> Task<void> {
          auto r = co_await w.faa(x, 1);
          LW_CHECK_MSG(r.value == 99, "the program under test saw an impossible value");
        });
        sim.run();
      },
      "invariant violated(.|\n)*impossible value(.|\n)*seed=4242(.|\n)*--seed 4242");
}

TEST(InvariantDeathTest, DeadlockIsReported) {
  EXPECT_DEATH(
      {
        ClusterConfig c;
        SimBackend sim(c);
        sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [](Worker&) -> Task<void> {
          co_await std::suspend_always{};  // waits for something that never comes
        });
        sim.run();
      },
      "deadlock: 1 of 1 coroutines");
}

}  // namespace
}  // namespace lw
