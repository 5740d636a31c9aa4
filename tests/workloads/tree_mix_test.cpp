// The tree workloads' key sets: distinct even keys, sorted, a bijection from
// popularity rank to loaded index; shared sets are the ones built alone, and
// only for equal arguments.
#include "latchwork/workloads/tree_mix.h"

#include <gtest/gtest.h>

#include <set>

namespace lw::tree_workload {
namespace {

TEST(KeySet, SortedDistinctEvenKeysAndARankBijection) {
  const KeySet ks(5000, 0.99, 7);
  ASSERT_EQ(ks.size(), 5000u);
  for (uint64_t i = 0; i < ks.size(); ++i) {
    EXPECT_EQ(ks.key(i) % 2, 0u);
    EXPECT_GE(ks.key(i), 2u);
    if (i > 0) {
      ASSERT_LT(ks.key(i - 1), ks.key(i));
    }
  }
  std::set<uint64_t> indexes;
  for (uint64_t r = 0; r < ks.size(); ++r) indexes.insert(ks.index_of_rank(r));
  EXPECT_EQ(indexes.size(), ks.size());
  EXPECT_NE(KeySet(5000, 0.99, 8).sorted(), ks.sorted()) << "another seed, other keys";
}

TEST(KeySet, SharedIsTheSetBuiltAloneForEqualArgumentsOnly) {
  const auto a = KeySet::shared(3000, 0.9, 11);
  EXPECT_EQ(KeySet::shared(3000, 0.9, 11), a);
  const KeySet alone(3000, 0.9, 11);
  EXPECT_EQ(a->sorted(), alone.sorted());
  for (uint64_t r = 0; r < 3000; r += 97) EXPECT_EQ(a->index_of_rank(r), alone.index_of_rank(r));
  Rng x(5), y(5);
  for (int i = 0; i < 200; ++i) ASSERT_EQ(a->draw_index(x), alone.draw_index(y));
  struct Args {
    uint64_t keys;
    double zipf;
    uint64_t seed;
  };
  for (const Args& o : {Args{3001, 0.9, 11}, Args{3000, 0.8, 11}, Args{3000, 0.0, 11}, Args{3000, 0.9, 12}}) {
    const auto other = KeySet::shared(o.keys, o.zipf, o.seed);
    EXPECT_NE(other, a);
    const KeySet own(o.keys, o.zipf, o.seed);
    EXPECT_EQ(other->sorted(), own.sorted());
    Rng p(9), q(9);
    for (int i = 0; i < 200; ++i) ASSERT_EQ(other->draw_index(p), own.draw_index(q)) << o.keys << " " << o.zipf;
  }
}

}  // namespace
}  // namespace lw::tree_workload
