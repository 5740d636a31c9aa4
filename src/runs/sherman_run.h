// The B+Tree experiment of Sherman §5 and SMART §6.2.3: a tree (Sherman,
// Sherman+, SMART-BT or FG+) bulk-loaded host-side 80% full, then a workload
// on every compute coroutine for a measured window of virtual time after a
// warm-up (or a fixed number of operations per coroutine on real backends).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "latchwork/config/cluster_config.h"
#include "runs/perf.h"
#include "latchwork/structures/sherman/tree.h"
#include "latchwork/workloads/tree_mix.h"

namespace lw {

class Timeline;


struct ShermanRunOptions {
  // The sim backend records its run into this timeline if set (sim/timeline.h).
  Timeline* timeline = nullptr;
  std::string index = "sherman";  // the preset name (for reports)
  sherman::TreeConfig tree;
  TreeMix mix = TreeMix::kWriteIntensive;
  double zipf = 0.99;             // 0 = uniform
  uint64_t keys = 1u << 20;       // loaded keys (the papers load 10^9; scaled down)
  uint64_t range_size = 100;      // keys per range query (Fig. 12)
  Nanos warmup_ns = 1'000'000;
  Nanos measure_ns = 2'000'000;
  // >0: every coroutine runs exactly this many operations, all measured
  // (real backends); the window is ignored.
  uint64_t ops_per_worker = 0;
  uint64_t max_ops_per_worker = 10'000'000;
  // Exact final-state check: host_contents against a model of the writes
  // (needs one writer per key: partitioned writes are implied).
  bool verify = false;
  uint64_t workload_seed = 1;     // the key set and scramble
  // A windowed simulator run that reaches its event budget (ClusterConfig
  // budget) is reported as collapsed (ShermanRunResult::collapsed, error
  // "collapsed: ...", the window's completed operations) instead of
  // throwing RunBudgetExhausted. For figures: a livelocked point (operations
  // retrying until max_attempts) must not abort the others.
  bool collapse_at_budget = false;
  // >0, windowed simulator runs: the run stops this long after the window
  // closes (warm-up + measure + drain of virtual time), even with
  // operations in flight. Nothing after the window enters the window's
  // results, so they are those of the run played out; whole-run numbers
  // (tree stats, NIC counters, verbs, failures) stop at the deadline.
  // For figures: a point whose stragglers retry for tens of virtual ms
  // (Sherman's version-wrap retries on large nodes) costs that much wall
  // time without changing a value. Not with verify (in-flight writes).
  Nanos drain_ns = 0;

  // Several compute processes on one tree (verbs), as HashRunOptions.
  uint32_t processes = 1;
  uint32_t process_index = 0;
  std::string shared_name;
  uint64_t barrier_timeout_ms = 300'000;

  // Fresh keys carry their writer's global index in 16 bits (so that every
  // key has one writer): at most 2^16 writers over all processes.
  static constexpr uint64_t kMaxWriters = uint64_t{1} << 16;
  static constexpr uint32_t kBuckets = 16;  // round-trip and retry histograms: 0..14, 15 = 15+
  static constexpr uint64_t kMaxKeys = uint64_t{1} << 32;
  static constexpr uint64_t kMaxVerifiedOps = 1ull << 22;
  std::string validate(const ClusterConfig& c) const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const ShermanRunOptions&) const = default;
};

struct ShermanRunResult {
  std::string index, mix;
  uint64_t workers = 0;
  uint64_t ops = 0, lookups = 0, inserts = 0, ranges = 0, removes = 0;  // completed in the window
  uint64_t fresh_inserts = 0;  // inserts of a key that was not loaded
  uint64_t splitting_writes = 0;  // inserts that wrote at least 2 x node_bytes (a split)
  double range_keys_mean = 0;     // pairs returned per range query
  uint64_t not_found = 0;   // lookups of a loaded key that missed (a bug)
  uint64_t failed = 0;
  double mops = 0;
  double latency_us_p50 = 0, latency_us_p99 = 0, latency_us_mean = 0;
  // Fig. 14 over the window's write operations (inserts):
  std::vector<double> write_round_trip_share;  // [r] = share needing r round trips, r < 16; [15] = 15+
  double write_round_trips_p99 = 0;
  double write_bytes_no_split_median = 0;      // bytes written by writes that did not split
  double write_bytes_mean = 0;
  std::vector<double> lookup_retry_share;      // [r] = share of lookups with r retries (16)
  double lookups_without_retry = 0;
  double round_trips_per_op = 0, bytes_per_op = 0;
  double cache_hit_ratio = 0, speculative_hit_ratio = 0;
  uint32_t height = 0;
  sherman::TreeStats tree;
  std::string lock_fallback;  // why HOCL is not on-chip, when it is not
  bool lock_on_chip = false;  // the GLTs are in NIC device memory
  uint64_t verbs = 0;
  double wall_seconds = 0, load_wall_seconds = 0;
  Nanos elapsed_ns = 0;
  uint64_t trace_hash = 0;
  std::map<std::string, double> counters;  // the NIC model's
  bool verified = false;
  // The run reached its event budget (collapse_at_budget): ops, failed,
  // mops, tree and counters are set; latencies and shares are not.
  bool collapsed = false;
  // drain_ns stopped the run: workers still in an operation then (their
  // window's operations are counted; what they did after it is not).
  uint64_t drained_workers = 0;
  uint64_t keys_checked_exact = 0;
  std::string error;

  bool ok() const { return error.empty(); }
  std::string to_json() const;
  // For repro figures: Mops, latencies and the tree metrics as counters
  // ("btree.rt_share.3", "btree.write_bytes_no_split", ...).
  PerfResult to_perf_result() const;
};

ShermanRunResult run_sherman(const ClusterConfig& cluster, const ShermanRunOptions& o);

// The index presets of tree.h plus the SMART policies' time scaling that
// the hash experiment uses (smart-bt only: its policies are on). Sets
// o->index and o->tree; false for an unknown name.
bool apply_sherman_index(const std::string& index, ShermanRunOptions* o, ClusterConfig* c);

// HOCL alone (Sherman §3.2.2 Fig. 2, §5.7 Fig. 16): every compute coroutine
// acquires and releases one of `locks` locks on memory node 0, drawn by
// Zipf, for a warm-up and a measured window. The release is uncombined (a
// WRITE of its own, or nothing on a handover).
struct HoclRunOptions {
  locks::HoclConfig lock;
  uint32_t locks = 10240;
  double zipf = 0.99;
  Nanos warmup_ns = 200'000;
  Nanos measure_ns = 500'000;
  uint64_t max_ops_per_worker = 10'000'000;
  std::string validate(const ClusterConfig& c) const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const HoclRunOptions&) const = default;
};

struct HoclRunResult {
  uint64_t workers = 0, ops = 0, failed = 0;
  double mops = 0, latency_us_p50 = 0, latency_us_p99 = 0, latency_us_mean = 0;
  locks::HoclStats lock;
  bool on_chip = false;
  std::string fallback;
  uint64_t verbs = 0;
  double wall_seconds = 0;
  std::map<std::string, double> counters;
  uint64_t trace_hash = 0;
  std::string error;
  bool ok() const { return error.empty(); }
  // Counters "hocl.handover_share", "hocl.cas_per_acquisition", ...
  PerfResult to_perf_result() const;
};

HoclRunResult run_hocl(const ClusterConfig& cluster, const HoclRunOptions& o);

}  // namespace lw
