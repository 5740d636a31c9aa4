// The same seed and config give the same execution; another seed gives
// another one.
#include <gtest/gtest.h>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

struct Outcome {
  RunStats stats;
  uint64_t final_value;
  std::vector<uint64_t> order;  // which coroutine won each CAS
};

Outcome contended_run(uint64_t seed, const std::string& profile) {
  ClusterConfig c;
  EXPECT_EQ(c.set_profile(profile), "");
  c.seed = seed;
  c.compute_nodes = 3;
  c.threads_per_node = 2;
  c.coroutines_per_thread = 3;
  SimBackend sim(c);
  RemoteAddr x = sim.allocate(0, 8, 8), buf = sim.allocate(0, 512);
  Outcome out;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    const uint64_t me = w.placement().node * 100 + w.placement().thread * 10 + w.placement().coroutine;
    std::vector<uint64_t> block(64, me);
    for (int i = 0; i < 20; ++i) {
      auto r = co_await w.cas(x, 0, me + 1);
      if (r.value == 0) {
        out.order.push_back(me);
        EXPECT_EQ(co_await w.write(buf, block.data(), 512), Status::kOk);
        EXPECT_TRUE((co_await w.cas(x, me + 1, 0)).ok());
      }
      co_await w.sleep(w.rng().below(500));
    }
  });
  out.stats = sim.run();
  out.final_value = sim.host_load(buf + 256);
  return out;
}

TEST(Determinism, SameSeedSameExecution) {
  for (const char* profile : {"spec", "connectx", "sequential"}) {
    Outcome a = contended_run(42, profile), b = contended_run(42, profile);
    EXPECT_EQ(a.stats.trace_hash, b.stats.trace_hash) << profile;
    EXPECT_EQ(a.stats.elapsed_ns, b.stats.elapsed_ns) << profile;
    EXPECT_EQ(a.stats.events, b.stats.events) << profile;
    EXPECT_EQ(a.order, b.order) << profile;
    EXPECT_EQ(a.final_value, b.final_value) << profile;
  }
}

TEST(Determinism, OtherSeedsDiffer) {
  Outcome a = contended_run(1, "spec");
  int differing = 0;
  for (uint64_t seed = 2; seed < 6; ++seed)
    differing += contended_run(seed, "spec").stats.trace_hash != a.stats.trace_hash;
  EXPECT_EQ(differing, 4);
}

TEST(Determinism, VirtualTimeAdvancesWithRoundTrips) {
  ClusterConfig c;
  c.set_profile("sequential");
  c.timing.jitter_ns = 0;
  SimBackend sim(c);
  RemoteAddr x = sim.allocate(0, 8, 8);
  Nanos before = 0, after = 0;
  sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    before = w.now();
    for (int i = 0; i < 10; ++i) (void)co_await w.faa(x, 1);
    after = w.now();
  });
  sim.run();
  // Ten sequential round trips of at least two one-way flights each.
  EXPECT_GE(after - before, 10 * 2 * c.timing.one_way_ns);
  EXPECT_LT(after - before, 10 * 2 * (c.timing.one_way_ns + 1000));
}

TEST(Determinism, QueueDepthIsBounded) {
  ClusterConfig c;
  c.queue_depth = 4;
  SimBackend sim(c);
  RemoteAddr x = sim.allocate(0, 64);
  sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [x](Worker& w) -> Task<void> {
    uint64_t v[5];
    Batch five;
    for (int i = 0; i < 5; ++i) five.read(&v[i], x, 8);
    EXPECT_EQ(co_await w.execute(five), Status::kQueueFull);
    Batch four;
    for (int i = 0; i < 4; ++i) four.read(&v[i], x, 8);
    EXPECT_EQ(co_await w.execute(four), Status::kOk);
  });
  sim.run();
}

}  // namespace
}  // namespace lw
