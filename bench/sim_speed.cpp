// Simulator speed on one core: simulated verbs per wall second of the event
// loop (start-up reported apart), simple timing model, per semantics profile.
#include <algorithm>

#include "latchwork/sim/sim_backend.h"
#include "sections.h"

namespace lw::bench {

void sim_speed(const Options& o, Report& r) {
  for (const char* profile : {"sequential", "connectx", "spec"}) {
    double best_loop = 1e30, best_startup = 1e30;
    uint64_t verbs = 0, events = 0;
    for (int rep = 0; rep < o.repeats; ++rep) {
      // 32 coroutines (4 threads x 8) each issue 8-byte READs, WRITEs, CASes and FAAs.
      ClusterConfig c;
      c.set_profile(profile);
      c.threads_per_node = 4;
      c.coroutines_per_thread = 8;
      const int iterations = o.quick ? 500 : 2500;
      Stopwatch startup;
      SimBackend sim(c);
      const RemoteAddr base = sim.allocate(0, 64 * 1024);
      sim.spawn_compute([base, iterations](Worker& w) -> Task<void> {
        const RemoteAddr mine = base + 64 * (w.placement().thread * 8 + w.placement().coroutine);
        uint64_t v = 0;
        for (int i = 0; i < iterations; ++i) {
          (void)co_await w.read(&v, mine, 8);
          (void)co_await w.write(mine, &v, 8);
          (void)co_await w.cas(mine, v, v + 1);
          (void)co_await w.faa(mine + 8, 1);
        }
      });
      best_startup = std::min(best_startup, startup.seconds());
      Stopwatch loop;
      const RunStats st = sim.run();
      verbs = st.verbs;
      events = st.events;
      best_loop = std::min(best_loop, loop.seconds());
    }
    Row& row = r.add("sim speed (simple timing model, 32 coroutines)",
                     std::string(profile) + ": loop only", verbs / best_loop / 1e6, "M verbs/s");
    row.detail = format("%llu verbs in %.1f ms, %.2f events each; start-up %.1f ms (64 MB memory node); %.2f M/s with it",
                        static_cast<unsigned long long>(verbs), best_loop * 1e3,
                        static_cast<double>(events) / static_cast<double>(verbs), best_startup * 1e3,
                        verbs / (best_loop + best_startup) / 1e6);
    row.fields = {{"verbs", static_cast<double>(verbs)},
                  {"events_per_verb", static_cast<double>(events) / static_cast<double>(verbs)},
                  {"loop_seconds", best_loop},
                  {"startup_seconds", best_startup}};
  }
}

}  // namespace lw::bench
