// The one typed, validated description of a run: the cluster's shape, the
// backend, the RDMA semantics, the timing model and the seed.
//
// Loaded from JSON (see configs/*.json), overridden by command-line flags, and
// validated before anything runs. Nothing reads environment variables.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "latchwork/base/layout.h"
#include "latchwork/base/remote_ptr.h"
#include "latchwork/config/cluster_file.h"
#include "latchwork/config/memory_config.h"
#include "latchwork/config/network_devices.h"
#include "latchwork/config/nic_profile.h"
#include "latchwork/config/semantics.h"
#include "latchwork/config/smart_config.h"

namespace lw {

// The fixed-cost timing model of the simulator (a calibrated NIC model is
// pluggable behind the same interface).
struct TimingConfig {
  Nanos one_way_ns = 900;          // requester NIC to responder memory, one way
  double bytes_per_ns = 12.5;      // link bandwidth (100 Gbit/s)
  Nanos jitter_ns = 100;           // uniform extra latency per message
  Nanos post_cpu_ns = 60;          // CPU cost of posting one work request (doorbell, WQE)
  Nanos poll_cpu_ns = 40;          // CPU cost of polling a completion and resuming a coroutine
  Nanos cpu_access_ns = 20;        // CPU cost of a load/store/atomic on a memory node
  Nanos pcie_ns = 250;             // responder NIC to host memory (one PCIe transaction)
  Nanos device_memory_ns = 40;     // responder NIC to on-chip device memory
  Nanos switch_pipeline_ns = 200;  // one pass through a programmable switch's pipeline
  Nanos smartnic_rpc_ns = 400;     // a SmartNIC core serving one latch RPC
  double crc64_ns_per_byte = 1.0;       // CPU: CRC-64 of one byte (assumed, ~1 GB/s table-driven)
  double farm_check_ns_per_line = 2.0;  // CPU: one FaRM line version checked (assumed)
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const TimingConfig&) const = default;
};

// Which timing model the simulator uses: the fixed costs above ("simple"), or
// the calibrated NIC model with a named profile (configs/nic/*.json).
struct NicConfig {
  std::string profile = "simple";  // "simple", a built-in profile name, or a JSON file path
  QpPolicy qp_policy = QpPolicy::kPerThreadDoorbell;
  NicMechanisms mechanisms;
  std::map<std::string, double> overrides;  // parameter -> value, on top of the profile

  bool calibrated() const { return profile != "simple"; }
  // The profile with the overrides applied; an error message or "".
  std::string resolve(NicProfile* out) const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const NicConfig&) const = default;
};

struct ThreadsConfig {
  // Copy the lines of a multi-line READ in random order with yields between
  // them, and run NIC atomics as a separate load and store.
  bool adversarial = false;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const ThreadsConfig&) const = default;
};

// How the verbs backend carries a request's fence flag (WorkRequest::fence:
// wait for every earlier READ and atomic on the queue pair, IBA 10.8.3.3).
//   kNic:    IBV_SEND_FENCE, the NIC holds the request.
//   kEngine: the engine holds it, posting it once those have completed.
//            Linux 6.1 Soft-RoCE (rdma_rxe) can park a fenced request for
//            good although nothing earlier is outstanding (docs/verbs-backend.md).
//   kAuto:   kEngine on Soft-RoCE (vendor id 0xFFFFFF), kNic elsewhere.
enum class FenceMode : uint8_t { kAuto, kNic, kEngine };
inline constexpr const char* kFenceModeNames[] = {"auto", "nic", "engine"};
bool parse_fence_mode(const std::string& s, FenceMode* out);
const char* to_string(FenceMode m);

// The verbs backend: real RDMA NICs through rdma-core, memory nodes being
// `latchwork memnode` processes listed in a cluster file.
struct VerbsConfig {
  std::string cluster_file;        // path; required by the verbs backend
  ClusterFile cluster;             // its contents, loaded by load_cluster_file()
  uint32_t connect_timeout_ms = 10'000;  // reach and set up each memory node
  uint32_t op_timeout_ms = 10'000;       // a work request without completion -> kTransport
  uint64_t staging_bytes = 8ull << 20;   // registered bounce buffer per thread
  FenceMode fence = FenceMode::kAuto;    // JSON "fence": "auto", "nic" or "engine"
  // A transport failure (memory node gone, retries exhausted) prints what
  // happened and ends the process with exit code 1; false: the requests
  // complete with kTransport and the program decides.
  bool exit_on_transport_error = true;
  // Symmetric nodes (`latchwork node`, docs/verbs-backend.md): this process
  // serves memory node `local_node` itself (its memnode server runs in this
  // process) and runs that node's memory-node threads, whose CPU loads,
  // stores and atomics reach the node's registered memory directly. -1: a
  // compute process. With local_node set, every host-side allocation is
  // named by its position in this process's sequence (every node process
  // runs the same set-up, so all get the same addresses), and run() starts
  // and ends with a barrier of all memory_nodes processes, each bounded by
  // barrier_timeout_ms. Set by `latchwork node --index`; not part of the
  // JSON config (it names a process, not the cluster).
  int32_t local_node = -1;
  uint32_t barrier_timeout_ms = 600'000;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const VerbsConfig&) const = default;
};

