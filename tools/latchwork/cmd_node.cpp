// `latchwork node`: a symmetric node of the verbs backend (ALock §4). The
// process serves its registered memory like `latchwork memnode` (the same
// server, on a thread of this process) and runs the node's worker threads,
// which reach their own node's memory with CPU loads, stores and atomics and
// every node's (their own too, through the NIC's loopback) with verbs.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "cluster_flags.h"
#include "commands.h"
#include "latchwork/backends.h"
#include "latchwork/txn/design.h"
#include "latchwork/verbs/worker.h"
#include "latchwork/workloads/lock_table.h"
#include "lock_report.h"
#include "node_cpu_nic.h"
#include "node_txn.h"
#include "parse_bytes.h"
#ifdef LW_HAVE_VERBS
#include "latchwork/rdma/memnode.h"
#endif

namespace lw::tool {

namespace {

// How long the in-process memory node may take to map and register memory.
constexpr auto kServeStartTimeout = std::chrono::seconds(120);


void print_node_result(const workloads::LockTableOptions& o, const workloads::LockTableResult& r, bool json) {
  if (json) std::printf("%s\n", lock_result_json(o, r).dump(2).c_str());
  else print_lock_result(o, r);
}

}  // namespace

int cmd_node(int argc, const char* const* argv) {
  cli::FlagSet f(
      "latchwork node",
      "Runs one symmetric node of the verbs backend (ALock, Baran et al. SPAA'24 §4): the process "
      "serves its registered memory to every node, as `latchwork memnode --listen ADDRESS` would "
      "(ADDRESS being entry --index of the cluster file), and runs this node's worker threads. A "
      "worker reaches its own node's memory with CPU loads, stores and atomics and every node's, "
      "its own included (through the NIC's loopback), with one-sided verbs. Start one process per "
      "cluster-file entry, each with its --index and the same other flags: they connect to each "
      "other, meet at a barrier, run, and each prints its node's result. Host-side set-up is "
      "symmetric: every process allocates the same sequence and gets the same addresses. "
      "--workload lock-table runs the distributed lock table of ALock §6 (as `latchwork lock`); "
      "--workload cpu-nic checks that CPU accesses and NIC verbs reach the same memory and counts "
      "updates lost between CPU and NIC atomics; --workload smallbank|tpcc|tatp|tpce runs the transaction "
      "engine (DrTM+H) with a symmetric --design (drtmh, farm, drtmr, fasst): every process builds the "
      "same store, serves the engine's RPC handlers from its memory node, runs --txns transactions per "
      "coordinator and checks the final state over all processes (SmallBank: total balance == initial + "
      "every process's committed deltas). Exits 0 on success, 1 when a check failed or a "
      "peer did not come, 2 on bad input.");
  std::string cluster, device, size = "64M", huge = "auto", workload = "lock-table";
  int64_t index = 0, port = 1, gid_index = -1;
  int64_t threads = 1, coroutines = 1, connect_timeout_ms = 30'000, op_timeout_ms = 10'000,
          barrier_timeout_ms = 600'000;
  uint64_t seed = 1;
  f.add_string("cluster", &cluster, "JSON cluster file: one entry per node process, in --index order (required)");
  f.add_int("index", &index, "this process's entry in the cluster file: the node it serves and runs (required)", 0,
            ClusterFile::kMaxMemoryNodes - 1);
  f.add_string("device", &device, "RDMA device (default: the cluster file's, else the first)");
  f.add_int("ib-port", &port, "device port (default: the cluster file's, else 1)", 1, 255);
  f.add_int("gid-index", &gid_index, "GID index (default: the cluster file's; -1: RoCE v2 with an IPv4 address)",
            -1, 1023);
  f.add_string("size", &size, "registered memory this node serves, e.g. 64M or 1G, in [1M, 1T]");
  f.add_enum("huge-pages", &huge, {"auto", "on", "off"}, "back the memory with 2 MiB pages");
  f.add_enum("workload", &workload, {"lock-table", "cpu-nic", "smallbank", "tpcc", "tatp", "tpce"},
             "what the node's workers run");
  f.add_int("threads", &threads, "worker threads on this node (memory-node threads)", 1, 1024);
  f.add_int("coroutines", &coroutines, "coroutines per worker thread", 1, 1024);
  f.add_uint("seed", &seed, "seed of the workers' random streams");
  f.add_int("connect-timeout-ms", &connect_timeout_ms,
            "how long to keep trying to reach each node (the others may still be starting)", 10, 3'600'000);
  f.add_int("op-timeout-ms", &op_timeout_ms, "a request without completion this long fails the run", 10,
            3'600'000);
  std::string verbs_fence = "auto";
  f.add_enum("verbs-fence", &verbs_fence, {std::begin(kFenceModeNames), std::end(kFenceModeNames)},
             "a fenced request waits in the NIC (IBV_SEND_FENCE), in the engine, or auto (engine on "
             "Soft-RoCE, whose fence can stall)");
  f.add_int("barrier-timeout-ms", &barrier_timeout_ms,
            "how long to wait for the other nodes at each barrier (start, end, exit)", 10, 3'600'000);
  // The lock table (include/latchwork/workloads/lock_table.h), as `latchwork lock`.
  workloads::LockTableOptions lt;
  std::string lock = locks::to_string(lt.table.kind), variant = locks::to_string(lt.table.variant);
  uint64_t locks = lt.table.locks, max_spins = lt.table.max_spins, ops = lt.ops_per_worker, cs_ns = lt.cs_ns;
  int64_t local_budget = lt.table.local_budget, remote_budget = lt.table.remote_budget,
          locality = lt.locality_percent;
  bool verify = lt.verify, json = false;
  // The transaction workloads (node_txn.h).
  NodeTxnOptions tx;
  f.add_enum("design", &tx.design, txn::design_names(),
             "txn workloads: the design; symmetric ones only (drtmh, farm, drtmr, fasst)");
  f.add_uint("txns", &tx.txns, "txn workloads: transactions per coordinator (thread x coroutine)", 1, 1'000'000);
  f.add_uint("records", &tx.records,
             "txn workloads: records per node (smallbank accounts, tatp subscribers, tpce customers)", 16,
             10'000'000);
  uint64_t warehouses = tx.warehouses;
  f.add_uint("warehouses", &warehouses, "tpcc: warehouses per node", 1, 64);
  f.add_enum("lock", &lock, {"alock", "spin", "spin-local-cpu", "spin-write-unlock", "mcs"}, "lock-table: the lock");
  f.add_enum("variant", &variant, {"correct", "victim-after-check", "no-victim"},
             "lock-table: ALock variant (the broken ones are for the checkers)");
  f.add_uint("locks", &locks, "lock-table: locks, lock i on node i % nodes", 1, locks::LockTableConfig::kMaxLocks);
  f.add_int("locality", &locality, "lock-table: percent of operations on a lock of the worker's own node", 0, 100);
  f.add_uint("ops", &ops, "operations per worker (lock-table: lock + unlock; cpu-nic: increments of each counter)",
             1, 10'000'000);
  f.add_uint("cs-ns", &cs_ns, "lock-table: CPU time inside each critical section", 0, 1'000'000);
  f.add_int("local-budget", &local_budget, "lock-table: ALock passes within the local cohort", 1,
            locks::LockTableConfig::kMaxBudget);
  f.add_int("remote-budget", &remote_budget, "lock-table: ALock passes within the remote cohort", 1,
            locks::LockTableConfig::kMaxBudget);
  f.add_uint("max-spins", &max_spins, "lock-table: bound on every wait of one lock() or unlock()", 1,
             uint64_t{1} << 40);
  f.add_bool("verify", &verify,
             "lock-table: count in a counter next to each lock inside its critical sections and check "
             "that every counter equals its acquisitions over all nodes; txn workloads: check the final "
             "state (on unless --verify=false)");
  f.add_bool("json", &json, "lock-table and txn workloads: print the result as one JSON object");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;

  // Bad input is reported first (exit 2), with or without the verbs backend.
  if (cluster.empty()) return usage_error(f, "--cluster FILE is required (one entry per node process)");
  if (!f.was_set("index")) return usage_error(f, "--index is required: this process's entry in the cluster file");
  uint64_t bytes = 0;
  if (std::string e = parse_bytes(size, &bytes); !e.empty()) return usage_error(f, "--size: " + e);
  if (bytes < (1u << 20) || bytes > kMaxNodeProcessBytes) return usage_error(f, "--size must be in [1M, 1T], got " + size);
  ClusterConfig c;
  c.backend = "verbs";
  c.verbs.cluster_file = cluster;
  if (std::string e = c.load_cluster_file(); !e.empty()) return usage_error(f, e);
  ClusterFile& cf = c.verbs.cluster;
  if (static_cast<uint64_t>(index) >= cf.memory_nodes.size())
    return usage_error(f, "--index " + std::to_string(index) + " must be below the " +
                              std::to_string(cf.memory_nodes.size()) + " nodes that " + cluster + " lists");
  if (f.was_set("device")) cf.device = device;
  if (f.was_set("ib-port")) cf.ib_port = static_cast<uint32_t>(port);
  if (f.was_set("gid-index")) cf.gid_index = static_cast<int32_t>(gid_index);
  c.compute_nodes = 1;  // its thread stays idle: the node's workers are memory-node threads
  c.threads_per_node = 1;
  c.memory_node_threads = static_cast<uint32_t>(threads);
  c.coroutines_per_thread = static_cast<uint32_t>(coroutines);
  c.seed = seed;
  c.verbs.local_node = static_cast<int32_t>(index);
  c.verbs.connect_timeout_ms = static_cast<uint32_t>(connect_timeout_ms);
  c.verbs.op_timeout_ms = static_cast<uint32_t>(op_timeout_ms);
  c.verbs.barrier_timeout_ms = static_cast<uint32_t>(barrier_timeout_ms);
  parse_fence_mode(verbs_fence, &c.verbs.fence);
  if (std::string e = c.validate(); !e.empty()) return usage_error(f, e);

  lt.cluster = c;
  locks::parse_lock_kind(lock, &lt.table.kind);
  locks::parse_alock_variant(variant, &lt.table.variant);
  lt.table.locks = locks;
  lt.table.local_budget = static_cast<int32_t>(local_budget);
  lt.table.remote_budget = static_cast<int32_t>(remote_budget);
  lt.table.max_spins = max_spins;
  lt.locality_percent = static_cast<uint32_t>(locality);
  lt.ops_per_worker = ops;
  lt.cs_ns = cs_ns;
  lt.verify = verify;
  lt.process_index = static_cast<uint32_t>(index);
  const bool txn_workload = is_node_txn_workload(workload);
  if (workload == "lock-table") {
    if (std::string e = lt.validate(); !e.empty()) return usage_error(f, e);
  } else if (workload == "cpu-nic") {
    if (ops > CpuNicOptions::kMaxOps)
      return usage_error(f, "--ops: cpu-nic takes at most " + std::to_string(CpuNicOptions::kMaxOps));
  } else if (txn_workload) {
    tx.workload = workload;
    tx.warehouses = static_cast<uint32_t>(warehouses);
    tx.verify = f.was_set("verify") ? verify : true;
    tx.json = json;
    // Each coordinator keeps up to two batches in flight per queue pair.
    c.queue_depth = std::max<uint32_t>(c.queue_depth, c.coroutines_per_thread * 2 * Batch::kMax);
    if (std::string e = validate_node_txn(c, static_cast<uint32_t>(index), tx); !e.empty()) return usage_error(f, e);
  }
#ifndef LW_HAVE_VERBS
  (void)huge;
  return usage_error(f, "this build has no verbs backend: libibverbs-dev was missing at configure time (run "
                        "scripts/bootstrap.sh, then reconfigure)");
#else
  MemnodeOptions mo;
  mo.listen = cf.memory_nodes[static_cast<size_t>(index)];
  mo.bytes = bytes;
  mo.device = cf.device;
  mo.ib_port = cf.ib_port;
  mo.gid_index = cf.gid_index;
  mo.huge_pages = huge;
  if (txn_workload) {
    // Served from the start, bound to the engine once the run built its store.
    std::string err;
    mo.extra_handlers = node_txn_handlers(&err);
    if (mo.extra_handlers.empty()) {
      std::fprintf(stderr, "latchwork node %lld: %s\n", static_cast<long long>(index), err.c_str());
      return kExitCheckFailed;
    }
  }
  if (std::string e = mo.validate(); !e.empty()) return usage_error(f, e);

  // The memory node, on a thread of this process: serving before anything
  // connects to it (this process's own backend included).
  const std::string me = "latchwork node " + std::to_string(index);
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::condition_variable cv;
  bool serving = false, ended = false;
  std::string serve_error;
  std::thread server([&] {
    std::string e = run_memnode(
        mo, stop,
        [&](const std::string& line) {
          std::fprintf(stderr, "%s: %s\n", me.c_str(), line.c_str());
          std::fflush(stderr);
        },
        [&] {
          std::lock_guard<std::mutex> g(mu);
          serving = true;
          cv.notify_all();
        });
    std::lock_guard<std::mutex> g(mu);
    serve_error = e;
    ended = true;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> g(mu);
    cv.wait_for(g, kServeStartTimeout, [&] { return serving || ended; });
    if (!serving) {
      const std::string e = ended ? serve_error : "the memory node did not start within 120 s";
      g.unlock();
      stop.store(true);
      server.join();
      std::fprintf(stderr, "%s: cannot serve %s: %s\n", me.c_str(), mo.listen.to_string().c_str(), e.c_str());
      return kExitCheckFailed;
    }
  }

  int code = kExitOk;
  if (workload == "cpu-nic") {
    CpuNicOptions o;
    o.ops_per_worker = ops;
    code = run_cpu_nic(c, o);
  } else if (txn_workload) {
    code = run_node_txn(c, static_cast<uint32_t>(index), tx);
  } else {
    workloads::LockTableResult r;
    if (std::string e = workloads::run_lock_table(lt, &r); !e.empty()) {
      std::fprintf(stderr, "%s: %s\n", me.c_str(), e.c_str());
      code = kExitCheckFailed;
    } else {
      print_node_result(lt, r, json);
      if (!r.exact || r.failures > 0) {
        std::fprintf(stderr, "%s: %s\n", me.c_str(),
                     !r.exact ? ("the counters are not exact: " + r.mismatch).c_str()
                              : (std::to_string(r.failures) + " lock operations failed; " + r.mismatch).c_str());
        code = kExitCheckFailed;
      }
    }
  }
  std::fflush(stdout);
  // Keep serving until every node is done with this one's memory (the others
  // may still read their results from it). After a failure, wait only
  // --connect-timeout-ms: peers that failed alike (counters off) still meet
  // here, and a peer that never came does not hold this one for the whole
  // --barrier-timeout-ms. (A transport failure ends the process earlier.)
  const uint64_t exit_wait =
      code == kExitOk ? c.verbs.barrier_timeout_ms : std::min(c.verbs.barrier_timeout_ms, c.verbs.connect_timeout_ms);
  if (std::string e = memnode_barrier(cf.memory_nodes[0], "node/exit", static_cast<uint32_t>(cf.memory_nodes.size()),
                                      exit_wait, c.verbs.connect_timeout_ms);
      !e.empty()) {
    std::fprintf(stderr, "%s: waiting for the other nodes to finish: %s\n", me.c_str(), e.c_str());
    code = kExitCheckFailed;
  }
  stop.store(true);
  server.join();
  {
    std::lock_guard<std::mutex> g(mu);
    if (!serve_error.empty()) {
      std::fprintf(stderr, "%s: the memory node stopped: %s\n", me.c_str(), serve_error.c_str());
      code = kExitCheckFailed;
    }
  }
  return code;
#endif
}

}  // namespace lw::tool
