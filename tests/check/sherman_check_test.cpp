// Sherman's B+Tree through the public check driver (latchwork check
// --structure sherman): per-line (Sherman+), smart-bt and fg+ show no failure
// over a sweep on the spec profile; the two negative controls are caught on
// the seeds that first find them and explained: two-level (the 4-bit front
// and rear node versions checked over a READ whose lines come in any order)
// and early-handover (HOCL hands the lock over before the write-back is
// posted, Fig. 6's line order).
#include <gtest/gtest.h>

#include <string>

#include "latchwork/check/builtin.h"

namespace lw::check {
namespace {

BuiltinOptions tree(const std::string& scheme) {
  BuiltinOptions b;
  b.structure = "sherman";
  b.scheme = scheme;
  b.keys = 300;  // as latchwork check --structure sherman
  return b;
}

Options options(const BuiltinOptions& b, uint64_t first_seed, uint64_t seeds) {
  ClusterConfig c = Options::default_cluster();
  EXPECT_EQ(c.set_profile("spec"), "");
  Options o = builtin_check_options(b, c);
  o.first_seed = first_seed;
  o.seeds = seeds;
  EXPECT_EQ(b.validate(o), "");
  return o;
}

TEST(ShermanCheck, RegisteredWithTheCheckCommand) {
  EXPECT_EQ(builtin_schemes("sherman"),
            (std::vector<std::string>{"per-line", "smart-bt", "fg+", "two-level", "early-handover"}));
  EXPECT_FALSE(find_builtin("sherman", "two-level")->correct);
  EXPECT_FALSE(find_builtin("sherman", "early-handover")->correct);
  EXPECT_TRUE(find_builtin("sherman", "per-line")->correct);
  EXPECT_NE(tree("bookend").validate(), "");
  // smart-bt runs on the SMART runtime; the others do not; two memory nodes.
  const Options smart = options(tree("smart-bt"), 1, 1);
  EXPECT_TRUE(smart.cluster.smart.throttling && smart.cluster.smart.coroutine_throttling);
  const Options fg = options(tree("fg+"), 1, 1);
  EXPECT_FALSE(fg.cluster.smart.throttling || fg.cluster.smart.backoff);
  EXPECT_GE(fg.cluster.memory_nodes, 2u);
}

TEST(ShermanCheck, CorrectSchemesAreCleanOverSeeds) {
  for (const char* scheme : {"per-line", "smart-bt", "fg+"}) {
    SCOPED_TRACE(scheme);
    const BuiltinOptions b = tree(scheme);
    const Report r = run(builtin_workload(b), options(b, 1, 60));
    EXPECT_TRUE(r.clean()) << r.summary();
    EXPECT_GT(r.ops, 0u);
  }
}

// Regression pins: the first failing seeds of `latchwork check --structure
// sherman --scheme S` (spec profile, default shape) when these tests were
// written. two-level, seed 143: a lookup read a leaf whose line 3 was
// fetched before line 2, across a change, with matching front and rear
// versions: it returned a value no insert stored and missed a key present all
// along; the ablation names read_lines_unordered.
// early-handover, seed 1: the next holder read a parent before the previous
// holder's write-back landed and inserted a separator twice (an invariant).
// If the swarm's draws or the simulator's timing move, re-pin them to the
// sweep's first failing seed (the sweep tests still have to find one).
// 178 until the built-in RPC handlers' costs and PCIe's two directions
// changed the timing (2026-11-30).
constexpr uint64_t kTwoLevelSeed = 143;
constexpr uint64_t kEarlyHandoverSeed = 1;

TEST(ShermanCheck, TwoLevelIsFoundOnThePinnedSeedAndExplained) {
  const BuiltinOptions b = tree("two-level");
  const Report r = run(builtin_workload(b), options(b, kTwoLevelSeed, 1));
  ASSERT_EQ(r.failing_seeds, 1u) << r.summary();
  bool explained = false;
  for (const Finding& f : r.findings) {
    if (!f.failure || !f.explained) continue;
    explained = true;
    EXPECT_NE(f.explanation().find("read_lines_unordered"), std::string::npos) << f.summary();
  }
  EXPECT_TRUE(explained) << r.summary();
}

TEST(ShermanCheck, EarlyHandoverIsFoundOnThePinnedSeed) {
  const BuiltinOptions b = tree("early-handover");
  const Report r = run(builtin_workload(b), options(b, kEarlyHandoverSeed, 1));
  EXPECT_EQ(r.failing_seeds, 1u) << r.summary();
}

TEST(ShermanCheck, NegativeControlsAreFoundBySweep) {
  for (const char* scheme : {"two-level", "early-handover"}) {
    SCOPED_TRACE(scheme);
    const BuiltinOptions b = tree(scheme);
    Options o = options(b, 1, 250);
    o.stop_at_first = true;
    const Report r = run(builtin_workload(b), o);
    EXPECT_GT(r.failing_seeds, 0u);
  }
}

}  // namespace
}  // namespace lw::check
