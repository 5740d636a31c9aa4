// Counts with remote FAAs from every simulated coroutine; exits 0 only if the
// count is exact.
#include <cstdio>

#include "latchwork/sim/sim_backend.h"

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
  return n == 80 ? 0 : 1;
}
