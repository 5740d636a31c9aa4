// Exhaustive exploration of built-in structures (builtin_explore_options):
// the tuple store's bookend scheme violated at 2 workers x 2 operations,
// versioning proved. Verdicts only. Versioning's proof at 2 x 2 takes about
// a million states per program seed (`latchwork check --structure tuples
// --scheme versioning --exhaustive --seeds 1`, docs/checking.md): too slow
// for a test run twice on CI, so it is proved here at 2 x 1. The hash table
// and Sherman's tree, which allocate by RPC, at their defaults.
#include <gtest/gtest.h>

#include <cstdio>

#include "latchwork/check/builtin.h"

namespace lw::check {
namespace {

WorkloadExploreResult explore_tuples(const std::string& scheme, uint32_t ops, bool shortest) {
  BuiltinOptions b;
  b.structure = "tuples";
  b.scheme = scheme;
  b.keys = 1;           // every operation meets on one tuple
  b.tuple_bytes = 192;  // three lines: a READ can take the middle one from another write
  WorkloadExploreOptions x = builtin_explore_options(b, Options::default_cluster());
  EXPECT_EQ(x.shape.workers(x.cluster.memory_nodes), 2u);
  x.shape.ops_per_worker = ops;
  x.shortest_trace = shortest;  // off: stop at the first violation (its trace is not the shortest)
  EXPECT_EQ(x.validate(), "");
  const WorkloadExploreResult r = explore_workload(builtin_workload(b), x);
  std::printf("[explore] tuples/%s: %s (%.2f s)\n", scheme.c_str(), r.verdict_line().c_str(), r.wall_seconds);
  return r;
}

TEST(ExploreBuiltin, TuplesBookendViolated) {
  const WorkloadExploreResult r = explore_tuples("bookend", 2, false);
  ASSERT_TRUE(r.violated()) << r.summary();
  EXPECT_NE(r.last.violation.find("torn"), std::string::npos) << r.summary();
}

TEST(ExploreBuiltin, TuplesVersioningProvedAtOneOperation) {
  const WorkloadExploreResult r = explore_tuples("versioning", 1, true);
  EXPECT_TRUE(r.proved()) << r.summary();
  EXPECT_GT(r.terminal_states, 0u);
}

// Built-ins that allocate blocks by RPC (ChunkAllocator): the explorer
// serves the memory node's handler. Each at its default scope (hash: 2 x 2,
// 4 program seeds; Sherman: 2 compute nodes x 1 operation), well under a second.
WorkloadExploreResult explore_default(const std::string& structure, const std::string& scheme, uint32_t keys) {
  BuiltinOptions b;
  b.structure = structure;
  b.scheme = scheme;
  b.keys = keys;
  WorkloadExploreOptions x = builtin_explore_options(b, Options::default_cluster());
  EXPECT_EQ(x.shape.workers(x.cluster.memory_nodes), 2u);
  EXPECT_EQ(x.validate(), "");
  const WorkloadExploreResult r = explore_workload(builtin_workload(b), x);
  std::printf("[explore] %s/%s: %s (%.2f s)\n", structure.c_str(), scheme.c_str(), r.verdict_line().c_str(),
              r.wall_seconds);
  return r;
}

TEST(ExploreBuiltin, HashRaceProved) {
  const WorkloadExploreResult r = explore_default("hash", "race", 4);
  EXPECT_TRUE(r.proved()) << r.summary();
  EXPECT_GT(r.terminal_states, 0u);
}

TEST(ExploreBuiltin, HashUnorderedPublishViolated) {
  const WorkloadExploreResult r = explore_default("hash", "unordered-publish", 4);
  ASSERT_TRUE(r.violated()) << r.summary();
  EXPECT_NE(r.last.violation.find("does not validate"), std::string::npos) << r.summary();
}

TEST(ExploreBuiltin, ShermanPerLineProved) {
  const WorkloadExploreResult r = explore_default("sherman", "per-line", 16);
  EXPECT_TRUE(r.proved()) << r.summary();
  EXPECT_GT(r.terminal_states, 0u);
}

}  // namespace
}  // namespace lw::check
