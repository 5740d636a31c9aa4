// SMART §6.2.1, Fig. 8: the breakdown from RACE to SMART-HT, one technique
// at a time: +ThdResAlloc (per-thread doorbells), +WorkReqThrot (Alg. 1),
// +ConflictAvoid (backoff, dynamic limit, coroutine throttling).
#include "common.h"

namespace lw {

ReproFigure smart_fig8() {
  ReproFigure f;
  f.name = "smart-fig8";
  f.title = "SMART Fig. 8: hash-table breakdown, RACE -> SMART-HT one technique at a time (cx6-200g, Zipf 0.99)";
  f.x_label = "threads (1 compute blade, 8 coroutines each)";
  f.log_x = false;
  struct Step {
    const char* name;
    int level;  // techniques on: 0 none ... 3 all
  };
  const Step steps[] = {{"RACE", 0}, {"+ThdResAlloc", 1}, {"+WorkReqThrot", 2}, {"+ConflictAvoid", 3}};
  for (ycsb::Mix mix : {ycsb::Mix::kWriteHeavy, ycsb::Mix::kReadHeavy, ycsb::Mix::kReadOnly}) {
    const std::string panel = ycsb::to_string(mix);
    for (uint32_t t : {8u, 16u, 32u, 64u, 96u}) {
      for (const Step& s : steps) {
        ReproPoint p;
        p.panel = panel;
        p.series = panel + " " + s.name;
        p.x = t;
        p.cluster = smart_repro::hash_cluster("race", 1, t);
        if (s.level >= 1) p.cluster.nic.qp_policy = QpPolicy::kPerThreadDoorbell;
        p.cluster.smart.throttling = s.level >= 2;
        p.cluster.smart.backoff = p.cluster.smart.dynamic_limit = p.cluster.smart.coroutine_throttling = s.level >= 3;
        p.hash = smart_repro::hash_options(mix);
        p.hash->table = s.name;
        f.points.push_back(p);
      }
    }
  }
  f.paper = {
      {"write-heavy RACE", 8, 2.8, "SMART §6.2.1: RACE's highest write-heavy throughput, 2.8 Mops at 8 threads"},
      {"read-only +ConflictAvoid", 96, 23.7, "SMART §6.2.1: SMART-HT reaches 23.7 Mops read-only"},
      {"read-heavy +ConflictAvoid", 96, 21.2, "SMART §6.2.1: SMART-HT reaches 21.2 Mops read-heavy"},
  };
  f.notes = smart_repro::hash_note() +
            " The text gives no per-step values; the shape to check (§6.2.1): +ThdResAlloc carries read-only and "
            "read-heavy, +WorkReqThrot helps write-heavy between 8 and 32 threads, +ConflictAvoid carries "
            "write-heavy and read-heavy beyond 64 threads. Seen here: +ThdResAlloc lifts read-only/read-heavy from "
            "RACE's 5-10 Mops to 34-37 Mops at 32 threads; +WorkReqThrot helps write-heavy at 8-16 threads and "
            "restores 96 threads (12.8 vs 6.7 Mops read-only) by bounding outstanding requests; +ConflictAvoid "
            "carries write-heavy at every thread count (4.3-5.6 Mops from 8 to 96 threads, against 0.7-1.9 "
            "without it beyond 8 threads), as the paper describes. The 96-thread read misses: read-only "
            "overshoots (36.9 vs 23.7: bucket reads smaller than the paper's; the measured CPU work per "
            "operation, about 140 ns, does not bind at 96 threads), read-heavy falls short (14.4 vs 21.2).";
  return f;
}

}  // namespace lw
