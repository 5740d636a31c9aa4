// SimBackend::hold_timing, which ablation switches relaxations off with: a
// held switch keeps its draws and delays (every completion time stays) and
// loses its effect (no torn READ under `sequential` however long it lags).
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

constexpr Placement kFirst{Placement::Kind::kCompute, 0, 0, 0};
constexpr Placement kSecond{Placement::Kind::kCompute, 1, 0, 0};

ClusterConfig cluster(const char* profile, uint64_t seed) {
  ClusterConfig c;
  EXPECT_EQ(c.set_profile(profile), "");
  c.seed = seed;
  c.compute_nodes = 2;
  c.threads_per_node = 1;
  c.coroutines_per_thread = 1;
  c.memory_nodes = 1;
  c.memory_node_bytes = 1 << 16;
  c.timing.jitter_ns = 300;
  // The spec profile's windows, under both profiles.
  ClusterConfig spec;
  EXPECT_EQ(spec.set_profile("spec"), "");
  c.semantics.read_spread_ns = spec.semantics.read_spread_ns = 20'000;
  c.semantics.write_line_gap_ns = spec.semantics.write_line_gap_ns;
  c.semantics.atomic_window_ns = spec.semantics.atomic_window_ns;
  return c;
}

Semantics spec_semantics() { return cluster("spec", 1).semantics; }

// One worker's READs (three lines), WRITEs, CASes and FAAs on its own
// lines: no relaxation can change a value it reads, only when each answers.
std::vector<Nanos> completions(const ClusterConfig& c, const Semantics* held) {
  SimBackend sim(c);
  if (held) sim.hold_timing(*held);
  const RemoteAddr x = sim.allocate(0, 4 * 64);
  std::vector<Nanos> at;
  sim.spawn(kFirst, [x, &at](Worker& w) -> Task<void> {
    std::array<uint64_t, 24> buf{};
    for (uint64_t i = 0; i < 40; ++i) {
      EXPECT_TRUE(ok(co_await w.read(buf.data(), x, 192)));
      at.push_back(w.now());
      buf.fill(i);
      EXPECT_TRUE(ok(co_await w.write(x, buf.data(), 192)));
      at.push_back(w.now());
      EXPECT_TRUE((co_await w.cas(x + 192, i, i + 1)).ok());
      at.push_back(w.now());
      EXPECT_TRUE((co_await w.faa(x + 200, 1)).ok());
      at.push_back(w.now());
    }
  });
  sim.run();
  return at;
}

TEST(HeldTiming, EveryCompletionStaysWhenTheRelaxationsCannotAct) {
  const Semantics spec = spec_semantics();
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const std::vector<Nanos> relaxed = completions(cluster("spec", seed), nullptr);
    ASSERT_EQ(relaxed.size(), 160u);
    EXPECT_EQ(completions(cluster("sequential", seed), &spec), relaxed) << "seed " << seed;
    // Without holding, the draws the relaxations no longer make move the rest.
    EXPECT_NE(completions(cluster("sequential", seed), nullptr), relaxed) << "seed " << seed;
  }
}

// A writer rewrites three lines with one value each time; a reader READs
// them at once. Whether any READ returned lines of two different writes.
bool torn(const ClusterConfig& c, const Semantics* held) {
  SimBackend sim(c);
  if (held) sim.hold_timing(*held);
  const RemoteAddr x = sim.allocate(0, 3 * 64);
  bool seen = false;
  sim.spawn(kFirst, [x](Worker& w) -> Task<void> {
    std::array<uint64_t, 24> buf{};
    for (uint64_t i = 1; i <= 60; ++i) {
      buf.fill(i);
      EXPECT_TRUE(ok(co_await w.write(x, buf.data(), 192)));
    }
  });
  sim.spawn(kSecond, [x, &seen](Worker& w) -> Task<void> {
    std::array<uint64_t, 24> buf{};
    for (int i = 0; i < 60; ++i) {
      EXPECT_TRUE(ok(co_await w.read(buf.data(), x, 192)));
      for (uint64_t v : buf) seen = seen || v != buf[0];
    }
  });
  sim.run();
  return seen;
}

TEST(HeldTiming, AHeldRelaxationLosesItsEffect) {
  const Semantics spec = spec_semantics();
  uint32_t relaxed = 0, held = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    relaxed += torn(cluster("spec", seed), nullptr);
    held += torn(cluster("sequential", seed), &spec);
  }
  EXPECT_GT(relaxed, 0u);  // the scenario tears when the lines are unordered
  EXPECT_EQ(held, 0u);
}

}  // namespace
}  // namespace lw
