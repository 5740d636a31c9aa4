// The hash-table experiment of SMART §6.2.1 and §6.3 (Figs. 7-9, 14): RACE
// hashing or SMART-HT (the same table through the SMART runtime's policies)
// over the memory nodes, loaded host-side, then YCSB on every compute
// coroutine for a measured window of virtual time after a warm-up (or a fixed
// number of operations per coroutine, for real backends).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "latchwork/config/cluster_config.h"
#include "runs/perf.h"
#include "latchwork/workloads/ycsb.h"

namespace lw {

class Timeline;

// "race": every SMART switch off, per-thread QPs that share doorbells (RACE's
// allocation, SMART §6.2.1). "smart-ht": per-thread doorbells, throttling,
// backoff, dynamic limit and coroutine throttling. Sets c->nic.qp_policy and
// c->smart's four switches; callers override single switches afterwards.
// False for an unknown name.
bool apply_hash_table_preset(const std::string& table, ClusterConfig* c);

// The SMART policies' clocks, divided: Alg. 1's Δ (8 ms; its stable phase is
// stable_deltas Δ) and the retry-rate window (1 ms). The simulator cannot run
// the paper's seconds of traffic per point; dividing these by the same factor
// keeps the number of policy decisions per run, not the number per second.
// The backoff unit t0 stays (it is a round trip). Divisor 1 = the paper's.
inline constexpr uint32_t kDefaultPolicyTimeDivisor = 16;
void divide_policy_time(ClusterConfig* c, uint32_t divisor);
// The inverse: the factor divide_policy_time() divided c's clocks by (1:
// the paper's), after which they are the paper's again.
uint32_t undivide_policy_time(ClusterConfig* c);

struct HashRunOptions {
  // The sim backend records its run into this timeline if set (sim/timeline.h).
  Timeline* timeline = nullptr;
  std::string table = "smart-ht";  // a name for reports; the cluster carries the policies
  ycsb::Mix mix = ycsb::Mix::kWriteHeavy;
  double zipf = 0.99;
  uint64_t keys = 1u << 20;
  Nanos warmup_ns = 2'000'000;
  Nanos measure_ns = 2'000'000;
  // >0: every coroutine runs exactly this many operations and all are
  // measured (the way to run on real backends); the window is ignored.
  uint64_t ops_per_worker = 0;
  uint64_t max_ops_per_worker = 10'000'000;  // a bound on every loop
  // >0: the offered load in Mops over all coroutines; each coroutine paces
  // its operations (SMART Fig. 9: "we control the throughput by throttling").
  double offered_mops = 0;
  // >0: closed loop with think time: after each operation the coroutine
  // waits this long before drawing the next, its thread free to run the
  // others (the SMART artifact's IDLE_USEC: Figs. 9 and 11 sweep the load
  // with it). Not with offered_mops.
  Nanos think_ns = 0;
  // >0, windowed simulator runs: the run stops this long after the window
  // closes, even with operations in flight (as ShermanRunOptions::drain_ns).
  // The window's results are those of the run played out; whole-run numbers
  // (runtime stats and policies, NIC counters, verbs, failures) stop at the
  // deadline. Not with the checks (writes in flight).
  Nanos drain_ns = 0;
  // Exact final-state check (host_contents against the values written).
  bool verify = false;
  uint64_t workload_seed = 1;  // the key scramble; the run's seed drives the rest

  // Several compute processes on one table (verbs; in-process backends run
  // one). Every process runs with the same cluster, options and shared_name
  // except process_index. The table is created under shared_name
  // (race::TableConfig::shared_name); process 0 loads it; all wait at the
  // barrier shared_name + "/hash-loaded", run, wait at ".../hash-done", then
  // each checks the final state. Process I > 0 runs with the cluster's seed
  // mixed with I (its coroutines draw other operations); workload_seed,
  // the key set, is common.
  uint32_t processes = 1;
  uint32_t process_index = 0;
  std::string shared_name;  // required when processes > 1; "" = a private table
  uint64_t barrier_timeout_ms = 300'000;  // each barrier; the load phase runs inside the first
  // Each coroutine's updates go only to keys whose index (key - 1) is
  // congruent to its global writer index (process_index x workers + its
  // index) modulo the writers of all processes; lookups go anywhere. Every
  // key then has one writer, so the final state is known exactly: each key
  // of this process's writers holds the last value written (or the loaded
  // one), every other key its loaded value or one tagged by its writer, and
  // the table holds exactly the loaded keys. Implies the check (verify).
  // An update's key is its drawn key moved within its block of `writers`
  // consecutive indexes, so the mix's skew is kept only roughly.
  bool partitioned_writes = false;
  static constexpr uint32_t kMaxProcesses = 1024;

  bool checks() const { return verify || partitioned_writes; }

  static constexpr uint32_t kRetryBuckets = 16;  // 0..14 exact, 15 = 15 or more
  static constexpr uint64_t kMaxVerifiedOps = 1ull << 22;
  std::string validate(const ClusterConfig& c) const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const HashRunOptions&) const = default;
};

struct HashRunResult {
  std::string table, mix;
  uint64_t workers = 0;
  uint64_t ops = 0, lookups = 0, updates = 0;  // completed in the window
  uint64_t not_found = 0;  // lookups of a loaded key that missed (a bug)
  uint64_t failed = 0;     // operations that returned a non-ok status
  double mops = 0;
  double latency_us_p50 = 0, latency_us_p99 = 0, latency_us_mean = 0;
  double retries_per_update = 0;           // the window's updates
  std::vector<uint64_t> update_retries;    // updates with 0, 1, ... retries (kRetryBuckets)
  double updates_without_retry = 0;        // share of updates
  double round_trips_per_op = 0, bytes_per_op = 0, work_requests_per_op = 0;
  // smart::Runtime::stats() over the whole run (warm-up included).
  double runtime_retries_per_update = 0, runtime_round_trips_per_op = 0;
  // Where the policies ended, averaged over compute threads.
  double credits_limit_mean = 0, t_max_us_mean = 0, c_max_mean = 0;
  uint64_t verbs = 0;
  double wall_seconds = 0, load_wall_seconds = 0;
  double sim_verbs_per_wall_second = 0;
  Nanos elapsed_ns = 0;
  uint64_t trace_hash = 0;
  std::map<std::string, double> counters;  // the NIC model's
  uint32_t processes = 1, process_index = 0;
  uint64_t keys_checked_exact = 0;  // keys of this process's writers (partitioned writes)
  // drain_ns stopped the run: coroutines still in an operation then.
  uint64_t drained_workers = 0;
  bool verified = false;     // the final-state check ran and passed
  std::string error;         // a failed operation, a missed lookup, or the check's finding

  bool ok() const { return error.empty(); }
  std::string to_json() const;
  // For repro figures: Mops, latencies, and the hash metrics as counters
  // ("hash.retries_per_update", "hash.retry_share.N", ...).
  PerfResult to_perf_result() const;
};

// While node memory reuse is in effect (repro), an earlier point's image of
// the same load phase is installed in place of the inserts (race/load_image_key.h).
HashRunResult run_hash(const ClusterConfig& cluster, const HashRunOptions& o);

}  // namespace lw