// Two-sided RPC (verbs/rpc.h): the CPU that serves calls on each memory node.
// DrTM+H §3 and Fig. 3(b) measure RPC against one-sided verbs; the simulator
// charges each request RpcHandler::cpu_ns on one of these cores plus the
// SEND/RECV messages on the NIC model. JSON: the "rpc" object.
// Who serves a memory node's calls (JSON rpc.servers, flag --rpc-servers):
//   kCores    cores_per_node dedicated polling cores (a memory server).
//   kWorkers  the node's own worker threads (memory_node_threads >= 1), each
//             between its coroutines' steps, as DrTM+H's and FaSST's event
//             loops do (DrTM+H §4.1: each worker thread "handles RPC
//             requests" besides running transactions). A call goes to the
//             thread with the caller's thread index modulo the node's
//             threads (FaSST's thread-to-thread connections) and takes that
//             thread's CPU: its coroutines wait while it serves. Simulator only.
enum class RpcServers : uint8_t { kCores, kWorkers };
inline constexpr const char* kRpcServersNames[] = {"cores", "workers"};
bool parse_rpc_servers(const std::string& s, RpcServers* out);
const char* to_string(RpcServers s);

struct RpcConfig {
  RpcServers servers = RpcServers::kCores;
  uint32_t cores_per_node = 2;      // kCores: polling cores serving calls, per memory node (>= 1)
  uint32_t queue_capacity = 4096;   // requests waiting or in service, per node; beyond: kQueueFull
  // recv + reply are fitted (with the echo handler's 200 ns) to DrTM+H §3.1:
  // SEND/RECV RPC peaks at 79 M reqs/s per machine of two NICs and 24 cores,
  // i.e. about 38 M per NIC from 24 cores, 630 ns of core time per call
  // (latchwork repro drtmh-fig3b).
  Nanos recv_cpu_ns = 230;          // polling a RECV completion, re-posting the buffer, dispatch
  Nanos reply_cpu_ns = 200;         // building and posting the reply SEND (WQE + doorbell MMIO)

  static constexpr uint32_t kMaxCores = 256;
  static constexpr uint32_t kMaxQueueCapacity = 1u << 20;
  // An error message naming the bad field, or "".
  std::string validate() const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const RpcConfig&) const = default;
};

// Bounds on one simulator run (issue 11 item 3: no command runs unbounded).
// A run that reaches a budget stops and reports it (RunStats::budget_exhausted);
// the latchwork command exits with 1 and names the flag or field to raise.
// The defaults are far above every run in the repository: the largest,
// `latchwork repro all`, takes under 800 thousand events and 13 virtual ms per
// run. JSON: the "budget" object; flags: --max-events, --max-virtual-ms.
struct RunBudget {
  // Simulator events per run, >= 1. Default 2^28 (about 268 million: a few
  // minutes of wall time at about a million events per second).
  uint64_t max_events = uint64_t{1} << 28;
  // Virtual time per run in nanoseconds, >= 1. Default 1 hour.
  Nanos max_virtual_ns = 3'600ull * 1'000'000'000;
  // A progress line on stderr every this many wall-clock seconds while a run
  // lasts (0: never). Printing only: no decision reads the wall clock.
  uint32_t progress_seconds = 10;

  static constexpr uint64_t kMaxEvents = uint64_t{1} << 48;
  static constexpr Nanos kMaxVirtualNs = Nanos{1} << 62;
  static constexpr uint32_t kMaxProgressSeconds = 86'400;
  // An error message naming the bad field, or "".
  std::string validate() const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const RunBudget&) const = default;
};

struct ClusterConfig {
  std::string backend = "sim";  // sim | threads | verbs
  uint32_t compute_nodes = 1;
  uint32_t threads_per_node = 1;
  uint32_t coroutines_per_thread = 1;
  uint32_t memory_nodes = 1;
  uint32_t memory_node_threads = 0;  // CPU threads on each memory node (local access)
  uint64_t memory_node_bytes = 64ull << 20;
  uint64_t device_memory_bytes = 256ull << 10;  // on-chip memory per memory node
  MemoryConfig memory;  // DRAM or persistent memory (sim timing only); JSON "memory"
  uint32_t queue_depth = 256;  // outstanding work requests per queue pair
  uint64_t seed = 1;
  std::string semantics_profile = "spec";
  Semantics semantics = Semantics::spec();
  TimingConfig timing;
  NetworkConfig network;  // smart network hardware (sim only)
  NicConfig nic;
  RpcConfig rpc;
  SmartConfig smart;  // runtime policies (runtime/smart.h)
  ThreadsConfig threads;
  VerbsConfig verbs;
  RunBudget budget;  // simulator runs only

