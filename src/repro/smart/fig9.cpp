// SMART §6.2.1, Fig. 9: throughput vs median and p99 latency of the hash
// tables, read-only, 96 threads; the throughput is set by throttling ("we
// control the throughput by intentionally throttling execution"): as the
// artifact's scripts do, each coroutine idles a think time after every
// operation (IDLE_USEC over 0, 16, 32, ... us), a closed loop.
#include <algorithm>

#include "common.h"

namespace lw {

namespace {
constexpr double kNearPaperMin = 64; // the think time whose load is nearest 12.2 Mops here
}

ReproFigure smart_fig9() {
  ReproFigure f;
  f.name = "smart-fig9";
  f.title = "SMART Fig. 9: hash-table latency vs throughput, read-only, 96 threads (cx6-200g, Zipf 0.99)";
  f.x_label = "achieved throughput (Mops); tables: think time per operation (us, 0 = full load)";
  f.log_x = false;
  f.latency = true;
  // The artifact's idle set up to 2048 us (4096 and 8192 add points below
  // 0.4 Mops, the same unloaded latency).
  const std::vector<double> think_us = {2048, 1024, 512, 256, 128, kNearPaperMin, 32, 16, smart_repro::kFullLoad};
  for (const char* table : {"race", "smart-ht"}) {
    for (double rate : think_us) {
      ReproPoint p;
      p.panel = "median";
      p.series = std::string("median ") + table;
      p.x = rate;
      p.cluster = smart_repro::hash_cluster(table, 1, 96);
      p.hash = smart_repro::hash_options(ycsb::Mix::kReadOnly);
      p.hash->table = table;
      p.hash->think_ns = static_cast<Nanos>(rate * 1000);
      // Windows of several think times, so every coroutine issues a few.
      p.hash->warmup_ns = std::max<Nanos>(p.hash->warmup_ns, 2 * p.hash->think_ns);
      p.hash->measure_ns = std::max<Nanos>(p.hash->measure_ns, 8 * p.hash->think_ns);
      p.hash->drain_ns = std::max<Nanos>(p.hash->drain_ns, 2 * p.hash->think_ns);
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
  bound.x = smart_repro::kFullLoad;
  bound.value = 30.3;
  bound.at_most = true;
  bound.tolerance = 0;
  bound.source = "SMART §6.2.1: with thread-aware allocation the median latency stays below 30.3 us";
  PaperValue med_ratio;
  med_ratio.series = "median smart-ht";
  med_ratio.over_series = "median race";
  med_ratio.x = smart_repro::kFullLoad;
  med_ratio.value = 1 - 0.696;
  med_ratio.tolerance = 0.3;
  med_ratio.source = "SMART §6.2.1: SMART-HT reduces the median latency by 69.6% (taken at full load)";
  PaperValue p99_ratio = med_ratio;
  p99_ratio.series = "p99 smart-ht";
  p99_ratio.over_series = "p99 race";
  p99_ratio.value = 1 - 0.806;
  p99_ratio.source = "SMART §6.2.1: SMART-HT reduces the p99 latency by up to 80.6% of RACE (taken at full load)";
  f.paper = {
      {"median smart-ht", kNearPaperMin, 11.2,
       "SMART §6.2.1: the minimum median latency, 11.2 us, at 12.2 Mops (compared at 64 us of think time, "
       "whose load is nearest 12.2 Mops here)"},
      bound, med_ratio, p99_ratio,
  };
  f.notes = smart_repro::hash_note() +
            " Each coroutine (96 x 8) idles a think time after every operation, as the artifact's IDLE_USEC does "
            "(its scripts sweep 0, 16, 32, ... 8192 us; here up to 2048 us, with windows of at least 8 think times "
            "and a random first start so that the coroutines do not run in step); latency runs from the "
            "operation's start to its end. Plots place each point at its achieved throughput. Until 2026-11-29 "
            "the load was paced open-loop, and RACE points past its knee fell behind their schedule and issued "
            "in bursts (3.3-3.7 Mops, under the 5.4 unloaded); closed, RACE rises smoothly from 0.37 to 5.4 Mops. "
            "Misses: SMART-HT saturates at 36.9 Mops with 96 threads here (the paper near 30), so it runs "
            "unloaded up to 16 us of think time (35.8 Mops, median 4.9 us): the model's median is 4.1 us (two "
            "round trips, posting and polling, and the operation's measured CPU work: a key draw and two clock "
            "reads, 119 ns, hashing and a 28-slot scan, 17 ns), under the paper's 11.2 us minimum. Those CPU "
            "costs are measured on our CPUs (bench/cpu_work.cpp); what else the paper's 11.2 us holds (the "
            "artifact's coroutines yield in a loop while they idle, each turn a coroutine switch the others "
            "wait behind) the model does not charge. At full load SMART-HT's median is 18.8 us against the "
            "paper's 30.3, and the median and p99 ratios to RACE (0.09 and 0.11 against 0.30 and 0.19) follow "
            "from SMART-HT's lower latency.";
  return f;
}

}  // namespace lw
