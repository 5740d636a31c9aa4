// A perftest-like microbenchmark: every coroutine of every compute thread
// issues one verb at a time against its own target (or one shared target),
// and the run reports throughput and latency over a measurement window.
//
// On the sim backend all times are virtual and come from the timing model
// (the calibrated NIC model with --nic cx5-100g etc.); on the threads
// backend they are wall-clock times of real threads, where the NIC-only
// mechanisms do not exist.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "latchwork/config/cluster_config.h"
#include "latchwork/verbs/work_request.h"
#include "latchwork/workloads/ycsb.h"

namespace lw {

class Timeline;

struct PerfOptions {
  // The sim backend records its run into this timeline if set (sim/timeline.h).
  Timeline* timeline = nullptr;
  Opcode op = Opcode::kRead;   // kRead, kWrite, kCas or kFaa
  uint32_t size = 8;           // bytes per READ/WRITE (atomics are 8)
  uint64_t stride = 64;        // distance between consecutive workers' targets
  uint64_t padding = 0;        // extra bytes added to every stride (Jasny Fig. 6b-ii)
  uint64_t random_region = 0;  // >0: each op targets a random aligned address in this many bytes
  bool contended = false;      // every worker targets the same address
  bool device_memory = false;  // targets in the memory node's on-chip memory
  // Where the targets live: "memory" (the memory nodes), "switch" (the
  // programmable switch's registers, Jasny Fig. 22) or "smartnic" (latch
  // RPCs to a SmartNIC's cores, Fig. 18). The last two add the device to the
  // cluster (simulator only).
  std::string target = "memory";
  Nanos warmup_ns = 100'000;   // not measured (sim: virtual ns)
  Nanos measure_ns = 500'000;  // the measurement window
  uint64_t max_ops_per_worker = 10'000'000;  // a bound on every worker's loop
  // Work requests each coroutine posts per doorbell and then awaits together
  // (SMART §3.1's bench: "posts k work requests, rings the doorbell, waits";
  // Fig. 13b). Up to Batch::kMax go in one signaled batch; a longer one posts
  // its first parts unsignaled on the same queue pair.
  uint32_t batch = 1;
  // Husky's experiment (NSDI'23 §3): the last this-many threads of every
  // compute node send CAS to one word per memory node, beside the measured
  // READ or WRITE flow of the other threads. Their rate is reported as the
  // counter cas_flow.mops; `mops` and the latencies are the measured flow's.
  uint32_t cas_flow_threads = 0;
  // DrTM+H Fig. 5's setting: the workers are the memory nodes' threads
  // (cluster memory_node_threads, one coroutine each), and each round of a
  // thread goes to the next of the other nodes in turn, so every NIC serves
  // requests and responses at once (all-to-all; never its own node).
  // Compute nodes take no part. The counter symmetric.mops_per_node is the
  // rate per machine.
  bool symmetric = false;
  // SMART Table 1: threads idle in the intervals where the schedule says so
  // (empty: always active). Indexed by thread within its compute node.
  ycsb::ActiveSchedule schedule = {};

  static constexpr uint32_t kMaxBatch = 1024;
  // With SMART's work-request throttling (cluster smart.throttling) every
  // batch goes through smart::Context::execute, whose credits bound a
  // thread's outstanding requests. SMART's post_send cannot wait for more
  // credits than C_max exist, so a batch longer than this is split into
  // parts of this size posted by sibling coroutines of the same thread (4 =
  // the smallest C_max candidate of Alg. 1); the thread still offers `batch`
  // requests per round, and the credits decide how many are in flight.
  static constexpr uint32_t kThrottledPart = 4;

  // Bounds validate_perf enforces (documented in `latchwork perf --help`).
  static constexpr uint64_t kMaxStep = 1ull << 30;          // stride + padding
  static constexpr uint64_t kMaxBufferBytes = 1ull << 30;   // workers x size: local buffers
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const PerfOptions&) const = default;
};

struct PerfResult {
  std::string op;
  uint64_t workers = 0;
  uint64_t ops = 0;  // completed inside the window
  double mops = 0;   // million operations per second
  double gbps = 0;   // payload gigabytes per second
  double latency_ns_mean = 0;
  double latency_ns_p50 = 0, latency_ns_p90 = 0, latency_ns_p99 = 0, latency_ns_p999 = 0;
  uint64_t verbs = 0;
  double wall_seconds = 0;
  double sim_verbs_per_wall_second = 0;  // simulator speed (sim only)
  std::map<std::string, double> counters;  // NIC model counters (sim only)
  uint64_t trace_hash = 0;  // identifies the execution (sim only)
  std::string error;        // a verb failed (its status); the numbers are incomplete

  bool ok() const { return error.empty(); }

  std::string to_json() const;
};

// Checks options against the cluster; "" or a message for the user.
std::string validate_perf(const ClusterConfig& cluster, const PerfOptions& o);
PerfResult run_perf(const ClusterConfig& cluster, const PerfOptions& o);

const char* perf_op_name(Opcode op);
bool parse_perf_op(const std::string& s, Opcode* out);

}  // namespace lw
