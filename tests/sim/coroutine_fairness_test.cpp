// A thread's coroutines share its CPU in the order their completions arrive
// (as a thread polling its completion queue resumes them): none is starved
// when the thread is the bottleneck, whatever the NIC model's jitter.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

struct Shares {
  std::vector<uint64_t> ops;        // per coroutine
  std::vector<Nanos> worst_wait;    // per coroutine: longest completion-to-completion gap
};

// One thread of `coroutines`, each looping READ + `cpu_ns` of CPU work until
// `until` virtual ns: with cpu_ns x coroutines above a round trip the thread's
// CPU is the bottleneck and its ready queue decides who runs.
Shares run(uint32_t coroutines, Nanos cpu_ns, Nanos until, uint64_t seed, const char* nic) {
  ClusterConfig c;
  c.threads_per_node = 1;
  c.coroutines_per_thread = coroutines;
  c.memory_nodes = 1;
  c.seed = seed;
  c.nic.profile = nic;
  SimBackend sim(c);
  const RemoteAddr a = sim.allocate(0, 4096);
  Shares s;
  s.ops.assign(coroutines, 0);
  s.worst_wait.assign(coroutines, 0);
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    const uint32_t me = w.placement().coroutine;
    uint64_t v = 0;
    Nanos last = w.now();
    while (w.now() < until) {
      EXPECT_EQ(co_await w.read(&v, a + 64 * me, 8), Status::kOk);
      w.charge_cpu(cpu_ns);
      ++s.ops[me];
      s.worst_wait[me] = std::max(s.worst_wait[me], w.now() - last);
      last = w.now();
    }
  });
  sim.run();
  return s;
}

TEST(SimCoroutineFairness, ACpuBoundThreadServesItsCoroutinesInTurn) {
  constexpr uint32_t kCoroutines = 8;
  constexpr Nanos kCpu = 1'000;  // 8 us of CPU per round, several round trips
  for (const char* nic : {"simple", "cx6-200g"}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      const Shares s = run(kCoroutines, kCpu, 400'000, seed, nic);
      const auto [lo, hi] = std::minmax_element(s.ops.begin(), s.ops.end());
      EXPECT_GE(*lo, 30u) << nic << " seed " << seed;
      EXPECT_LE(*hi - *lo, 1u) << nic << " seed " << seed;
      // Between two of its operations a coroutine waits for each other
      // coroutine's CPU work at most once (plus its own and a round trip).
      for (uint32_t i = 0; i < kCoroutines; ++i)
        EXPECT_LE(s.worst_wait[i], (kCoroutines + 1) * kCpu + 10'000) << nic << " seed " << seed << " coroutine " << i;
    }
  }
}

}  // namespace
}  // namespace lw
