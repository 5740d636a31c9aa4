// The lock-table result as text and JSON (lock_report.h).
#include "lock_report.h"

#include <cstdio>

namespace lw::tool {
namespace {

double us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }

}  // namespace

nlohmann::json latency_json(const Histogram& h) {
  return {{"count", h.count()},         {"mean_us", h.mean() / 1e3},
          {"p50_us", us(h.quantile(0.5))}, {"p90_us", us(h.quantile(0.9))},
          {"p99_us", us(h.quantile(0.99))}, {"p999_us", us(h.quantile(0.999))},
          {"max_us", us(h.max())}};
}

namespace {

void print_latency(const char* name, const Histogram& h) {
  if (h.count() == 0) {
    std::printf("%-22s -\n", name);
    return;
  }
  std::printf("%-22s p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f  mean %.2f  (%llu ops)\n", name,
              us(h.quantile(0.5)), us(h.quantile(0.9)), us(h.quantile(0.99)), us(h.quantile(0.999)), us(h.max()),
              h.mean() / 1e3, static_cast<unsigned long long>(h.count()));
}

}  // namespace

nlohmann::json lock_result_json(const workloads::LockTableOptions& o, const workloads::LockTableResult& r) {
  const auto& s = r.totals;
  const double ops = r.ops > 0 ? static_cast<double>(r.ops) : 1.0;
  return {{"lock", locks::to_string(o.table.kind)},
          {"variant", locks::to_string(o.table.variant)},
          {"node", o.process_index},
          {"nodes", o.cluster.memory_nodes},
          {"threads_per_node", o.cluster.memory_node_threads},
          {"locks", o.table.locks},
          {"locality_percent", o.locality_percent},
          {"local_budget", o.table.local_budget},
          {"remote_budget", o.table.remote_budget},
          {"backend", o.cluster.backend},
          {"nic", o.cluster.nic.profile},
          {"seed", o.cluster.seed},
          {"ops", r.ops},
          {"mops", r.mops},
          {"elapsed_ns", r.elapsed_ns},
          {"latency", latency_json(r.latency)},
          {"local_latency", latency_json(r.local_latency)},
          {"remote_latency", latency_json(r.remote_latency)},
          {"acquisitions", s.acquisitions},
          {"local_acquisitions", s.local_acquisitions},
          {"passes", s.passes},
          {"reacquires", s.reacquires},
          {"remote_verbs", s.remote_verbs},
          {"loopback_verbs", s.loopback_verbs},
          {"cpu_accesses", s.cpu_accesses},
          {"spins", s.spins},
          {"verbs_per_op", static_cast<double>(s.remote_verbs) / ops},
          {"failures", r.failures},
          {"verified", o.verify},
          {"exact", r.exact},
          {"mismatch", r.mismatch},
          {"counters", r.nic}};
}

void print_lock_result(const workloads::LockTableOptions& o, const workloads::LockTableResult& r) {
  const ClusterConfig& c = o.cluster;
  const auto& s = r.totals;
  if (c.backend == "verbs")
    std::printf("# %s lock table, verbs backend, node %u of %u (this process's workers), seed %llu\n",
                locks::to_string(o.table.kind), o.process_index, c.memory_nodes,
                static_cast<unsigned long long>(c.seed));
  else
    std::printf("# %s lock table, %s backend, nic %s, seed %llu\n", locks::to_string(o.table.kind),
                c.backend.c_str(), c.nic.profile.c_str(), static_cast<unsigned long long>(c.seed));
  std::printf("%-22s %u nodes x %u threads x %u coroutines; %llu locks; %u%% local; budgets local %d remote %d\n",
              "set-up", c.memory_nodes, c.memory_node_threads, c.coroutines_per_thread,
              static_cast<unsigned long long>(o.table.locks), o.locality_percent, o.table.local_budget,
              o.table.remote_budget);
  std::printf("%-22s %.3f (%llu ops in %.3f ms%s)\n", "throughput (Mops)", r.mops,
              static_cast<unsigned long long>(r.ops), static_cast<double>(r.elapsed_ns) / 1e6,
              c.backend == "sim" ? " virtual" : "");
  print_latency("latency (us) all", r.latency);
  print_latency("latency (us) local", r.local_latency);
  print_latency("latency (us) remote", r.remote_latency);
  const double ops = r.ops > 0 ? static_cast<double>(r.ops) : 1.0;
  std::printf("%-22s %llu (%llu local), %llu passed, %llu reacquires\n", "acquisitions",
              static_cast<unsigned long long>(s.acquisitions), static_cast<unsigned long long>(s.local_acquisitions),
              static_cast<unsigned long long>(s.passes), static_cast<unsigned long long>(s.reacquires));
  std::printf("%-22s %.2f verbs (%.2f loopback), %.2f CPU accesses, %.2f spins\n", "per operation",
              static_cast<double>(s.remote_verbs) / ops, static_cast<double>(s.loopback_verbs) / ops,
              static_cast<double>(s.cpu_accesses) / ops, static_cast<double>(s.spins) / ops);
  if (!r.nic.empty()) {
    std::printf("%-22s", "counters");
    for (const auto& [k, v] : r.nic) std::printf(" %s=%g", k.c_str(), v);
    std::printf("\n");
  }
  if (r.failures > 0) std::printf("%-22s %llu (%s)\n", "failed calls", static_cast<unsigned long long>(r.failures), r.mismatch.c_str());
  if (o.verify)
    std::printf("counters: %s\n", r.exact ? "exact (every counter equals its lock's acquisitions)"
                                          : ("MISMATCH: " + r.mismatch).c_str());
}

}  // namespace lw::tool
