// Latches give mutual exclusion: many coroutines on several compute nodes
// increment remote counters under each latch, and the final counts are exact;
// readers the latch lets through never see half an increment.
#include <gtest/gtest.h>

#include "repro/jasny/latch_counter.h"

namespace lw {
namespace {

struct LatchCase {
  const char* name;
  LatchKind kind;
  ConsistencyScheme scheme;
};

class LatchMutualExclusion : public ::testing::TestWithParam<LatchCase> {};

ClusterConfig cluster(const char* backend, uint64_t seed) {
  ClusterConfig c;
  c.backend = backend;
  c.seed = seed;
  c.compute_nodes = 3;
  c.threads_per_node = 2;
  c.coroutines_per_thread = 3;
  c.memory_nodes = 2;
  c.memory_node_bytes = 1 << 20;
  return c;
}

TEST_P(LatchMutualExclusion, ExactCountsOnTheSimulatorOverSeeds) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    for (const char* profile : {"spec", "sequential"}) {
      ClusterConfig c = cluster("sim", seed);
      c.set_profile(profile);
      LatchCounterResult r = run_latch_counter(c, latch_counter_options(GetParam().kind, GetParam().scheme, /*counters=*/3, /*ops=*/25, /*read_percent=*/30));
      EXPECT_TRUE(r.exact()) << "seed " << seed << " " << profile << ": counted " << r.counted
                             << " of " << r.increments << ", torn reads " << r.torn_reads;
      EXPECT_EQ(r.increments + r.reads, 18u * 25);
      EXPECT_GT(r.reads, 0u);
    }
  }
}

TEST_P(LatchMutualExclusion, ExactCountsWithRealThreads) {
  for (bool adversarial : {false, true}) {
    ClusterConfig c = cluster("threads", 3);
    c.threads.adversarial = adversarial;
    LatchCounterResult r =
        run_latch_counter(c, latch_counter_options(GetParam().kind, GetParam().scheme, 2, 200, 30));
    EXPECT_TRUE(r.exact()) << "adversarial=" << adversarial << ": counted " << r.counted << " of "
                           << r.increments << ", torn reads " << r.torn_reads;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Latches, LatchMutualExclusion,
    ::testing::Values(LatchCase{"exclusive", LatchKind::kExclusive, ConsistencyScheme::kVersioning},
                      LatchCase{"rw", LatchKind::kReaderWriter, ConsistencyScheme::kVersioning},
                      LatchCase{"optimistic_versioning", LatchKind::kOptimistic, ConsistencyScheme::kVersioning},
                      LatchCase{"optimistic_crc64", LatchKind::kOptimistic, ConsistencyScheme::kCrc64},
                      LatchCase{"optimistic_farm", LatchKind::kOptimistic, ConsistencyScheme::kFarm}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LatchCost, VerbsPerOperationMatchTheProtocol) {
  // Uncontended (one worker): exclusive = CAS + READ + WRITE + CAS.
  ClusterConfig c;
  LatchCounterResult r = run_latch_counter(c, latch_counter_options(LatchKind::kExclusive, ConsistencyScheme::kVersioning, 1, 50, 0));
  EXPECT_TRUE(r.exact());
  EXPECT_DOUBLE_EQ(r.verbs_per_op(), 4.0);
  // rw readers: FAA + READ + FAA.
  r = run_latch_counter(c, latch_counter_options(LatchKind::kReaderWriter, ConsistencyScheme::kVersioning, 1, 50, 100));
  EXPECT_DOUBLE_EQ(r.verbs_per_op(), 3.0);
  // optimistic versioning reader: READ word, READ data, READ word.
  r = run_latch_counter(c, latch_counter_options(LatchKind::kOptimistic, ConsistencyScheme::kVersioning, 1, 50, 100));
  EXPECT_DOUBLE_EQ(r.verbs_per_op(), 3.0);
  // optimistic farm reader: one READ.
  r = run_latch_counter(c, latch_counter_options(LatchKind::kOptimistic, ConsistencyScheme::kFarm, 1, 50, 100));
  EXPECT_DOUBLE_EQ(r.verbs_per_op(), 1.0);
}

}  // namespace
}  // namespace lw
