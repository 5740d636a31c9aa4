// Sherman §5.2.2, Fig. 11: the techniques one by one, uniform keys.
#include "common.h"

namespace lw {

using sherman_repro::ratio;

ReproFigure sherman_fig11() {
  ReproFigure f;
  f.name = "sherman-fig11";
  f.title = "Sherman Fig. 11: techniques one by one, uniform (2^20 keys, 8 MN + 8 CN x 22 threads, cx5-100g)";
  f.x_label = "Zipf parameter";
  f.chart = ReproChart::kBars;  // one x: a breakdown
  f.log_x = false;
  sherman_repro::add_breakdown(&f, {TreeMix::kWriteOnly, TreeMix::kWriteIntensive}, 0);
  const std::string wi = "write-intensive", wo = "write-only";
  const std::string s = "Sherman §5.2.2, Fig. 11";
  f.paper = {
      ratio(wo + " +2-Level Ver", wo + " FG+", 0, 1.24, s + "(a): Sherman 1.24x FG+ throughput, write-only", 0.15),
      ratio(wo + " p50 FG+", wo + " p50 +2-Level Ver", 0, 1.24, s + "(a): 1.24x lower p50, write-only", 0.15),
      ratio(wo + " p99 FG+", wo + " p99 +2-Level Ver", 0, 2.01, s + "(a): 2.01x lower p99, write-only"),
      ratio(wi + " +2-Level Ver", wi + " FG+", 0, 1.15, s + "(b): Sherman 1.15x FG+ throughput, write-intensive", 0.15),
      ratio(wi + " p50 FG+", wi + " p50 +2-Level Ver", 0, 1.19, s + "(b): 1.19x lower p50, write-intensive", 0.15),
      ratio(wi + " p99 FG+", wi + " p99 +2-Level Ver", 0, 1.27, s + "(b): 1.27x lower p99, write-intensive", 0.15),
      ratio(wi + " +Hierarchical", wi + " +On-Chip", 0, 1.0, s + ": HOCL does not raise uniform throughput", 0.1),
  };
  f.notes = sherman_repro::scale_note() + " Steps as in sherman-fig10.";
  return f;
}

}  // namespace lw
