// The transaction experiment (DrTM+H §5-§6, SMART §6.2.2): build the store
// for a workload, run coordinators for a measured window of virtual time
// after a warm-up (or a fixed number of transactions each, on real
// backends), and report throughput, latency percentiles, aborts and the
// per-phase breakdown; optionally check the final state.
//
// Placement: symmetric designs (DesignConfig::disaggregated false) run their
// coordinators on the memory nodes' threads (ClusterConfig::
// memory_node_threads x coroutines_per_thread per node), like DrTM+H's
// machines that are both client and server; disaggregated ones on the
// compute nodes' coroutines.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "latchwork/config/cluster_config.h"
#include "latchwork/txn/design.h"
#include "latchwork/txn/history.h"
#include "latchwork/txn/workload.h"

namespace lw {
class Timeline;
}  // namespace lw

namespace lw::txn {

struct TxnRunOptions {
  // The sim backend records its run into this timeline if set (sim/timeline.h).
  Timeline* timeline = nullptr;
  DesignConfig design;
  // SMART-DTX's throttle (Alg. 1) runs its update phase within the warm-up:
  // delta_ns is cut to warmup_ns / candidates when longer.
  Nanos warmup_ns = 100'000;
  Nanos measure_ns = 300'000;
  // > 0: every coordinator runs exactly this many transactions (committed
  // or given up) and all are measured; the window is ignored.
  uint64_t txns_per_worker = 0;
  uint64_t max_txns_per_worker = 10'000'000;
  uint32_t max_attempts = 64;       // retries of one transaction before it gives up
  Nanos retry_backoff_ns = 1'000;   // the unit of retry_delay() between attempts
  // >0: closed loop with think time: each coordinator idles this long after
  // every transaction (the first time a random part of it, so that they do
  // not run in step), its thread free for the others; the SMART artifact's
  // IDLE_USEC, with which Fig. 11 sweeps the load.
  Nanos think_ns = 0;
  // After the run: the workload's invariants, every backup equal to its
  // primary (after each coordinator drained its log reclaims), every lock free.
  bool verify = false;
  CommitSink on_commit;             // every committed transaction (checks)
  uint64_t log_ring_bytes = 16 << 10;
  // Location caches start full (Engine::Options::warm_cache).
  bool warm_cache = false;

  // Several node processes (verbs `latchwork node`): process I runs the
  // coordinators of node I; store built by all alike under shared_name.
  uint32_t processes = 1;
  uint32_t process_index = 0;
  std::string shared_name;
  uint64_t barrier_timeout_ms = 300'000;

  std::string validate(const ClusterConfig& c) const;
  // Every field but `on_commit` and `timeline` (they watch the run, they do not change it):
  // equal options make the same run (repro shares runs). A field added must
  // be compared here (run.cpp asserts the size).
  bool operator==(const TxnRunOptions& o) const {
    return design == o.design && warmup_ns == o.warmup_ns && measure_ns == o.measure_ns &&
           txns_per_worker == o.txns_per_worker && max_txns_per_worker == o.max_txns_per_worker &&
           max_attempts == o.max_attempts && retry_backoff_ns == o.retry_backoff_ns && think_ns == o.think_ns &&
           verify == o.verify &&
           log_ring_bytes == o.log_ring_bytes && warm_cache == o.warm_cache &&
           processes == o.processes && process_index == o.process_index && shared_name == o.shared_name &&
           barrier_timeout_ms == o.barrier_timeout_ms;
  }
};

struct TxnRunResult {
  std::string design, workload, phases;
  uint64_t coordinators = 0;
  uint64_t committed = 0, aborted = 0, gave_up = 0, failed = 0;  // in the window
  std::vector<uint64_t> committed_by_type;
  double mtps = 0;                  // committed M transactions per second (all nodes)
  double abort_rate = 0;            // aborted attempts / attempts
  double latency_us_p50 = 0, latency_us_p90 = 0, latency_us_p99 = 0, latency_us_mean = 0;
  // Mean µs per committed transaction in each phase (Fig. 15).
  double phase_us[static_cast<size_t>(Phase::kCount)] = {};
  double round_trips_per_txn = 0, rpcs_per_txn = 0, bytes_per_txn = 0;
  double cache_hit_rate = 0;
  TxnEffect effect;                 // summed over committed transactions (whole run)
  uint64_t verbs = 0;
  Nanos elapsed_ns = 0;
  double wall_seconds = 0, load_wall_seconds = 0;
  uint64_t trace_hash = 0;
  std::map<std::string, double> counters;
  bool verified = false;
  std::string error;                // a failed operation or a failed check
  // The run could not start on these inputs (a store larger than the memory
  // nodes): `error` says which to raise; nothing ran.
  bool input_error = false;

  bool ok() const { return error.empty(); }
  std::string to_json() const;
};

// How long a coordinator waits before retrying an aborted transaction:
// uniform in [0, base x 2^min(attempt, 8)) ("full jitter"). The window
// doubles so that retries thin out under contention, and the whole wait is
// random so that two transactions that aborted each other (FORD's and
// FaSST's locks taken at execution: each holds what the other needs) do not
// retry in step forever. A delay that grew linearly with a jitter of one
// unit kept such pairs in step: `check --structure txn --design ford
// --workload tpcc` hung on 20 of 1,000 seeds (seed 68 among them).
Nanos retry_delay(Rng& rng, Nanos base, uint32_t attempt);

TxnRunResult run_txn(const ClusterConfig& cluster, const TxnWorkload& workload, const TxnRunOptions& o);

// A cluster for a design: symmetric designs get `nodes` memory nodes with
// `threads` threads each (and one idle compute node); disaggregated ones
// `nodes` compute nodes x `threads` and `memory_nodes` memory nodes. QP
// policy: FORD+ per-thread-qp (threads' QPs on the driver's shared
// doorbells, SMART §2.2), SMART-DTX per-thread-doorbell with SMART's
// policies (their clocks divided as hash runs'; run_txn further fits the
// throttle's update phase into the warm-up), symmetric designs the default.
ClusterConfig txn_cluster(const DesignConfig& d, const std::string& nic_profile, uint32_t nodes, uint32_t threads,
                          uint32_t coroutines, uint32_t memory_nodes, uint64_t memory_node_bytes);

}  // namespace lw::txn
