// The latch optimizations of Jasny et al. Fig. 7: each level keeps updates
// exact under every relaxation, each level takes fewer round trips than the
// one before (the shape of Fig. 8), and write unlatch with FAA readers can
// leave a latch held forever (§3.3) while it is safe with a CAS-only latch.
#include "latchwork/sync/pessimistic_tuple.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/sync/latch_layout.h"
#include "latchwork/threads/threads_backend.h"

namespace lw {
namespace {

constexpr uint32_t kData = 248;  // a 256-byte tuple with its latch

struct Outcome {
  uint64_t counted = 0, done = 0, gave_up = 0;
  Nanos elapsed = 0;
};

// Workers increment the first and last data word of one of `tuples` tuples.
template <typename B>
Outcome increments(B& b, LatchOptimization level, LatchMode mode, LatchLayout layout, uint32_t tuples,
               uint32_t ops, uint32_t read_percent) {
  TupleLayout l(layout, kData);
  const RemoteAddr region = b.allocate(0, l.region_bytes(tuples), 4096);
  const RemoteAddr latches = layout == LatchLayout::kDecoupled ? b.allocate(0, l.latch_array_bytes(tuples), 64) : RemoteAddr();
  Outcome r;
  // Workers of the threads backend run on several OS threads: count atomically.
  std::atomic<uint64_t> done{0}, gave_up{0};
  RetryPolicy policy;
  policy.max_attempts = 2000;
  b.spawn_compute([&](Worker& w) -> Task<void> {
    std::vector<std::byte> buf(kData);
    for (uint32_t i = 0; i < ops; ++i) {
      const uint64_t k = w.rng().below(tuples);
      LatchedTuple t{l.latch(region, latches, k), l.data(region, k), kData};
      Status s;
      if (w.rng().below(100) < read_percent) {
        s = co_await pessimistic_read(w, t, level, mode, buf, policy);
        if (ok(s)) {
          uint64_t a, z;
          std::memcpy(&a, buf.data(), 8);
          std::memcpy(&z, buf.data() + kData - 8, 8);
          EXPECT_EQ(a, z) << "a reader saw a half-done update";
        }
      } else {
        s = co_await pessimistic_update(w, t, level, mode, buf, [](std::span<std::byte> d) {
          uint64_t a;
          std::memcpy(&a, d.data(), 8);
          ++a;
          std::memcpy(d.data(), &a, 8);
          std::memcpy(d.data() + d.size() - 8, &a, 8);
        }, nullptr, policy);
        if (ok(s)) done.fetch_add(1, std::memory_order_relaxed);
      }
      if (s == Status::kRetryExhausted) gave_up.fetch_add(1, std::memory_order_relaxed);
      else EXPECT_EQ(s, Status::kOk);
    }
  });
  r.elapsed = b.run().elapsed_ns;
  r.done = done.load();
  r.gave_up = gave_up.load();
  for (uint32_t k = 0; k < tuples; ++k) r.counted += b.host_load(l.data(region, k));
  return r;
}

// 2 compute nodes x 2 threads x 2 coroutines on a small memory node.
ClusterConfig eight_workers(uint64_t seed) {
  ClusterConfig c;
  c.memory_node_bytes = 1 << 20;  // small nodes: quick set-up
  c.compute_nodes = 2;
  c.threads_per_node = 2;
  c.coroutines_per_thread = 2;
  c.seed = seed;
  return c;
}

const LatchOptimization kCorrectLevels[] = {LatchOptimization::kBasic, LatchOptimization::kSpeculativeRead,
                                            LatchOptimization::kWriteCombining, LatchOptimization::kAsyncUnlatch};

TEST(PessimisticTuple, EveryLevelAndLayoutIsExactOnTheSimulatorOverSeeds) {
  for (LatchOptimization level : kCorrectLevels)
    for (LatchLayout layout : {LatchLayout::kHeader, LatchLayout::kPadded, LatchLayout::kDecoupled})
      for (uint64_t seed = 1; seed <= 8; ++seed) {
        ClusterConfig c = eight_workers(seed);
        SimBackend sim(c);
        Outcome r = increments(sim, level, LatchMode::kReaderWriter, layout, 3, 25, 30);
        EXPECT_EQ(r.gave_up, 0u);
        EXPECT_EQ(r.counted, r.done) << to_string(level) << " " << to_string(layout) << " seed " << seed;
      }
}

TEST(PessimisticTuple, EveryLevelIsExactOnRealThreads) {
  for (LatchOptimization level : kCorrectLevels) {
    ClusterConfig c;
    c.memory_node_bytes = 1 << 20;  // small nodes: quick set-up
    c.backend = "threads";
    c.compute_nodes = 1;
    c.threads_per_node = 4;
    c.coroutines_per_thread = 2;
    c.threads.adversarial = true;
    ThreadsBackend b(c);
    Outcome r = increments(b, level, LatchMode::kReaderWriter, LatchLayout::kHeader, 2, 200, 30);
    EXPECT_EQ(r.counted, r.done) << to_string(level);
  }
}

TEST(PessimisticTuple, EachOptimizationSavesRoundTripsSingleThreaded) {
  // Fig. 8's shape: one worker, one tuple, updates only.
  Nanos previous = 0;
  for (LatchOptimization level : kCorrectLevels) {
    ClusterConfig c;
    c.memory_node_bytes = 1 << 20;  // small nodes: quick set-up
    SimBackend sim(c);
    Outcome r = increments(sim, level, LatchMode::kReaderWriter, LatchLayout::kHeader, 1, 100, 0);
    EXPECT_EQ(r.counted, 100u);
    if (previous) {
      EXPECT_LT(r.elapsed, previous) << to_string(level) << " is not faster";
    }
    previous = r.elapsed;
  }
}

TEST(PessimisticTuple, WriteUnlatchWithFaaReadersLosesAnUnlatch) {
  // §3.3: a reader's FAA reads the latched word, the unlatch WRITE lands, the
  // FAA writes the latched value back: the latch stays held.
  uint64_t stuck_seeds = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    ClusterConfig c = eight_workers(seed);
    SimBackend sim(c);
    Outcome r = increments(sim, LatchOptimization::kWriteUnlatch, LatchMode::kReaderWriter,
                       LatchLayout::kFooter, 1, 25, 50);
    if (r.gave_up > 0) ++stuck_seeds;
  }
  EXPECT_GT(stuck_seeds, 0u);
}

TEST(PessimisticTuple, WriteUnlatchWithACasOnlyLatchIsExact) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    ClusterConfig c = eight_workers(seed);
    SimBackend sim(c);
    Outcome r = increments(sim, LatchOptimization::kWriteUnlatch, LatchMode::kExclusiveOnly,
                       LatchLayout::kFooter, 2, 25, 50);
    EXPECT_EQ(r.gave_up, 0u) << "seed " << seed;
    EXPECT_EQ(r.counted, r.done) << "seed " << seed;
  }
}

}  // namespace
}  // namespace lw
