// SMART §6.3, Fig. 14: conflict avoidance on SMART-HT, 100% updates, Zipf
// 0.99: (a) throughput, (b) average retries per update, (c) the
// distribution of retries per update at 96 threads.
#include "common.h"

namespace lw {

ReproFigure smart_fig14() {
  ReproFigure f;
  f.name = "smart-fig14";
  f.title = "SMART Fig. 14: conflict avoidance, SMART-HT with 100% updates, Zipf 0.99 (cx6-200g)";
  f.x_label = "(a), (b) threads; (c) retries of an update at 96 threads (15 = 15 or more)";
  f.log_x = false;
  struct Step {
    const char* name;
    int level;  // 0 none, 1 +Backoff, 2 +DynLimit, 3 +CoroThrot
  };
  const Step steps[] = {{"none", 0}, {"+Backoff", 1}, {"+DynLimit", 2}, {"+CoroThrot", 3}};
  const std::vector<uint32_t> threads = {8, 16, 32, 64, 96};
  for (const Step& s : steps) {
    for (uint32_t t : threads) {
      ReproPoint p;
      p.panel = "throughput";
      p.series = std::string("throughput ") + s.name;
      p.x = t;
      // SMART-HT without conflict avoidance, then its three parts in turn.
      p.cluster = smart_repro::hash_cluster("smart-ht", 1, t);
      p.cluster.smart.backoff = s.level >= 1;
      p.cluster.smart.dynamic_limit = s.level >= 2;
      p.cluster.smart.coroutine_throttling = s.level >= 3;
      p.hash = smart_repro::hash_options(ycsb::Mix::kUpdateOnly);
      p.hash->table = s.name;
      f.points.push_back(p);
      const int run = static_cast<int>(f.points.size()) - 1;
      ReproPoint q;
      q.panel = "retries per update";
      q.series = std::string("retries per update ") + s.name;
      q.x = t;
      q.cluster = p.cluster;
      q.same_run_as = run;
      q.metric = "counter:hash.retries_per_update";
      f.points.push_back(q);
      if (t != 96) continue;
      for (uint32_t k = 0; k < HashRunOptions::kRetryBuckets; ++k) {
        ReproPoint d;
        d.panel = "retry distribution at 96 threads";
        d.series = std::string("retry distribution at 96 threads ") + s.name;
        d.x = k;
        d.cluster = p.cluster;
        d.same_run_as = run;
        d.metric = "counter:hash.retry_share_pct." + std::to_string(k);
        f.points.push_back(d);
      }
    }
  }
  f.panel_y_labels = {{"retries per update", "average retries per update"},
                      {"retry distribution at 96 threads", "updates (%)"}};
  f.paper = {
      {"retries per update none", 96, 11.5, "SMART §6.3, Fig. 14c: 11.5 retries per update at 96 threads without conflict avoidance"},
      {"retries per update +CoroThrot", 96, 1.1, "SMART §6.3, Fig. 14c: SMART-HT (all techniques) 1.1 retries per update at 96 threads"},
      {"retry distribution at 96 threads +CoroThrot", 0, 93.3, "SMART §6.3: 93.3% of SMART-HT's updates need no retry", false, 0.05},
  };
  PaperValue backoff;
  backoff.series = "retries per update +Backoff";
  backoff.x = 96;
  backoff.value = 1.7;
  backoff.at_most = true;
  backoff.tolerance = 0;
  backoff.source = "SMART §6.3: +Backoff keeps the average retries per update below 1.7";
  f.paper.push_back(backoff);
  PaperValue dyn;
  dyn.series = "throughput +DynLimit";
  dyn.over_series = "throughput +Backoff";
  dyn.x = 96;
  dyn.value = 1.6;
  dyn.tolerance = 0.25;
  dyn.source = "SMART §6.3: +DynLimit gives 1.6x the throughput of +Backoff (taken at 96 threads)";
  f.paper.push_back(dyn);
  PaperValue coro = dyn;
  coro.series = "throughput +CoroThrot";
  coro.value = 1.67;
  coro.source = "SMART §6.3: all techniques (+CoroThrot) give up to 1.67x the throughput of +Backoff";
  f.paper.push_back(coro);
  f.notes = smart_repro::hash_note() +
            " 'none' is SMART-HT (per-thread doorbells, throttling) without conflict avoidance; retries are the "
            "table's failed slot CASes (and re-reads it counts) per update that completed in the window. "
            "At 96 threads +Backoff, +DynLimit and +CoroThrot give about 3.3, 3.5 and 2.9 Mops with 0.58, "
            "0.62 and 0.33 retries per update. Misses: +DynLimit gains about 5% over +Backoff, not 1.6x: "
            "under this skew the dynamic limit climbs to t_M = 1.6 ms, which is where +Backoff's fixed limit "
            "already is (the runtime counts retries in the window when they happen; counted at the end of "
            "their operation, it collapsed to t0 and 0.9 Mops); +CoroThrot cuts retries further but loses "
            "about 13% throughput, not gains 1.67x, because c_max shrinks to 1-2 and the hot-key updates it "
            "serialises are the few that matter. +Backoff alone uses t_max = t_M throughout and matches the paper's "
            "behaviour (0.6 < 1.7 retries). 'none' retries about 2 per update, not 11.5, because its 3 ms warm-up "
            "ends before the hot keys' convoys have built: with a 48 ms warm-up it retries 4.8 times (0.13 Mops, not "
            "0.49) and on the paper's policy clocks 10.3; --scale paper gives 10.9 (docs/fidelity.md, \"The paper "
            "scale\").";
  return f;
}

}  // namespace lw
