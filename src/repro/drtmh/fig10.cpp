// DrTM+H §5.4 Fig. 10: the Logging phase by one-sided WRITEs into the
// backups' log rings or by RPC.
#include "common.h"

namespace lw {

ReproFigure drtmh_fig10() {
  using drtmh::Variant;
  ReproFigure f;
  f.name = "drtmh-fig10";
  f.title = "DrTM+H Fig. 10: Logging one-sided vs two-sided (cx5-100g, 16 nodes x 2 threads)";
  f.x_label = "coroutines per thread";
  f.chart = ReproChart::kBars;  // the paper draws bars
  const std::vector<Variant> v = {
      {"L=one", "drtmh", "L=one"},
      {"L=two", "drtmh", "L=two"},
  };
  drtmh::add_sweep(&f, "tpcc", v);
  drtmh::add_sweep(&f, "smallbank", v);
  f.paper = {
      drtmh::range_value("tpcc L=one", 16, 1.24, 1.29, "DrTM+H §5.4, Fig. 10a: one-sided logging up to 1.29x (from 1.24x)",
                         "tpcc L=two"),
      drtmh::range_value("smallbank L=one", 16, 1.10, 1.12,
                         "DrTM+H §5.4, Fig. 10b: one-sided logging up to 1.12x (from 1.10x)", "smallbank L=two"),
      {"tpcc L=one p50", 16, 1.0, "DrTM+H §5.4: one-sided logging always has lower latency", false, 0.0, false, true,
       "tpcc L=two p50"},
      {"smallbank L=one p50", 16, 1.0, "DrTM+H §5.4: one-sided logging always has lower latency", false, 0.0, false,
       true, "smallbank L=two p50"},
  };
  f.notes = "Scaled as drtmh-fig7; the other phases as DrTM+H. Log reclaims are lazy RPCs every 8 transactions (§5.4).";
  return f;
}

}  // namespace lw
