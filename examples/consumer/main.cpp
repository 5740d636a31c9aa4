// Counts with remote FAAs from every simulated coroutine, and runs the
// README's code sample; exits 0 only if the count is exact and the sample
// ran (its latch is free again).
#include <cstdio>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/sync/exclusive_latch.h"

namespace {

// The README's sample, verbatim (CMakeLists.txt extracts it from README.md).
bool readme_sample() {
#include "readme_sample.inc"
  return stats.trace_hash != 0 && sim.host_load(latch) == lw::ExclusiveLatch::kFree;
}

}  // namespace

int main() {
  lw::ClusterConfig c;
  c.compute_nodes = 2;
  c.coroutines_per_thread = 4;
  lw::SimBackend sim(c);
  lw::RemoteAddr counter = sim.allocate(0, 8, 8);
  sim.spawn_compute([counter](lw::Worker& w) -> lw::Task<void> {
    for (int i = 0; i < 10; ++i) (void)co_await w.faa(counter, 1);
  });
  sim.run();
  const uint64_t n = sim.host_load(counter);
  std::printf("consumer: counted %llu of 80\n", static_cast<unsigned long long>(n));
  const bool sample = readme_sample();
  std::printf("consumer: the README's sample %s\n", sample ? "ran" : "FAILED");
  return n == 80 && sample ? 0 : 1;
}
