// Throughput of the remote B+-tree (Jasny et al. §4, Fig. 11): a tree of
// `keys` bulk-loaded keys in `node_bytes` nodes on one memory node; workers
// look up uniform random keys (and optionally insert) for a measurement
// window. On the simulator times are virtual and come from the NIC model.
#pragma once

#include <cstdint>
#include <string>

#include "latchwork/config/cluster_config.h"

namespace lw {

struct BTreeWorkloadOptions {
  std::string sync = "optimistic";  // unsynchronized | pessimistic | optimistic
  uint32_t node_bytes = 4096;
  uint64_t keys = 1'000'000;        // bulk-loaded: keys 2i, so odd keys are absent
  double fill = 0.8;
  // 64: latch words of neighbouring nodes differ in their low 12 bits; 0: a
  // 4 KB stride puts every latch in one NIC lock-table slot (§3.2).
  uint32_t node_padding = 64;
  uint32_t insert_percent = 0;      // inserts of absent (odd) keys; not with unsynchronized
  Nanos warmup_ns = 50'000;
  Nanos measure_ns = 500'000;
  uint64_t max_ops_per_worker = 1'000'000;
  std::string validate() const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const BTreeWorkloadOptions&) const = default;
};

struct BTreeWorkloadResult {
  uint64_t workers = 0;
  uint32_t height = 0;       // levels of the loaded tree
  uint64_t ops = 0;          // completed inside the window
  uint64_t gave_up = 0;      // operations that exhausted their retries
  uint64_t misses = 0;       // lookups of loaded keys that found nothing (must be 0)
  double mops = 0;           // million operations per second
  double node_gbps = 0;      // node bytes of root-to-leaf paths per second (GB/s)
  double mean_latency_us = 0;
  uint64_t verbs = 0;
  double wall_seconds = 0;
  std::string to_json() const;
};

BTreeWorkloadResult run_btree_workload(const ClusterConfig& cluster, const BTreeWorkloadOptions& o);

}  // namespace lw
