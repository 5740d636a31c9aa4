// The RACE hash table through the public check driver (latchwork check
// --structure hash): race and smart-ht show no failure over a sweep, and
// unordered-publish (the slot CAS does not wait for the key-value block's
// WRITE on another memory node) is caught on the spec profile, pinned to
// the seed that first finds it, and explained.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "latchwork/check/builtin.h"

namespace lw::check {
namespace {

BuiltinOptions hash(const std::string& scheme) {
  BuiltinOptions b;
  b.structure = "hash";
  b.scheme = scheme;
  b.max_attempts = 4096;  // as latchwork check --structure hash
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

TEST(RaceCheck, RegisteredWithTheCheckCommand) {
  EXPECT_EQ(builtin_schemes("hash"), (std::vector<std::string>{"race", "smart-ht", "unordered-publish"}));
  ASSERT_TRUE(find_builtin("hash", "unordered-publish"));
  EXPECT_FALSE(find_builtin("hash", "unordered-publish")->correct);
  EXPECT_TRUE(find_builtin("hash", "smart-ht")->correct);
  BuiltinOptions bad = hash("bookend");
  EXPECT_NE(bad.validate(), "");
  // smart-ht switches SMART's policies on; race leaves them off; both get two memory nodes.
  const Options smart = options(hash("smart-ht"), 1, 1);
  EXPECT_TRUE(smart.cluster.smart.throttling && smart.cluster.smart.backoff && smart.cluster.smart.dynamic_limit &&
              smart.cluster.smart.coroutine_throttling);
  const Options race = options(hash("race"), 1, 1);
  EXPECT_FALSE(race.cluster.smart.throttling || race.cluster.smart.backoff);
  EXPECT_GE(race.cluster.memory_nodes, 2u);
}

TEST(RaceCheck, CorrectSchemesAreCleanOverSeeds) {
  for (const char* scheme : {"race", "smart-ht"}) {
    SCOPED_TRACE(scheme);
    const BuiltinOptions b = hash(scheme);
    const Report r = run(builtin_workload(b), options(b, 1, 150));
    EXPECT_TRUE(r.clean()) << r.summary();
    EXPECT_GT(r.ops, 0u);
  }
}

// The seed of `latchwork check --structure hash --scheme unordered-publish`
// (spec profile, default shape) that first fails: a regression pin. There a
// lookup follows a slot CASed on one memory node to a block on the other
// whose WRITE, posted just before the CAS but on the other queue pair, has
// not executed yet: the lookup's READ returns zeros. Nothing orders two
// queue pairs; the window opens when the WRITE's own queue pair is held up.
// Under the swarm a READ's lag ahead of it (read_lines_unordered or
// reads_unordered) supplies the delay, but no relaxation is needed: under
// `sequential` a wide enough jitter opens it too, so ablation calls it a
// timing-dependent protocol race (issue 43), not a relaxation's doing. If the swarm's draws or the
// simulator's timing move, re-pin it to the sweep's first failing seed
// (`latchwork check --structure hash --scheme unordered-publish`; the sweep
// test still has to find one).
// 20 until PCIe's two directions were modelled apart (2026-11-30).
constexpr uint64_t kPinnedSeed = 47;

TEST(RaceCheck, UnorderedPublishIsFoundOnThePinnedSeedAndExplained) {
  const BuiltinOptions b = hash("unordered-publish");
  Options o = options(b, kPinnedSeed, 1);
  const Report r = run(builtin_workload(b), o);
  ASSERT_EQ(r.failing_seeds, 1u) << r.summary();
  bool explained = false;
  for (const Finding& f : r.findings) {
    if (!f.failure) continue;
    EXPECT_NE(f.detail.find("does not validate"), std::string::npos) << f.summary();
    if (f.explained) {
      explained = true;
      EXPECT_FALSE(f.protocol_bug) << "the cross-QP window opens only behind a delayed queue pair";
      EXPECT_TRUE(f.timing_race) << f.summary();
      EXPECT_TRUE(f.necessary.empty()) << f.summary();
    }
  }
  EXPECT_TRUE(explained) << r.summary();
}

TEST(RaceCheck, UnorderedPublishIsFoundBySweep) {
  const BuiltinOptions b = hash("unordered-publish");
  Options o = options(b, 1, 1000);
  o.stop_at_first = true;
  const Report r = run(builtin_workload(b), o);
  EXPECT_GT(r.failing_seeds, 0u);
  EXPECT_LE(r.first_failing_seed, kPinnedSeed);
}

}  // namespace
}  // namespace lw::check
