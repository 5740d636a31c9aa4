// SMART §6.2.1, Fig. 7: hash-table throughput vs threads, RACE vs SMART-HT,
// three YCSB mixes; (a)-(c) one compute blade, (d)-(f) scale-out with 96
// threads per compute blade.
#include "common.h"

namespace lw {

using smart_repro::hash_cluster;
using smart_repro::hash_options;

ReproFigure smart_fig7() {
  ReproFigure f;
  f.name = "smart-fig7";
  f.title = "SMART Fig. 7: hash-table throughput, RACE vs SMART-HT (cx6-200g, 2 memory blades, Zipf 0.99)";
  f.x_label = "threads per compute blade ((a)-(c)); compute blades of 96 threads (scale-out)";
  f.log_x = false;
  const std::vector<ycsb::Mix> mixes = {ycsb::Mix::kWriteHeavy, ycsb::Mix::kReadHeavy, ycsb::Mix::kReadOnly};
  for (ycsb::Mix mix : mixes) {
    const std::string panel = ycsb::to_string(mix);
    for (uint32_t t : {1u, 8u, 16u, 32u, 48u, 64u, 96u}) {
      for (const char* table : {"race", "smart-ht"}) {
        ReproPoint p;
        p.panel = panel;
        p.series = panel + " " + table;
        p.x = t;
        p.cluster = hash_cluster(table, 1, t);
        p.hash = hash_options(mix);
        p.hash->table = table;
        f.points.push_back(p);
      }
    }
  }
  // Scale-out to the paper's 6 blades of 96 threads.
  for (ycsb::Mix mix : mixes) {
    const std::string panel = std::string("scale-out ") + ycsb::to_string(mix);
    for (uint32_t blades : {1u, 2u, 4u, 6u}) {
      for (const char* table : {"race", "smart-ht"}) {
        ReproPoint p;
        p.panel = panel;
        p.series = panel + " " + table;
        p.x = blades;
        p.cluster = hash_cluster(table, blades, 96);
        p.hash = hash_options(mix);
        p.hash->table = table;
        p.hash->warmup_ns = 3'000'000;  // more workers: same decisions, less virtual time needed
        p.hash->measure_ns = 1'000'000;
        f.points.push_back(p);
      }
    }
  }
  f.paper = {
      {"write-heavy race", 8, 2.8, "SMART §6.2.1, Fig. 7a: RACE's highest write-heavy throughput, 2.8 Mops at 8 threads"},
      {"write-heavy smart-ht", 48, 5.7, "SMART §6.2.1, Fig. 7a: SMART-HT's highest write-heavy throughput, 5.7 Mops at 48 threads"},
      {"read-heavy smart-ht", 96, 21.2, "SMART §6.2.1, Fig. 7b: SMART-HT reaches 21.2 Mops read-heavy (flat from 64 threads)"},
      {"read-only smart-ht", 96, 23.7, "SMART §6.2.1, Fig. 7c: SMART-HT reaches 23.7 Mops read-only (flat from 64 threads)"},
  };
  for (const char* mix : {"read-heavy", "read-only"}) {
    for (double x : {16.0, 96.0}) {
      PaperValue v;
      v.series = std::string(mix) + " race";
      v.x = x;
      v.value = 11.4;
      v.at_most = true;
      v.tolerance = 0;
      v.source = "SMART §6.2.1, Fig. 7b-c: RACE stays below 11.4 Mops read-heavy and read-only";
      f.paper.push_back(v);
    }
  }
  auto ratio = [&](const std::string& panel, double x, double value, const std::string& source) {
    PaperValue v;
    v.series = panel + " smart-ht";
    v.over_series = panel + " race";
    v.x = x;
    v.value = value;
    v.tolerance = 0.25;
    v.source = source;
    f.paper.push_back(v);
  };
  ratio("scale-out read-only", 1, 3.8, "SMART §6.2.1, Fig. 7f: SMART-HT 2.0-3.8x RACE read-only (3.8x taken at 1 blade, where RACE is lowest)");
  ratio("scale-out read-only", 6, 2.0, "SMART §6.2.1, Fig. 7f: SMART-HT 2.0-3.8x RACE read-only (2.0x taken at 6 blades, where RACE is highest)");
  ratio("scale-out write-heavy", 6, 132.4, "SMART §6.2.1, Fig. 7d: SMART-HT up to 132.4x RACE write-heavy (taken at 6 blades)");
  ratio("scale-out read-heavy", 6, 77.3, "SMART §6.2.1, Fig. 7e: SMART-HT up to 77.3x RACE read-heavy (taken at 6 blades)");
  f.notes = smart_repro::hash_note() +
            " Misses and their causes. (1) Read-only SMART-HT at 96 threads is 36.9 Mops (paper 23.7; "
            "the same as at 48 threads, so it does not fall) and the 1-blade read-only ratio 6.4x (paper "
            "3.8x): the model's lookup moves 320 B per operation against its 104 Gbit/s PCIe limit, the "
            "paper's RACE bucket reads are evidently larger, since it reports bandwidth saturation at 23.7 "
            "Mops; the CPU work per operation the model charges (measured, about 140 ns) does not bind there. "
            "Read-heavy SMART-HT at 96 is 14.4 (paper 21.2). (2) Write-heavy SMART-HT at 48 threads is 19% under the paper (4.6 vs 5.7 Mops; 5.3 with the "
            "hash command's longer default windows), with hot keys hotter at 256 Ki keys. It was 1.2 Mops "
            "before the runtime counted retries in the retry-rate window when they happen: counted when their "
            "operation ended, most per-thread windows saw a rate of 0 under Zipf 0.99 and t_max sank to t0 "
            "(latchwork hash --table smart-ht --threads 48 --workload "
            "write-heavy --keys 262144 shows it). (3) RACE write-heavy at 8 "
            "threads (1.8-2.0 vs 2.8): fewer keys make the top keys hotter and their updates retry more; the same run "
            "gives 1.56, 2.03 and 2.79 Mops with 64 Ki, 256 Ki and 1 Mi keys (3.1 -> 1.8 retries per update), "
            "reaching the paper's 2.8 with 1 Mi keys (the figure loads 256 Ki keys to bound the host "
            "set-up and memory of its points). (4) Scale-out "
            "ratios (132x, 77x): the paper's RACE collapses under retries at hundreds of threads; here RACE's "
            "per-thread QPs sharing doorbells limit its issue rate per blade, so it conflicts less and scales "
            "with blades (write-heavy 1.5 -> 3.4 Mops from 1 to 6 blades); SMART-HT's write-heavy runs are bounded by hot keys, "
            "its read-heavy runs scale (10.6 -> 48.5 Mops), but RACE's do too (5.2 -> 25.7)." 
            " Scale-out runs 1, 2, 4 and 6 compute blades of 96 threads (6 x 96 x 8 = 4608 coroutines) with a 3 ms "
            "warm-up and a 1 ms window, which costs the simulator about half of this figure's time.";
  return f;
}

}  // namespace lw
