#include "cluster_flags.h"

#include <cstdio>
#include <cstdlib>

#include "latchwork/backends.h"

#include "commands.h"

namespace lw::tool {

ClusterFlags::ClusterFlags(cli::FlagSet& f, const ClusterConfig& d, ClusterFlagOptions o)
    : d_(d),
      backend_(d.backend),
      o_(o),
      semantics_(d.semantics_profile),
      nic_(d.nic.profile),
      qp_policy_(to_string(d.nic.qp_policy)),
      seed_(d.seed),
      compute_nodes_(d.compute_nodes),
      threads_(d.threads_per_node),
      coroutines_(d.coroutines_per_thread),
      memory_nodes_(d.memory_nodes),
      adversarial_(d.threads.adversarial) {
  op_timeout_ms_ = d.verbs.op_timeout_ms;
  connect_timeout_ms_ = d.verbs.connect_timeout_ms;
  f.add_string("config", &config_path_, "JSON cluster config file (flags override it)");
  f.add_enum("backend", &backend_, {"sim", "threads", "verbs"},
             "where to run: the simulator, real threads, or real RDMA NICs (needs --cluster)");
  f.add_string("cluster", &cluster_,
               "verbs backend: JSON cluster file listing the memory nodes (latchwork memnode)");
  f.add_int("op-timeout-ms", &op_timeout_ms_,
            "verbs backend: a request without completion this long fails the run", 10, 3'600'000);
  f.add_int("connect-timeout-ms", &connect_timeout_ms_,
            "verbs backend: how long to keep trying to reach each memory node", 10, 3'600'000);
  f.add_enum("verbs-fence", &verbs_fence_, {std::begin(kFenceModeNames), std::end(kFenceModeNames)},
             "verbs backend: a fenced request waits in the NIC (IBV_SEND_FENCE), in the engine, or auto "
             "(engine on Soft-RoCE, whose fence can stall)");
  std::string nics = "simple (fixed costs)";
  for (const auto& n : NicProfile::builtin_names()) nics += ", " + n;
  const std::string nic_help =
      "timing model of the simulator: " + nics + ", or a NIC profile JSON file";
  const std::string sem_help =
      "RDMA semantics of the simulator: spec (all relaxations), connectx (observed), sequential (none)";
  f.add_enum("semantics", &semantics_, {"spec", "connectx", "sequential"}, sem_help);
  f.add_string("nic", &nic_, nic_help);
  std::vector<std::string> policies(std::begin(kQpPolicyNames), std::end(kQpPolicyNames));
  f.add_enum("qp-policy", &qp_policy_, policies,
             "NIC model: how threads get QPs, device contexts and doorbells (SMART Fig. 3)");
  f.add_uint("seed", &seed_, "seed of every random decision (sim runs replay exactly)");
  f.add_int("compute-nodes", &compute_nodes_, "compute nodes", 1, ClusterConfig::kMaxNodes);
  if (o.threads_flag)
    f.add_int("threads", &threads_, "threads per compute node", 1, ClusterConfig::kMaxThreadsPerNode);
  f.add_int("coroutines", &coroutines_, "coroutines per thread", 1, ClusterConfig::kMaxCoroutinesPerThread);
  f.add_int("memory-nodes", &memory_nodes_, "memory nodes", 1, ClusterConfig::kMaxNodes);
  f.add_bool("adversarial", &adversarial_,
             "threads backend: READ lines in random order, atomics as load+store");
  throttling_ = d.smart.throttling;
  backoff_ = d.smart.backoff;
  dynamic_limit_ = d.smart.dynamic_limit;
  coroutine_throttling_ = d.smart.coroutine_throttling;
  rpc_cores_ = d.rpc.cores_per_node;
  f.add_bool("throttling", &throttling_,
             "SMART runtime (structures driven through smart::Context): per-thread credits bound the "
             "work requests in flight, C_max re-chosen every epoch among smart.candidate_credits "
             "(SMART Alg. 1; config: smart.throttling)");
  f.add_bool("backoff", &backoff_,
             "SMART runtime: after a failed backoff_cas sleep min(t0 2^i, t_max) + Rand(t0) "
             "(SMART Eq. 1; config: smart.backoff, smart.t0_ns)");
  f.add_bool("dynamic-limit", &dynamic_limit_,
             "SMART runtime, with --backoff: t_max doubles when a thread's retry rate exceeds "
             "smart.gamma_high and halves below smart.gamma_low, within [t0, 2^10 t0] "
             "(off: t_max = 2^10 t0; config: smart.dynamic_limit)");
  f.add_bool("coroutine-throttling", &coroutine_throttling_,
             "SMART runtime: at most c_max operations open per thread, c_max halved or doubled by the "
             "retry rate within [1, coroutines] (config: smart.coroutine_throttling)");
  rpc_servers_ = to_string(d.rpc.servers);
  f.add_enum("rpc-servers", &rpc_servers_, {"cores", "workers"},
             "sim: who serves two-sided RPCs on a memory node: cores (--rpc-cores dedicated polling cores) or "
             "workers (the node's own threads, between their coroutines' steps, as DrTM+H's event loops; "
             "needs memory-node threads, which txn's symmetric designs have; config: rpc.servers)");
  f.add_int("rpc-cores", &rpc_cores_,
            "sim, --rpc-servers cores: polling cores serving two-sided RPCs on each memory node (config: "
            "rpc.cores_per_node)",
            1, RpcConfig::kMaxCores);
  memory_kind_ = std::string(to_string(d.memory.kind));
  f.add_enum("memory-kind", &memory_kind_, {"dram", "pm"},
             "sim: memory nodes' memory: DRAM, or persistent memory with Optane-like latency and media "
             "bandwidth (config: memory.kind; docs/nic-model.md)");
  max_events_ = static_cast<int64_t>(d.budget.max_events);
  max_virtual_ms_ = static_cast<int64_t>(d.budget.max_virtual_ns / 1'000'000);
  f.add_int("max-events", &max_events_,
            "sim: stop a run after this many events and exit with 1 (config: budget.max_events)", 1,
            static_cast<int64_t>(RunBudget::kMaxEvents));
  f.add_int("max-virtual-ms", &max_virtual_ms_,
            "sim: stop a run at this virtual time and exit with 1 (config: budget.max_virtual_ns)", 1,
            static_cast<int64_t>(RunBudget::kMaxVirtualNs / 1'000'000));
}

std::string ClusterFlags::resolve(const cli::FlagSet& f, ClusterConfig* out) const {
  ClusterConfig c = d_;
  if (f.was_set("config") && config_path_.empty()) return "--config needs a file path, got \"\"";
  if (!config_path_.empty()) {
    std::string e = ClusterConfig::from_json_file(config_path_, &c);
    if (!e.empty()) return e;
  }
  if (f.was_set("semantics")) {
    std::string e = c.set_profile(semantics_);
    if (!e.empty()) return e;
  }
  if (f.was_set("nic")) c.nic.profile = nic_;
  if (f.was_set("qp-policy")) parse_qp_policy(qp_policy_, &c.nic.qp_policy);
  if (f.was_set("backend")) c.backend = backend_;
  if (f.was_set("cluster")) {
    if (c.backend != "verbs") return "--cluster is for the verbs backend: add --backend verbs";
    c.verbs.cluster_file = cluster_;
  }
  if (f.was_set("op-timeout-ms")) c.verbs.op_timeout_ms = static_cast<uint32_t>(op_timeout_ms_);
  if (f.was_set("verbs-fence")) parse_fence_mode(verbs_fence_, &c.verbs.fence);
  if (f.was_set("connect-timeout-ms"))
    c.verbs.connect_timeout_ms = static_cast<uint32_t>(connect_timeout_ms_);
  if (c.backend == "verbs" && f.was_set("memory-nodes"))
    return "with --backend verbs the memory nodes are those the cluster file lists; drop --memory-nodes";
  if (f.was_set("seed")) c.seed = seed_;
  if (f.was_set("compute-nodes")) c.compute_nodes = static_cast<uint32_t>(compute_nodes_);
  if (o_.threads_flag && f.was_set("threads")) c.threads_per_node = static_cast<uint32_t>(threads_);
  if (f.was_set("coroutines")) c.coroutines_per_thread = static_cast<uint32_t>(coroutines_);
  if (f.was_set("memory-nodes")) c.memory_nodes = static_cast<uint32_t>(memory_nodes_);
  if (f.was_set("adversarial")) c.threads.adversarial = adversarial_;
  if (f.was_set("throttling")) c.smart.throttling = throttling_;
  if (f.was_set("backoff")) c.smart.backoff = backoff_;
  if (f.was_set("dynamic-limit")) c.smart.dynamic_limit = dynamic_limit_;
  if (f.was_set("coroutine-throttling")) c.smart.coroutine_throttling = coroutine_throttling_;
  if (f.was_set("rpc-servers")) parse_rpc_servers(rpc_servers_, &c.rpc.servers);  // an enum flag: always valid
  if (f.was_set("rpc-cores")) c.rpc.cores_per_node = static_cast<uint32_t>(rpc_cores_);
  if (f.was_set("rpc-cores") && c.rpc.servers != RpcServers::kCores)
    return "--rpc-cores applies only with --rpc-servers cores";
  if (f.was_set("memory-kind")) parse_memory_kind(memory_kind_, &c.memory.kind);  // an enum flag: always valid
  if (f.was_set("max-events")) c.budget.max_events = static_cast<uint64_t>(max_events_);
  if (f.was_set("max-virtual-ms")) c.budget.max_virtual_ns = static_cast<Nanos>(max_virtual_ms_) * 1'000'000;
  if (std::string e = c.load_cluster_file(); !e.empty()) return e;
  std::string e = c.validate();
  if (!e.empty()) return e;
  if (c.backend == "verbs") {
    // Reach every memory node now, so that an unreachable node or a missing
    // device is a clear message and exit code 1, not a failed invariant deep
    // inside an experiment.
    std::string err;
    if (!make_backend(c, &err)) {
      std::fprintf(stderr, "latchwork: %s\n", err.c_str());
      std::exit(kExitCheckFailed);
    }
  }
  *out = c;
  return {};
}

int usage_error(const cli::FlagSet& flags, const std::string& message) {
  (void)flags;
  std::fprintf(stderr, "latchwork: %s\n(see --help)\n", message.c_str());
  return kExitUsage;
}

}  // namespace lw::tool

namespace lw::tool {

bool parse_or_exit(cli::FlagSet& f, int argc, const char* const* argv, int* exit_code,
                   const std::string& extra_help) {
  f.retire("profile", kProfileSplit);
  if (std::string e = f.parse(argc, argv); !e.empty()) {
    *exit_code = usage_error(f, e);
    return false;
  }
  if (f.help_requested()) {
    std::printf("%s%s", f.help_text().c_str(), extra_help.c_str());
    *exit_code = kExitOk;
    return false;
  }
  if (!f.positional().empty()) {
    *exit_code = usage_error(f, "unexpected argument \"" + f.positional()[0] + "\"");
    return false;
  }
  return true;
}

}  // namespace lw::tool
