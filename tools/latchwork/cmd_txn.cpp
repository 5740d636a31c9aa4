// latchwork txn: OCC transactions with a primitive per phase (DrTM+H §5-§6,
// Table 4; SMART §6.2.2) under TPC-C NewOrder, SmallBank, TATP or TPC-E's
// customer-position.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cluster_flags.h"
#include "commands.h"
#include "latchwork/txn/run.h"
#include "latchwork/workloads/oltp.h"
#include "output_path.h"
#include "plot_json.h"
#include "progress.h"
#include "timeline_flags.h"

namespace lw::tool {
namespace {

constexpr size_t kPhases = static_cast<size_t>(txn::Phase::kCount);
constexpr int kMaxPhaseFlags = 32;  // bounds the argv pre-scan below

// FlagSet keeps only the last value of a flag; --phase may be given several
// times (and each value may hold several comma-separated settings), so the
// values are collected from argv first.
std::vector<std::string> collect_phase_flags(int argc, const char* const* argv, std::string* error) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    const std::string_view a = argv[i];
    std::string value;
    if (a == "--phase" && i + 1 < argc) value = argv[i + 1];
    else if (a.rfind("--phase=", 0) == 0) value = std::string(a.substr(8));
    else continue;
    size_t start = 0;
    for (int part = 0; part < kMaxPhaseFlags && start <= value.size(); ++part) {
      const size_t comma = value.find(',', start);
      const size_t end = comma == std::string::npos ? value.size() : comma;
      out.push_back(value.substr(start, end - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (out.size() > static_cast<size_t>(kMaxPhaseFlags)) {
      *error = "too many --phase settings";
      return {};
    }
  }
  return out;
}

std::string phase_breakdown_json(const txn::TxnRunResult& r) {
  using nlohmann::json;
  json series = json::object();
  for (size_t p = 0; p < kPhases; ++p)
    series[std::string(txn::to_string(static_cast<txn::Phase>(p)))].push_back(
        {{"x", static_cast<double>(p)}, {"y", r.phase_us[p]}, {"panel", ""}});
  json j = {{"name", "txn-phases"},
            {"title", r.design + " on " + r.workload + " (" + r.phases + "): mean us per committed transaction and phase"},
            {"x_label", "phase (0 execution, 1 validation, 2 logging, 3 commit)"},
            {"y_label", "us per committed transaction"},
            {"log_x", false},
            {"series", series},
            {"panels", json::array({""})},
            {"paper", json::array()}};
  return j.dump(2);
}

void print_result(const txn::TxnRunResult& r, const txn::TxnWorkload& w, const ClusterConfig& c) {
  std::printf("# %s on %s (%s), %s backend, nic %s, qp policy %s, seed %llu\n", r.design.c_str(),
              r.workload.c_str(), r.phases.c_str(), c.backend.c_str(), c.nic.profile.c_str(),
              to_string(c.nic.qp_policy), static_cast<unsigned long long>(c.seed));
  std::printf("%-24s %llu (%u compute x %u threads, %u memory nodes x %u threads, x %u coroutines)\n",
              "coordinators", static_cast<unsigned long long>(r.coordinators), c.compute_nodes, c.threads_per_node,
              c.memory_nodes, c.memory_node_threads, c.coroutines_per_thread);
  std::printf("%-24s %.4f M txns/s (%llu committed, %llu aborted attempts, %llu gave up, %llu failed)\n",
              "throughput", r.mtps, static_cast<unsigned long long>(r.committed),
              static_cast<unsigned long long>(r.aborted), static_cast<unsigned long long>(r.gave_up),
              static_cast<unsigned long long>(r.failed));
  std::printf("%-24s %.2f%%\n", "abort rate", 100 * r.abort_rate);
  std::printf("%-24s p50 %.2f  p90 %.2f  p99 %.2f  mean %.2f\n", "latency (us)", r.latency_us_p50,
              r.latency_us_p90, r.latency_us_p99, r.latency_us_mean);
  std::printf("%-24s", "phases (us per txn)");
  for (size_t p = 0; p < kPhases; ++p)
    std::printf(" %s %.2f", std::string(txn::to_string(static_cast<txn::Phase>(p))).c_str(), r.phase_us[p]);
  std::printf("\n%-24s", "commits by type");
  const std::vector<std::string> types = w.types();
  for (size_t t = 0; t < r.committed_by_type.size() && t < types.size(); ++t)
    std::printf(" %s:%llu", types[t].c_str(), static_cast<unsigned long long>(r.committed_by_type[t]));
  std::printf("\n%-24s %.2f round trips, %.2f RPCs, %.1f bytes; location cache hit rate %.1f%%\n",
              "per transaction", r.round_trips_per_txn, r.rpcs_per_txn, r.bytes_per_txn, 100 * r.cache_hit_rate);
  std::printf("%-24s %llu verbs, %.3f ms elapsed (virtual on sim), %.2f s wall (+%.2f s load)\n", "run",
              static_cast<unsigned long long>(r.verbs), static_cast<double>(r.elapsed_ns) / 1e6, r.wall_seconds,
              r.load_wall_seconds);
  std::printf("%-24s 0x%016llx\n", "trace hash", static_cast<unsigned long long>(r.trace_hash));
  if (r.verified) std::printf("final state: invariants, replicas and locks checked\n");
}

}  // namespace

int cmd_txn(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork txn",
                 "Distributed OCC transactions over RDMA (DrTM+H §5-§6, SMART §6.2.2). Builds a partitioned, "
                 "3-way replicated store for --workload over the nodes host-side, then runs coordinators "
                 "(every thread x coroutine of every node for symmetric designs; the compute nodes' for the "
                 "disaggregated FORD and SMART-DTX) for a warm-up and a measured window of virtual time "
                 "(--txns N: a fixed count per coordinator instead, for real backends). Each phase uses the "
                 "primitive its --design names (DrTM+H Table 4); --phase overrides single phases: E (execution), "
                 "V (lock + validate; VL and VV apart), L (logging), C (commit), R (read-only reads), RV "
                 "(read-only validation), each =one, =two or =hybrid (E and R: location-cache hit -> one READ, "
                 "miss -> one RPC that refills the cache). --phase may repeat or hold a comma-separated list "
                 "(--phase E=one,V=two). Reports throughput (M committed txns/s), the abort rate, p50/p90/p99 "
                 "latency, the mean time per committed transaction in each phase (DrTM+H Fig. 15), commits by "
                 "transaction type, round trips, RPCs and bytes per transaction. --verify checks the "
                 "workload's invariants, backups equal to primaries and every lock free after the run. "
                 "--broken seeds a bug (for `latchwork check`). Exits 2 on bad input, 1 if an operation or "
                 "the check fails.");
  ClusterConfig d;
  d.set_profile("connectx");
  d.nic.profile = "cx5-100g";  // closest to DrTM+H's ConnectX-4 100 Gbit/s (PCIe 3.0 x16)
  d.coroutines_per_thread = 4;
  d.memory_nodes = 2;
  // The design's cluster (txn::txn_cluster) sets the nodes' threads from
  // --threads; this one only carries the flags, and --rpc-servers workers
  // must pass its check here (the real cluster is validated again below).
  d.memory_node_threads = 1;
  ClusterFlagOptions opts;
  opts.threads_flag = false;
  ClusterFlags cluster(f, d, opts);
  TimelineFlags timeline(f);
  std::string design = "drtmh", workload = "smallbank", broken = "none", phase_unused, png;
  uint64_t nodes = 4, threads = 4, memory_node_mb = 256;
  uint64_t warmup_us = 100, measure_us = 300, txns = 0, max_attempts = 64, retry_backoff_ns = 1000, think_us = 0;
  bool passive_ack = true, cache = true, speculative = true, verify = false, json = false;
  workloads::OltpOptions oo;
  uint64_t warehouses = oo.warehouses_per_node, remote_items = oo.remote_item_percent, order_slots = oo.order_slots;
  std::vector<std::string> design_choices = txn::design_names();
  f.add_enum("design", &design, design_choices,
             "drtmh (E=hybrid V=one L=one C=one), farm (E=one V=two+one L=one C=two), drtmr (all one-sided, "
             "location cache), fasst (all two-sided, FaSST-OCC), ford / smart-dtx (disaggregated: one-sided on "
             "memory nodes; SMART-DTX with SMART's runtime)");
  f.add_enum("workload", &workload, workloads::oltp_workload_names(),
             "tpcc (NewOrder only, always distributed), smallbank (90% on 4% of accounts), tatp (80% read-only), "
             "tpce (customer-position, read-only)");
  f.add_uint("nodes", &nodes,
             "store nodes for symmetric designs (each also runs coordinators); compute nodes for disaggregated "
             "ones",
             1, ClusterConfig::kMaxNodes);
  f.add_uint("threads", &threads, "coordinator threads per node", 1, ClusterConfig::kMaxThreadsPerNode);
  f.add_string("phase", &phase_unused,
               "override a phase's primitive: E|V|VL|VV|L|C|R|RV = one|two|hybrid (repeatable, or a "
               "comma-separated list)");
  f.add_bool("passive-ack", &passive_ack, "commit's completion off the critical path (DrTM+H §3.2); =false turns it off");
  f.add_bool("cache", &cache, "the location cache of one-sided execution (DrTM §5.1); =false turns it off");
  f.add_bool("speculative-reads", &speculative,
             "issue a transaction's independent reads at once (DrTM+H §6.1); =false fetches one by one");
  f.add_uint("memory-node-mb", &memory_node_mb, "memory per store node, MiB", 1, 16384);
  f.add_uint("warmup-us", &warmup_us, "warm-up before measuring (virtual microseconds)", 0, 1'000'000);
  f.add_uint("measure-us", &measure_us, "measurement window (virtual microseconds)", 1, 1'000'000);
  f.add_uint("txns", &txns, "run exactly this many transactions per coordinator and measure them all (real backends)",
             0, 10'000'000);
  f.add_uint("max-attempts", &max_attempts, "attempts of one transaction before it gives up", 1, 1'000'000);
  f.add_uint("retry-backoff-ns", &retry_backoff_ns, "wait between retries, times the attempt number", 0, 1'000'000'000);
  f.add_uint("think-us", &think_us,
             "closed loop: each coordinator waits this long after every transaction, its thread free for the "
             "others (the SMART artifact's IDLE_USEC; 0: none)",
             0, 1'000'000);
  f.add_uint("warehouses-per-node", &warehouses, "tpcc: warehouses per store node (DrTM+H: 384 over 16 nodes = 24)",
             1, 1'000'000);
  f.add_uint("accounts-per-node", &oo.accounts_per_node,
             "smallbank: accounts per store node (DrTM+H: 100,000 per thread, 2.4 M per node)", 1, 1ull << 32);
  f.add_uint("subscribers-per-node", &oo.subscribers_per_node, "tatp: subscribers per store node", 1, 1ull << 32);
  f.add_uint("customers-per-node", &oo.customers_per_node, "tpce: customers per store node", 1, 1ull << 32);
  f.add_uint("order-slots", &order_slots, "tpcc: order slots per district (>= NewOrders per district in the run)", 1,
             1u << 24);
  f.add_double("hot-fraction", &oo.hot_fraction, "smallbank: share of accounts that are hot (DrTM+H: 0.04)", 0, 1);
  f.add_double("hot-share", &oo.hot_share, "smallbank: share of transactions on hot accounts (DrTM+H: 0.9)", 0, 1);
  f.add_uint("remote-item-percent", &remote_items, "tpcc: percent of items supplied by a remote warehouse", 0, 100);
  f.add_bool("verify", &verify, "after the run: workload invariants, backups == primaries, every lock free");
  f.add_string("broken", &broken,
               "seed a bug: none, no-read-validation, no-write-recheck, mixed-atomics (the checker must catch it)");
  f.add_bool("json", &json, "one JSON object instead of the report");
  f.add_string("png", &png, "draw the per-phase breakdown to this PNG (and FILE.json)");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  if (f.was_set("png"))
    if (std::string e = check_output_file(png, "png"); !e.empty()) return usage_error(f, e);
  if (f.was_set("compute-nodes")) return usage_error(f, "use --nodes (compute nodes of disaggregated designs)");
  if (f.was_set("txns") && txns == 0)
    return usage_error(f, "--txns 0 would run no transaction: give at least 1, or leave it out to measure "
                          "the --measure-us window");

  txn::TxnRunOptions o;
  if (!txn::design_preset(design, &o.design)) return usage_error(f, "unknown --design " + design);
  std::string err;
  const std::vector<std::string> phases = collect_phase_flags(argc, argv, &err);
  if (!err.empty()) return usage_error(f, err);
  for (const std::string& p : phases)
    if (std::string e = txn::apply_phase_flag(p, &o.design); !e.empty()) return usage_error(f, "--phase: " + e);
  if (f.was_set("passive-ack")) o.design.passive_ack = passive_ack;
  if (f.was_set("cache")) o.design.location_cache = cache;
  if (f.was_set("speculative-reads")) o.design.speculative_reads = speculative;
  if (!txn::parse_broken(broken, &o.design.broken)) return usage_error(f, "unknown --broken " + broken);
  if (std::string e = o.design.validate(); !e.empty()) return usage_error(f, e);

  oo.warehouses_per_node = static_cast<uint32_t>(warehouses);
  oo.order_slots = static_cast<uint32_t>(order_slots);
  oo.remote_item_percent = static_cast<uint32_t>(remote_items);
  if (std::string e = oo.validate(); !e.empty()) return usage_error(f, e);

  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  // SMART §6.1's testbed for the disaggregated designs: ConnectX-6 200 Gbit/s.
  const std::string profile = f.was_set("nic") || !o.design.disaggregated ? c.nic.profile : "cx6-200g";
  ClusterConfig t = txn::txn_cluster(o.design, profile, static_cast<uint32_t>(nodes), static_cast<uint32_t>(threads),
                                     c.coroutines_per_thread, c.memory_nodes, memory_node_mb << 20);
  // Whatever was named explicitly goes on top of the design's cluster.
  t.backend = c.backend;
  t.verbs = c.verbs;
  t.seed = c.seed;
  t.budget = c.budget;
  t.threads = c.threads;
  if (f.was_set("semantics")) {
    t.semantics_profile = c.semantics_profile;
    t.semantics = c.semantics;
  }
  if (f.was_set("qp-policy")) t.nic.qp_policy = c.nic.qp_policy;
  if (f.was_set("rpc-servers")) t.rpc.servers = c.rpc.servers;
  if (f.was_set("rpc-cores")) t.rpc.cores_per_node = c.rpc.cores_per_node;
  if (f.was_set("throttling")) t.smart.throttling = c.smart.throttling;
  if (f.was_set("backoff")) t.smart.backoff = c.smart.backoff;
  if (f.was_set("dynamic-limit")) t.smart.dynamic_limit = c.smart.dynamic_limit;
  if (f.was_set("coroutine-throttling")) t.smart.coroutine_throttling = c.smart.coroutine_throttling;
  if (std::string e = t.validate(); !e.empty()) return usage_error(f, e);
  if (std::string e = timeline.validate(t); !e.empty()) return usage_error(f, e);

  // The data is scaled per store node and partitioned over them: the run's
  // memory nodes (--nodes for symmetric designs, --memory-nodes otherwise).
  oo.nodes = t.memory_nodes;
  if (std::string e = oo.validate(); !e.empty()) return usage_error(f, e);

  o.warmup_ns = static_cast<Nanos>(warmup_us) * 1000;
  o.measure_ns = static_cast<Nanos>(measure_us) * 1000;
  o.txns_per_worker = txns;
  o.max_attempts = static_cast<uint32_t>(max_attempts);
  o.retry_backoff_ns = static_cast<Nanos>(retry_backoff_ns);
  o.think_ns = static_cast<Nanos>(think_us) * 1000;
  o.verify = verify;
  if (std::string e = o.validate(t); !e.empty()) return usage_error(f, e);
  std::unique_ptr<txn::TxnWorkload> w = workloads::make_oltp_workload(workload, oo, &err);
  if (!w) return usage_error(f, err);

  o.timeline = timeline.recorder();
  txn::TxnRunResult r;
  {
    Progress progress("latchwork txn", "runs", 1, kProgressSeconds);
    r = txn::run_txn(t, *w, o);
  }
  // Inputs too large to start (the store does not fit the memory nodes):
  // a usage error, no report of a run that did not happen.
  if (r.input_error) return usage_error(f, r.error + " (--memory-node-mb)");
  const int written = timeline.finish("latchwork txn", kExitOk);
  if (json) std::printf("%s\n", r.to_json().c_str());
  else print_result(r, *w, t);
  const bool drew = png.empty() || draw_png("txn", phase_breakdown_json(r), png, json);
  if (!r.ok()) {
    std::fprintf(stderr, "latchwork txn: %s\n", r.error.c_str());
    return kExitCheckFailed;
  }
  if (written != kExitOk) return written;
  return drew ? kExitOk : kExitCheckFailed;
}

}  // namespace lw::tool
