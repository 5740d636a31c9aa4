// latchwork hash: RACE hashing vs SMART-HT under YCSB (SMART §6.2.1, §6.3).
#include <cstdio>

#include "cluster_flags.h"
#include "process_flags.h"
#include "commands.h"
#include "runs/hash_run.h"
#include "progress.h"
#include "timeline_flags.h"

namespace lw::tool {
namespace {

void print_result(const HashRunResult& r, const ClusterConfig& c) {
  std::printf("# %s, %s, %s backend, nic %s, qp policy %s, smart throttling=%d backoff=%d "
              "dynamic-limit=%d coroutine-throttling=%d, seed %llu\n",
              r.table.c_str(), r.mix.c_str(), c.backend.c_str(), c.nic.profile.c_str(), to_string(c.nic.qp_policy),
              c.smart.throttling, c.smart.backoff, c.smart.dynamic_limit, c.smart.coroutine_throttling,
              static_cast<unsigned long long>(c.seed));
  std::printf("%-22s %llu (%u compute x %u threads x %u coroutines, %u memory nodes)\n", "workers",
              static_cast<unsigned long long>(r.workers), c.compute_nodes, c.threads_per_node,
              c.coroutines_per_thread, c.memory_nodes);
  std::printf("%-22s %.3f (%llu ops: %llu lookups, %llu updates)\n", "throughput (Mops)", r.mops,
              static_cast<unsigned long long>(r.ops), static_cast<unsigned long long>(r.lookups),
              static_cast<unsigned long long>(r.updates));
  std::printf("%-22s p50 %.2f  p99 %.2f  mean %.2f\n", "latency (us)", r.latency_us_p50, r.latency_us_p99,
              r.latency_us_mean);
  std::printf("%-22s %.3f (%.1f%% of updates without retry)\n", "retries per update", r.retries_per_update,
              100 * r.updates_without_retry);
  std::printf("%-22s", "retry counts");
  for (size_t i = 0; i < r.update_retries.size(); ++i)
    std::printf(" %zu%s:%llu", i, i + 1 == r.update_retries.size() ? "+" : "",
                static_cast<unsigned long long>(r.update_retries[i]));
  std::printf("\n%-22s %.2f round trips, %.2f work requests, %.1f bytes\n", "per operation", r.round_trips_per_op,
              r.work_requests_per_op, r.bytes_per_op);
  std::printf("%-22s C_max %.1f, t_max %.1f us, c_max %.1f (means over threads)\n", "policies at the end",
              r.credits_limit_mean, r.t_max_us_mean, r.c_max_mean);
  std::printf("%-22s %llu verbs, %.3f ms elapsed (virtual on sim), %.2f s wall (+%.2f s load)", "run",
              static_cast<unsigned long long>(r.verbs), static_cast<double>(r.elapsed_ns) / 1e6, r.wall_seconds,
              r.load_wall_seconds);
  if (r.sim_verbs_per_wall_second > 0) std::printf(", %.2f M simulated verbs per wall second", r.sim_verbs_per_wall_second / 1e6);
  std::printf("\n%-22s 0x%016llx\n", "trace hash", static_cast<unsigned long long>(r.trace_hash));
  if (r.verified && r.processes > 1)
    std::printf("final state: exact check passed (process %u of %u, partitioned writes: %llu keys of this "
                "process's writers exact, every loaded key present once)\n",
                r.process_index, r.processes, static_cast<unsigned long long>(r.keys_checked_exact));
  else if (r.verified)
    std::printf("final state: exact check passed\n");
}

}  // namespace

int cmd_hash(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork hash",
                 "RACE hashing or SMART-HT (SMART §5.2, §6.2.1) under a YCSB workload. Loads --keys "
                 "8-byte keys host-side into a RACE table spread over the memory nodes, then every "
                 "compute coroutine runs lookups and updates through the SMART runtime for a warm-up "
                 "and a measured window of virtual time (--ops-per-worker: a fixed count instead, "
                 "for real backends), and reports throughput, median and p99 latency, retries per "
                 "update and their distribution, round trips and bytes per operation. --table race "
                 "turns every SMART switch off and uses per-thread QPs sharing doorbells (RACE's "
                 "allocation); --table smart-ht uses per-thread doorbells, --throttling, --backoff, "
                 "--dynamic-limit and --coroutine-throttling. An explicit --qp-policy or switch "
                 "flag overrides the table's choice. The policies' clocks (Alg. 1's delta and the "
                 "retry-rate window) are divided by --policy-time-divisor so that a few virtual "
                 "milliseconds hold complete policy epochs. --verify checks the final table "
                 "exactly. --processes P --process-index I --shared-name NAME: P compute processes "
                 "(verbs) share one table created under NAME, started with the same flags but their "
                 "index; process 0 loads it, all run, then each checks the final state, exactly with "
                 "--partitioned-writes (each key then has one writer). Exits 2 on bad input, 1 if an "
                 "operation or the check fails.");
  ClusterConfig d;
  d.set_profile("connectx");
  d.nic.profile = "cx6-200g";
  d.compute_nodes = 1;
  d.threads_per_node = 8;
  d.coroutines_per_thread = 8;
  d.memory_nodes = 2;
  d.memory_node_bytes = 1ull << 30;
  ClusterFlagOptions opts;
  ClusterFlags cluster(f, d, opts);
  TimelineFlags timeline(f);
  std::string table = "smart-ht", workload = "write-heavy";
  double zipf = 0.99, offered = 0;
  uint64_t think_us = 0;
  uint64_t keys = 1u << 20, warmup_us = 6000, measure_us = 4000, ops_per_worker = 0, divisor = kDefaultPolicyTimeDivisor;
  bool json = false, verify = false;
  f.add_enum("table", &table, {"race", "smart-ht"}, "RACE (SMART off) or SMART-HT (every SMART policy on)");
  f.add_enum("workload", &workload, {"write-heavy", "read-heavy", "read-only", "update-only"},
             "YCSB mix: 50%, 5%, 0% or 100% updates, the rest lookups");
  f.add_double("zipf", &zipf, "Zipf theta of the keys (0 = uniform; SMART uses 0.99)", 0, 10);
  f.add_uint("keys", &keys, "records loaded before the run (8-byte keys and values)", 1, ZipfKeys::kMaxKeys);
  f.add_uint("warmup-us", &warmup_us, "warm-up before measuring (virtual microseconds)", 0, 1'000'000);
  f.add_uint("measure-us", &measure_us, "measurement window (virtual microseconds)", 1, 1'000'000);
  f.add_uint("ops-per-worker", &ops_per_worker,
             "run exactly this many operations per coroutine and measure them all (real backends)", 0,
             10'000'000);
  f.add_double("offered-mops", &offered, "pace the coroutines to this total issue rate (0: as fast as possible)", 0,
               10'000);
  f.add_uint("think-us", &think_us,
             "closed loop: each coroutine waits this long after every operation, its thread free for the "
             "others (the SMART artifact's IDLE_USEC; 0: none; not with --offered-mops)",
             0, 1'000'000);
  f.add_uint("policy-time-divisor", &divisor, "divide the SMART policies' clocks by this (1 = the paper's)", 1,
             1'000'000);
  f.add_bool("verify", &verify, "check the final table exactly against the values written");
  ProcessFlags procs;
  procs.add(f, "table", "loads the table");
  bool partitioned = false;
  f.add_bool("partitioned-writes", &partitioned,
             "each coroutine updates only keys whose index is its global writer index modulo all "
             "writers (lookups go anywhere), so every key has one writer and the final state is "
             "checked exactly (implies --verify)");
  f.add_bool("json", &json, "one JSON object instead of the report");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  if (f.was_set("ops-per-worker") && ops_per_worker == 0)
    return usage_error(f, "--ops-per-worker 0 would run no operation: give at least 1, or leave it out to "
                          "measure the --measure-us window");
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  if (std::string e = timeline.validate(c); !e.empty()) return usage_error(f, e);
  if (std::string e = procs.check(c); !e.empty()) return usage_error(f, e);
  // The table's preset first, then whatever was named explicitly.
  ClusterConfig preset = c;
  apply_hash_table_preset(table, &preset);
  if (f.was_set("qp-policy")) preset.nic.qp_policy = c.nic.qp_policy;
  if (f.was_set("throttling")) preset.smart.throttling = c.smart.throttling;
  if (f.was_set("backoff")) preset.smart.backoff = c.smart.backoff;
  if (f.was_set("dynamic-limit")) preset.smart.dynamic_limit = c.smart.dynamic_limit;
  if (f.was_set("coroutine-throttling")) preset.smart.coroutine_throttling = c.smart.coroutine_throttling;
  divide_policy_time(&preset, static_cast<uint32_t>(divisor));
  if (std::string e = preset.validate(); !e.empty()) return usage_error(f, e);
  HashRunOptions o;
  o.table = table;
  ycsb::parse_mix(workload, &o.mix);
  o.zipf = zipf;
  o.keys = keys;
  o.warmup_ns = static_cast<Nanos>(warmup_us) * 1000;
  o.measure_ns = static_cast<Nanos>(measure_us) * 1000;
  o.ops_per_worker = ops_per_worker;
  o.offered_mops = offered;
  o.think_ns = static_cast<Nanos>(think_us) * 1000;
  o.verify = verify;
  o.workload_seed = preset.seed;
  o.processes = static_cast<uint32_t>(procs.processes);
  o.process_index = static_cast<uint32_t>(procs.process_index);
  o.shared_name = procs.shared_name;
  o.partitioned_writes = partitioned;
  o.barrier_timeout_ms = procs.barrier_timeout_ms;
  if (std::string e = o.validate(preset); !e.empty()) return usage_error(f, e);
  o.timeline = timeline.recorder();
  HashRunResult r;
  {
    Progress progress("latchwork hash", "runs", 1, kProgressSeconds);
    r = run_hash(preset, o);
  }
  const int written = timeline.finish("latchwork hash", kExitOk);
  if (json) std::printf("%s\n", r.to_json().c_str());
  else print_result(r, preset);
  if (!r.ok()) {
    std::fprintf(stderr, "latchwork hash: %s\n", r.error.c_str());
    return kExitCheckFailed;
  }
  return written;
}

}  // namespace lw::tool
