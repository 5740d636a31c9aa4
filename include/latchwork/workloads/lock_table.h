// The distributed lock table of ALock §6: locks partitioned over symmetric
// nodes; each operation is one lock() and one unlock() of a lock chosen
// uniformly, on the worker's own node with probability locality_percent,
// else uniformly on the others. Runs on every backend; on verbs, each
// `latchwork node` process runs the workers of its own node.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "latchwork/config/cluster_config.h"
#include "latchwork/locks/lock.h"
#include "latchwork/runtime/op_stats.h"

namespace lw {
class Timeline;
}  // namespace lw

namespace lw::workloads {

struct LockTableOptions {
  // The sim backend records its run into this timeline if set (sim/timeline.h).
  Timeline* timeline = nullptr;
  // backend, memory_nodes (= nodes), memory_node_threads (= threads per
  // node), semantics, NIC profile, seed. compute_nodes' workers stay idle.
  ClusterConfig cluster;
  locks::LockTableConfig table;   // kind, locks, budgets, variant
  uint32_t locality_percent = 95; // ALock §6: 100 / 95 / 90 / 85
  uint64_t ops_per_worker = 2'000;
  Nanos cs_ns = 0;                // CPU time inside the critical section
  // Inside each critical section the holder increments a counter next to
  // the lock (CPU for a local lock, READ + WRITE for a remote one); at the
  // end every counter must equal its lock's acquisitions.
  bool verify = true;
  // verbs: which node this process is (its workers run), and how many there are.
  uint32_t process_index = 0;
  // Called (serialized) each time another twentieth of this process's
  // operations completed: (done, total). Reporting only; may be empty.
  std::function<void(uint64_t, uint64_t)> progress = {};
  std::string validate() const;   // "" or a message naming the field
  // Every field but `progress` and `timeline` (they only watch): equal options make the same
  // run (repro shares runs). A field added must be compared here (lock_table.cpp
  // asserts the size).
  bool operator==(const LockTableOptions& o) const {
    return cluster == o.cluster && table == o.table && locality_percent == o.locality_percent &&
           ops_per_worker == o.ops_per_worker && cs_ns == o.cs_ns && verify == o.verify &&
           process_index == o.process_index;
  }
};

struct LockTableResult {
  uint64_t ops = 0;                 // completed lock+unlock pairs
  double mops = 0;                  // million ops per (virtual or wall) second
  Nanos elapsed_ns = 0;
  Histogram latency;                // per op (lock + unlock), ns
  Histogram local_latency, remote_latency;
  locks::LockClientStats totals;    // summed over workers
  uint64_t failures = 0;            // lock() calls that returned an error
  bool exact = true;                // verify: every counter matched
  std::string mismatch;             // the first counter that did not
  std::map<std::string, double> nic;  // the timing model's counters (sim)
};

// Runs the table; "" or a message (bad options, set-up failed). A run whose
// counters disagree is not an error: out->exact says so.
std::string run_lock_table(const LockTableOptions& o, LockTableResult* out);

}  // namespace lw::workloads
