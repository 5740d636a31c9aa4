// SMART §6.2.1, Fig. 9: throughput vs median and p99 latency of the hash
// tables, read-only, 96 threads; the throughput is set by pacing every
// coroutine's issue rate ("we control the throughput by intentionally
// throttling execution").
#include "common.h"

namespace lw {

namespace {
constexpr double kUnpaced = 40;  // the x of the unpaced run (as fast as it goes)
}

ReproFigure smart_fig9() {
  ReproFigure f;
  f.name = "smart-fig9";
  f.title = "SMART Fig. 9: hash-table latency vs throughput, read-only, 96 threads (cx6-200g, Zipf 0.99)";
  f.x_label = "achieved throughput (Mops); tables: offered Mops (40 = unpaced)";
  f.log_x = false;
  f.latency = true;
  const std::vector<double> offered = {2, 4, 8, 12.2, 16, 20, 24, kUnpaced};
  for (const char* table : {"race", "smart-ht"}) {
    for (double rate : offered) {
      ReproPoint p;
      p.panel = "median";
      p.series = std::string("median ") + table;
      p.x = rate;
      p.cluster = smart_repro::hash_cluster(table, 1, 96);
      p.hash = smart_repro::hash_options(ycsb::Mix::kReadOnly);
      p.hash->table = table;
      p.hash->offered_mops = rate == kUnpaced ? 0 : rate;
      p.metric = "p50_us";
      p.x_metric = "mops";
      f.points.push_back(p);
      ReproPoint q;
      q.panel = "p99";
      q.series = std::string("p99 ") + table;
      q.x = rate;
      q.cluster = p.cluster;
      q.same_run_as = static_cast<int>(f.points.size()) - 1;
      q.metric = "p99_us";
      q.x_metric = "mops";
      f.points.push_back(q);
    }
  }
  f.panel_y_labels = {{"median", "median latency (us)"}, {"p99", "p99 latency (us)"}};
  PaperValue bound;
  bound.series = "median smart-ht";
  bound.x = kUnpaced;
  bound.value = 30.3;
  bound.at_most = true;
  bound.tolerance = 0;
  bound.source = "SMART §6.2.1: with thread-aware allocation the median latency stays below 30.3 us";
  PaperValue med_ratio;
  med_ratio.series = "median smart-ht";
  med_ratio.over_series = "median race";
  med_ratio.x = kUnpaced;
  med_ratio.value = 1 - 0.696;
  med_ratio.tolerance = 0.3;
  med_ratio.source = "SMART §6.2.1: SMART-HT reduces the median latency by 69.6% (taken at full load)";
  PaperValue p99_ratio = med_ratio;
  p99_ratio.series = "p99 smart-ht";
  p99_ratio.over_series = "p99 race";
  p99_ratio.value = 1 - 0.806;
  p99_ratio.source = "SMART §6.2.1: SMART-HT reduces the p99 latency by up to 80.6% of RACE (taken at full load)";
  f.paper = {
      {"median smart-ht", 12.2, 11.2, "SMART §6.2.1: the minimum median latency, 11.2 us, at 12.2 Mops"},
      bound, med_ratio, p99_ratio,
  };
  f.notes = smart_repro::hash_note() +
            " Each coroutine (96 x 8) issues at offered/768 Mops from a random phase; latency runs from the "
            "operation's start to its end. Plots place each point at its achieved throughput. Misses: SMART-HT "
            "saturates at 36.9 Mops with 96 threads here (the paper near 30), so every offer up to 24 Mops "
            "runs unloaded: the model's median is 4.1 us (two round trips, posting and polling, and the "
            "operation's measured CPU work: a key draw and two clock reads, 119 ns, hashing and a 28-slot "
            "scan, 17 ns), under the paper's 11.2 us minimum. Those CPU costs are measured on our CPUs "
            "(bench/cpu_work.cpp); what else the paper's 11.2 us holds (coroutine scheduling among 8 "
            "coroutines, the artifact's closed-loop clients) the model does not charge (issue 42). The 40 Mops "
            "offer saturates (18.8 us median against the paper's 30.3), and the median and p99 ratios to RACE "
            "(0.09 and 0.11 against 0.30 and 0.19) follow from SMART-HT's lower latency. Paced RACE points above its 4 Mops knee fall behind their schedule and reach "
            "3.3-3.7 Mops, less than unpaced (5.7): a coroutine behind schedule issues back to back, in "
            "bursts that meet the shared doorbells' locks together.";
  return f;
}

}  // namespace lw
