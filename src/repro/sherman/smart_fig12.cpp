// SMART §6.2.3, Fig. 12(a)-(c): Sherman+ vs Sherman+ with speculative
// lookup vs SMART-BT on one compute blade, 8 coroutines per thread.
#include "common.h"

namespace lw {

using sherman_repro::ratio;

ReproFigure smart_fig12() {
  ReproFigure f;
  f.name = "smart-fig12";
  f.title = "SMART Fig. 12(a)-(c): Sherman+ vs SMART-BT vs threads (1 compute + 1 memory blade, cx6-200g, 8 "
            "coroutines per thread, Zipf 0.99, 2^20 keys)";
  f.x_label = "threads on the compute blade";
  f.log_x = false;
  for (TreeMix mix : {TreeMix::kWriteHeavy, TreeMix::kReadHeavy, TreeMix::kReadOnly}) {
    const std::string panel = to_string(mix);
    for (uint32_t t : {8u, 32u, 64u, 94u}) {
      for (const char* series : {"sherman+", "sherman+ w/ SL", "smart-bt"}) {
        ReproPoint p;
        p.panel = panel;
        p.series = panel + " " + series;
        p.x = t;
        ClusterConfig c;
        c.set_profile("connectx");
        c.nic.profile = "cx6-200g";
        c.compute_nodes = 1;
        c.threads_per_node = t;
        c.coroutines_per_thread = 8;
        c.memory_nodes = 1;
        c.memory_node_bytes = 1ull << 30;
        const std::string index = std::string(series) == "smart-bt" ? "smart-bt" : "sherman+";
        ShermanRunOptions o = sherman_repro::tree_options(index, mix, 0.99, &c);
        if (std::string(series) == "sherman+ w/ SL") {
          o.tree.speculative_lookup = true;
          o.index = series;
        }
        o.warmup_ns = 300'000;
        o.measure_ns = 200'000;
        p.cluster = c;
        p.sherman = o;
        f.points.push_back(p);
      }
    }
  }
  const std::string s = "SMART §6.2.3, Fig. 12";
  PaperValue wh = ratio("write-heavy smart-bt", "write-heavy sherman+", 94, 1.0,
                        s + "(a): SMART-BT slightly above Sherman+ write-heavy", 0.05);
  wh.at_least = true;
  PaperValue sl{"read-only sherman+ w/ SL", 94, 16.3, s + "(c): Sherman+ w/ SL only 16.3 Mops read-only at 94 threads",
                false, 0.25};
  f.paper = {
      wh,
      ratio("read-heavy smart-bt", "read-heavy sherman+", 94, 1.8, s + "(b): SMART-BT 1.8x Sherman+ read-heavy at 94 threads"),
      ratio("read-only smart-bt", "read-only sherman+", 94, 2.0, s + "(c): SMART-BT 2.0x Sherman+ read-only at 94 threads"),
      ratio("read-heavy sherman+ w/ SL", "read-heavy sherman+", 64, 1.6,
            s + "(b): Sherman+ w/ SL up to 1.6x Sherman+ read-heavy (the text does not say where; taken at 64)"),
      sl,
  };
  f.notes = "SMART runs each server as a memory blade (2 threads) and a compute blade (up to 94 threads); (a)-(c) "
            "use one server. SMART-BT = Sherman+ (per-cache-line versions) + speculative lookup + SMART's "
            "per-thread doorbells, work-request throttling, backoff and coroutine throttling (clocks divided by 16 "
            "as in smart-fig7); Sherman+ keeps per-thread QPs that share doorbells. Scale-out (d)-(f) is not run "
            "(6,016 coroutines). 2^20 keys (the paper loads 10^8 as in its hash experiments), 300 us warm-up, "
            "200 us window.";
  return f;
}

}  // namespace lw
