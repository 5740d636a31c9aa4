// Sherman §5.4, Fig. 13: scalability, write-intensive, uniform and Zipf
// 0.9 / 0.99, up to 528 client coroutines (176 threads x 3).
#include <cstdio>

#include "common.h"

namespace lw {

using sherman_repro::ratio;

ReproFigure sherman_fig13() {
  ReproFigure f;
  f.name = "sherman-fig13";
  f.title = "Sherman Fig. 13: scalability, write-intensive (2^20 keys, 8 MN + 8 CN, cx5-100g)";
  f.x_label = "client coroutines (8 compute nodes)";
  f.log_x = false;
  struct Shape {
    uint32_t threads, coroutines;
  };
  for (double z : {0.0, 0.9, 0.99}) {
    char panel[32];
    std::snprintf(panel, sizeof panel, z == 0 ? "uniform" : "zipf %.2f", z);
    for (Shape sh : {Shape{2, 1}, Shape{11, 1}, Shape{22, 1}, Shape{22, 3}}) {
      for (const char* index : {"sherman", "fg+"}) {
        ReproPoint p;
        p.panel = panel;
        p.series = std::string(panel) + " " + index;
        p.x = 8.0 * sh.threads * sh.coroutines;
        p.cluster = sherman_repro::sherman_cluster(8, sh.threads, sh.coroutines);
        p.sherman = sherman_repro::tree_options(index, TreeMix::kWriteIntensive, z, &p.cluster);
        sherman_repro::steady_state_if_skewed_writes(&*p.sherman, &p.cluster);
        f.points.push_back(p);
      }
    }
  }
  const std::string s = "Sherman §5.4, Fig. 13";
  PaperValue u{"uniform sherman", 528, 44, s + ": Sherman 44 Mops at 528 client threads, uniform", false, 0.25};
  PaperValue z9{"zipf 0.90 sherman", 528, 21, s + ": Sherman peaks at 21 Mops at Zipf 0.9 (taken at 528)", false, 0.3};
  PaperValue z99{"zipf 0.99 sherman", 528, 9, s + ": Sherman peaks at 9 Mops at Zipf 0.99 (taken at 528)", false, 0.3};
  PaperValue r9 = ratio("zipf 0.90 sherman", "zipf 0.90 fg+", 528, 1.44,
                        s + ": 1.44x FG+'s peak at Zipf 0.9 (Sherman at 528 over FG+'s highest point)", 0.3);
  PaperValue r99 = ratio("zipf 0.99 sherman", "zipf 0.99 fg+", 528, 1.4,
                         s + ": 1.4x FG+'s peak at Zipf 0.99 (Sherman at 528 over FG+'s highest point)", 0.3);
  r9.over_peak = r99.over_peak = true;
  f.paper = {
      u,
      ratio("uniform sherman", "uniform fg+", 528, 1.14, s + ": 1.14x FG+ at 528, uniform", 0.15),
      z9,
      r9,
      z99,
      r99,
  };
  f.notes = sherman_repro::scale_note() +
            " x = 8 compute nodes x threads x coroutines: 16 (2 threads), 88 (11), 176 (22), 528 (22 x 3 "
            "coroutines, the paper's Boost coroutines). The skewed panels run to the steady state (10 ms "
            "warm-up + 10 ms window, as sherman-fig10: skewed writes build their convoys over milliseconds; "
            "Sherman at Zipf 0.99 and 528 gives 17.9 Mops over 300 us, 7.05 over 3 ms, 7.04 over 10 ms); the "
            "uniform panel keeps the short window. The skewed ratios divide Sherman at 528 by FG+'s highest "
            "point, as the paper compares with FG+'s peak. Misses: FG+ collapses already at 88 coroutines "
            "(0.5-1.4 Mops; its peak is the 16-coroutine point, 2.7), where the paper's FG+ peaks later, so "
            "the peak ratios overshoot (4.0x and 2.6x against 1.44x and 1.4x); Sherman at Zipf 0.9 falls from "
            "14.8 Mops at 88 coroutines to 10.9 at 528 (paper: rising to 21). Both follow from the convoys on "
            "hot leaves that collapse FG+ in sherman-fig10 (the NIC's engines held by spinning lock CASes); "
            "the cause of Sherman's own decline at Zipf 0.9 is not isolated.";
  return f;
}

}  // namespace lw
