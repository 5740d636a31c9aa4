// Throughput of the remote tuple store under one synchronization scheme
// (Jasny et al. §3.4-3.5, §4.4-4.6): workers read or update random tuples
// (uniform or Zipf) for a measurement window; on the simulator times are
// virtual and come from the NIC model. "unsynchronized" (a bare READ, or a
// READ and a WRITE) is the upper bound of Fig. 9.
#pragma once

#include <cstdint>
#include <string>

#include "latchwork/config/cluster_config.h"
#include "latchwork/sync/latch_layout.h"

namespace lw {

struct TupleWorkloadOptions {
  std::string scheme = "pessimistic-async";  // a tuple_scheme_names() entry or "unsynchronized"
  LatchLayout layout = LatchLayout::kHeader;  // pessimistic schemes
  uint32_t tuple_bytes = 256;
  uint64_t tuples = 20000;
  uint32_t read_percent = 100;
  double zipf = 0;               // 0 = uniform
  Nanos warmup_ns = 50'000;
  Nanos measure_ns = 500'000;
  uint64_t max_ops_per_worker = 1'000'000;
  std::string validate() const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const TupleWorkloadOptions&) const = default;
};

struct TupleWorkloadResult {
  uint64_t workers = 0;
  uint64_t ops = 0;          // completed inside the window
  uint64_t gave_up = 0;      // operations that exhausted their retries
  double mops = 0;           // million operations per second
  double mean_latency_us = 0;
  uint64_t verbs = 0;
  double wall_seconds = 0;
  std::string to_json() const;
};

TupleWorkloadResult run_tuple_workload(const ClusterConfig& cluster, const TupleWorkloadOptions& o);

}  // namespace lw