  // Limits that validation enforces (one place for each bound; the flags,
  // the JSON reader and --help take them from here).
  static constexpr uint32_t kMaxNodes = 1024;
  static constexpr uint32_t kMaxThreadsPerNode = 1024;
  static constexpr uint32_t kMaxCoroutinesPerThread = 1024;
  // compute_nodes x threads_per_node x coroutines_per_thread: every worker is
  // a coroutine frame and its buffers in this process.
  static constexpr uint64_t kMaxWorkers = 1ull << 16;
  // A node's first 4096 bytes are reserved (no valid address is null;
  // NodeMemory::kReservedBytes, checked by a static_assert), so a node needs
  // at least one more page.
  static constexpr uint64_t kMinMemoryNodeBytes = 8192;
  // Simulated memory is virtual (mapped on demand): at most 16 GiB per node
  // and 16 GiB over all memory nodes (memory_nodes x memory_node_bytes).
  static constexpr uint64_t kMaxMemoryNodeBytes = 1ull << 34;
  static constexpr uint64_t kMaxTotalMemoryBytes = 1ull << 34;
  static constexpr uint64_t kMaxDeviceMemoryBytes = 1ull << 30;
  // Outstanding work requests per queue pair. Every coroutine of a thread
  // may have one submission outstanding on its thread's queue pair, so the
  // queue must hold coroutines_per_thread x (work requests per submission);
  // the library's operations (latches, optimistic blocks, tuples, B-tree)
  // have at most kMaxBatchWrs work requests outstanding per coroutine (a
  // batch of up to 3 and an unsignaled unlatch). Commands running them check
  // check_queue_depth(kMaxBatchWrs); validate() checks one per coroutine.
  static constexpr uint32_t kMaxBatchWrs = 4;
  static constexpr uint32_t kMinQueueDepth = 1;
  static constexpr uint32_t kMaxQueueDepth = 1u << 16;
  // Latencies and windows of the timing model and the semantics (virtual
  // ns): at most one second each, so that no sum of them can overflow the
  // simulator's clock.
  static constexpr Nanos kMaxLatencyNs = 1'000'000'000;
  // The semantics' relaxation windows (read_spread_ns, write_line_gap_ns,
  // atomic_window_ns): at most 1 ms, a thousand round trips (the model's
  // defaults are hundreds of ns; `check` sweeps up to 30 us). Wider windows
  // only make latches spin until they give up.
  static constexpr Nanos kMaxWindowNs = 1'000'000;
  // Config, cluster and NIC profile files larger than this are refused
  // before they are read.
  static constexpr uint64_t kMaxConfigFileBytes = lw::kMaxConfigFileBytes;

  uint64_t total_workers() const {
    return total_compute_threads() * coroutines_per_thread;
  }
  // "" when every thread's queue pair holds `wrs_per_coroutine` outstanding
  // work requests of each of its coroutines, else a message naming
  // queue_depth and coroutines_per_thread.
  std::string check_queue_depth(uint64_t wrs_per_coroutine) const;

  // Smart network hardware is numbered after the memory nodes (network_devices.h).
  static constexpr NodeId kNoNode = static_cast<NodeId>(~0u);
  NodeId switch_node() const {
    return network.programmable_switch.enabled ? static_cast<NodeId>(memory_nodes) : kNoNode;
  }
  NodeId smartnic_node() const {
    return network.smartnic.enabled
               ? static_cast<NodeId>(memory_nodes + (network.programmable_switch.enabled ? 1 : 0))
               : kNoNode;
  }
  uint32_t device_nodes() const {
    return (network.programmable_switch.enabled ? 1u : 0u) + (network.smartnic.enabled ? 1u : 0u);
  }

  uint64_t total_compute_threads() const {
    return uint64_t{compute_nodes} * threads_per_node;
  }
  // Every thread slot thread_index() numbers: compute threads, then
  // memory-node threads.
  uint64_t total_threads() const {
    return total_compute_threads() + uint64_t{memory_nodes} * memory_node_threads;
  }

  // Returns an empty string if valid, else a message naming the bad field.
  std::string validate() const;

  // JSON round trip. from_json starts from `base`, so a file only needs the
  // fields it changes; unknown keys are errors (a typo must not pass silently).
  std::string to_json() const;
  static std::string from_json(const std::string& text, ClusterConfig* inout);
  static std::string from_json_file(const std::string& path, ClusterConfig* inout);

  // Backend verbs: reads verbs.cluster_file into verbs.cluster and sets
  // memory_nodes from it. Returns an error message or "".
  std::string load_cluster_file();

  // Selects a semantics profile by name, replacing all switches.
  std::string set_profile(const std::string& name);
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const ClusterConfig&) const = default;
};

}  // namespace lw
