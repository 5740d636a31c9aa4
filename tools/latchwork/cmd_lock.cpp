// latchwork lock: the distributed lock table of ALock §6 (Baran et al. SPAA'24).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cluster_flags.h"
#include "commands.h"
#include "latchwork/workloads/lock_table.h"
#include "lock_report.h"
#include "output_path.h"
#include "plot_json.h"
#include "progress.h"
#include "timeline_flags.h"

namespace lw::tool {
namespace {

// The latency CDF in the shape tools/plot/plot_repro.py draws: x the latency
// at a quantile, y the quantile; all, local and remote operations.
std::string cdf_json(const workloads::LockTableOptions& o, const workloads::LockTableResult& r) {
  using nlohmann::json;
  json series = json::object();
  const std::string kind = locks::to_string(o.table.kind);
  auto add = [&](const std::string& name, const Histogram& h) {
    if (h.count() == 0) return;
    json pts = json::array();
    for (int i = 1; i <= 100; ++i) {
      const double q = i == 100 ? 0.999 : i / 100.0;
      pts.push_back({{"x", static_cast<double>(h.quantile(q)) / 1e3}, {"y", q}, {"panel", ""}});
    }
    series[name] = pts;
  };
  add(kind + " all", r.latency);
  add(kind + " local", r.local_latency);
  add(kind + " remote", r.remote_latency);
  char title[256];
  std::snprintf(title, sizeof title, "lock table latency CDF: %s, %u nodes x %u threads, %llu locks, %u%% local (%s)",
                kind.c_str(), o.cluster.memory_nodes, o.cluster.memory_node_threads,
                static_cast<unsigned long long>(o.table.locks), o.locality_percent, o.cluster.nic.profile.c_str());
  json j = {{"name", "lock-cdf"},
            {"title", title},
            {"x_label", "latency of lock + unlock (us)"},
            {"y_label", "fraction of operations"},
            {"log_x", true},
            {"series", series},
            {"panels", json::array({""})},
            {"paper", json::array()}};
  return j.dump(2);
}


}  // namespace

int cmd_lock(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork lock",
                 "The distributed lock table of ALock (Baran et al. SPAA'24 §6): --locks locks "
                 "partitioned over --nodes symmetric nodes (lock i on node i mod nodes), --threads "
                 "worker threads on every node; each operation locks and unlocks one lock, on the "
                 "worker's own node with probability --locality percent, else one of the other nodes' "
                 "uniformly. A local access uses CPU loads/stores/atomics (ALock's local cohort) or, "
                 "for spin and mcs, the NIC's loopback. Inside each critical section the holder "
                 "increments a counter next to the lock; at the end every counter must equal its "
                 "lock's acquisitions (--verify, on by default). Prints throughput, latency "
                 "percentiles (all, local, remote), per-operation verbs and the NIC model's "
                 "counters; --png draws the latency CDF. --lock spin-local-cpu is deliberately "
                 "broken (CPU CAS against NIC CAS, ALock Table 1): its counters do not add up. "
                 "Exits 2 on bad input, 1 if a call fails or the counters disagree.");
  ClusterConfig d;
  d.set_profile("connectx");
  d.nic.profile = "cx3-56g";
  d.compute_nodes = 1;  // idle: the workers run on the nodes themselves
  d.threads_per_node = 1;
  d.memory_nodes = 5;
  d.memory_node_threads = 4;
  d.memory_node_bytes = 4ull << 20;
  ClusterFlagOptions opts;
  opts.threads_flag = false;
  ClusterFlags cluster(f, d, opts);
  TimelineFlags timeline(f);
  std::string kind = "alock", png;
  uint64_t locks = 100, locality = 95, nodes = d.memory_nodes, threads = d.memory_node_threads, ops = 2000;
  uint64_t process_index = 0, cs_ns = 0, max_spins = locks::LockTableConfig{}.max_spins;
  int64_t local_budget = 5, remote_budget = 20;
  bool json = false, verify = true;
  f.add_enum("lock", &kind, {"alock", "spin", "mcs", "spin-local-cpu", "spin-write-unlock"},
             "the lock: ALock, RDMA CAS spinlock (local through loopback), RDMA MCS, the broken spinlock "
             "whose local workers use CPU CAS, or the spinlock released by a WRITE (broken where a failed "
             "CAS writes back: Soft-RoCE; the simulator's failed_cas_writes_back)");
  f.add_uint("locks", &locks, "locks in the table (ALock §6: 20 high, 100 medium, 1000 low contention)", 1,
             locks::LockTableConfig::kMaxLocks);
  f.add_uint("locality", &locality, "percent of operations on a lock of the worker's own node", 0, 100);
  f.add_uint("nodes", &nodes, "symmetric nodes (memory nodes whose threads run the workers)", 1,
             ClusterConfig::kMaxNodes);
  f.add_uint("threads", &threads, "worker threads per node", 1, ClusterConfig::kMaxThreadsPerNode);
  f.add_int("local-budget", &local_budget, "ALock: passes within the local cohort before a reacquire (§6.1)", 1,
            locks::LockTableConfig::kMaxBudget);
  f.add_int("remote-budget", &remote_budget, "ALock: passes within the remote cohort before a reacquire (§6.1)", 1,
            locks::LockTableConfig::kMaxBudget);
  f.add_uint("ops", &ops, "lock + unlock operations per worker", 1, 10'000'000);
  f.add_uint("cs-ns", &cs_ns, "CPU time inside each critical section (ns)", 0, 1'000'000);
  f.add_uint("max-spins", &max_spins, "bound on every wait of one lock() or unlock()", 1, 1ull << 40);
  f.add_bool("verify", &verify, "check every lock's counter against its acquisitions (--verify=false: skip)");
  f.add_uint("process-index", &process_index,
             "verbs: the node this process is (it runs that node's workers)", 0, ClusterConfig::kMaxNodes - 1);
  f.add_bool("json", &json, "one JSON object instead of the report");
  f.add_string("png", &png, "draw the latency CDF (all, local, remote) to this PNG (and FILE.json)");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  if (std::string e = timeline.validate(c); !e.empty()) return usage_error(f, e);
  if (f.was_set("nodes") && f.was_set("memory-nodes") && c.memory_nodes != nodes)
    return usage_error(f, "--nodes and --memory-nodes disagree (they name the same thing)");
  if (f.was_set("nodes") || !f.was_set("memory-nodes")) c.memory_nodes = static_cast<uint32_t>(nodes);
  c.memory_node_threads = static_cast<uint32_t>(threads);
  if (f.was_set("png"))
    if (std::string e = check_output_file(png, "png"); !e.empty()) return usage_error(f, e);

