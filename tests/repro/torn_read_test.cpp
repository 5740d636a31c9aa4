// The torn-read experiment reproduces Jasny et al. Fig. 1b on the simulator:
// bookend lets torn reads through at 256 B and above but not at 64 or 128 B;
// versioning, crc64 and farm never do; sequential semantics never tear.
#include <gtest/gtest.h>

#include "repro/jasny/torn_read.h"

namespace lw {
namespace {

TornReadResult run(const char* profile, ConsistencyScheme s, uint32_t size, uint64_t seed,
                   uint64_t ops = 3000) {
  ClusterConfig c;
  EXPECT_EQ(c.set_profile(profile), "");
  c.seed = seed;
  return run_torn_read(c, TornReadOptions{s, size, ops, 4, 4});
}

TEST(TornRead, BookendMissesTornReadsAbove128BytesOnSpec) {
  for (uint32_t size : {256u, 512u, 1024u}) {
    uint64_t undetected = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed)
      undetected += run("spec", ConsistencyScheme::kBookend, size, seed).torn_undetected;
    EXPECT_GT(undetected, 0u) << size << " B";
  }
}

TEST(TornRead, BookendIsSafeAtOneAndTwoLines) {
  for (uint32_t size : {64u, 128u})
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      TornReadResult r = run("spec", ConsistencyScheme::kBookend, size, seed);
      EXPECT_EQ(r.torn_undetected, 0u) << size << " B seed " << seed;
      if (size == 64) {
        EXPECT_EQ(r.torn, 0u) << "one line is read atomically";
      }
    }
}

TEST(TornRead, CorrectSchemesNeverMissATornRead) {
  for (auto s : {ConsistencyScheme::kVersioning, ConsistencyScheme::kCrc64, ConsistencyScheme::kFarm})
    for (uint32_t size : {64u, 128u, 256u, 512u, 1024u})
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        TornReadResult r = run("spec", s, size, seed, 1500);
        EXPECT_EQ(r.torn_undetected, 0u) << to_string(s) << " " << size << " B seed " << seed;
        if (size >= 256) {
          EXPECT_GT(r.torn, 0u) << "the race should tear reads at " << size;
        }
      }
}

TEST(TornRead, SequentialNeverTears) {
  for (auto s : {ConsistencyScheme::kBookend, ConsistencyScheme::kVersioning,
                 ConsistencyScheme::kCrc64, ConsistencyScheme::kFarm})
    for (uint32_t size : {64u, 256u, 1024u}) {
      TornReadResult r = run("sequential", s, size, 9, 1500);
      EXPECT_EQ(r.torn, 0u) << to_string(s) << " " << size;
      EXPECT_GT(r.writes, 10u);
    }
}

TEST(TornRead, ReplaysBySeed) {
  TornReadResult a = run("spec", ConsistencyScheme::kBookend, 512, 77, 1000);
  TornReadResult b = run("spec", ConsistencyScheme::kBookend, 512, 77, 1000);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.torn_undetected, b.torn_undetected);
  EXPECT_EQ(a.torn, b.torn);
}

TEST(TornRead, RunsOnRealThreads) {
  ClusterConfig c;
  c.backend = "threads";
  TornReadResult r = run_torn_read(c, TornReadOptions{ConsistencyScheme::kFarm, 512, 2000, 2, 1});
  EXPECT_EQ(r.reads, 2000u);
  EXPECT_EQ(r.torn_undetected, 0u);
}

}  // namespace
}  // namespace lw
