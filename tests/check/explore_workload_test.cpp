// Exhaustive exploration of a user's Workload (check/explore_workload.h):
// the guide's example violated unfenced and proved fenced, verdicts only.
#include <gtest/gtest.h>

#include <cstdio>

#include "guide_record.h"
#include "latchwork/check/explore_workload.h"

namespace lw::check {
namespace {

// Two workers (one per compute node), one operation each; program seeds
// 1..4 give every reader/writer mix (each worker draws its role).
WorkloadExploreOptions guide_scope() {
  WorkloadExploreOptions o;
  o.shape = {.compute_nodes = 2, .threads_per_node = 1, .coroutines_per_thread = 1,
             .memory_node_threads = 0, .ops_per_worker = 1};
  o.seeds = 4;
  return o;
}

TEST(ExploreWorkload, GuideExampleUnfencedReleaseViolated) {
  const WorkloadExploreResult r = explore_workload(guide::factory(false), guide_scope());
  std::printf("[explore] guide unfenced: %s (%.2f s)\n", r.verdict_line().c_str(), r.wall_seconds);
  ASSERT_TRUE(r.violated()) << r.summary();
  EXPECT_NE(r.last.violation.find("torn"), std::string::npos) << r.summary();
  EXPECT_FALSE(r.last.trace.empty());
}

TEST(ExploreWorkload, GuideExampleFencedReleaseProved) {
  const WorkloadExploreResult r = explore_workload(guide::factory(true), guide_scope());
  std::printf("[explore] guide fenced: %s (%.2f s)\n", r.verdict_line().c_str(), r.wall_seconds);
  EXPECT_TRUE(r.proved()) << r.summary();
  EXPECT_EQ(r.seeds_explored, 4u);
  EXPECT_GT(r.states, 0u);
}

}  // namespace
}  // namespace lw::check