  workloads::LockTableOptions o;
  o.cluster = c;
  if (!locks::parse_lock_kind(kind, &o.table.kind)) return usage_error(f, "unknown --lock " + kind);
  o.table.locks = locks;
  o.table.local_budget = static_cast<int32_t>(local_budget);
  o.table.remote_budget = static_cast<int32_t>(remote_budget);
  o.table.max_spins = max_spins;
  o.locality_percent = static_cast<uint32_t>(locality);
  o.ops_per_worker = ops;
  o.cs_ns = static_cast<Nanos>(cs_ns);
  o.verify = verify;
  o.process_index = static_cast<uint32_t>(process_index);
  if (std::string e = o.validate(); !e.empty()) return usage_error(f, e);
  // Long runs say how far they are (stderr; the report stays on stdout).
  const uint64_t total = uint64_t{c.memory_nodes} * c.memory_node_threads * c.coroutines_per_thread * ops;
  Progress progress("latchwork lock", "ops", total, kProgressSeconds);
  o.progress = [&progress](uint64_t done, uint64_t) { progress.set(done); };

  workloads::LockTableResult r;
  o.timeline = timeline.recorder();
  const std::string run_error = workloads::run_lock_table(o, &r);
  const int written = timeline.finish("latchwork lock", kExitOk);
  if (const std::string& e = run_error; !e.empty()) {
    std::fprintf(stderr, "latchwork lock: %s\n", e.c_str());
    return kExitCheckFailed;
  }
  if (json) std::printf("%s\n", lock_result_json(o, r).dump(2).c_str());
  else print_lock_result(o, r);
  const bool drew = png.empty() || draw_png("lock", cdf_json(o, r), png, json);
  if (r.failures > 0) {
    std::fprintf(stderr, "latchwork lock: %llu lock/unlock calls failed: %s\n",
                 static_cast<unsigned long long>(r.failures), r.mismatch.c_str());
    return kExitCheckFailed;
  }
  if (o.verify && !r.exact) {
    std::fprintf(stderr, "latchwork lock: counters disagree: %s\n", r.mismatch.c_str());
    return kExitCheckFailed;
  }
  if (written != kExitOk) return written;
  return drew ? kExitOk : kExitCheckFailed;
}

}  // namespace lw::tool
