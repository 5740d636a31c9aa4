#include "common.h"

#include <cstdio>

namespace lw {
namespace alock_repro {

ClusterConfig cluster(uint32_t nodes, uint32_t threads) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = "cx3-56g";
  c.nic.qp_policy = QpPolicy::kPerThreadDoorbell;  // one QP per thread and node, no shared doorbell
  c.compute_nodes = 1;
  c.threads_per_node = 1;
  c.coroutines_per_thread = 1;
  c.memory_nodes = nodes;
  c.memory_node_threads = threads;
  c.memory_node_bytes = 1ull << 20;
  return c;
}

workloads::LockTableOptions table(locks::LockKind kind, uint32_t nodes, uint32_t threads, uint64_t locks,
                                  uint32_t locality, uint64_t ops_per_worker) {
  workloads::LockTableOptions o;
  o.cluster = cluster(nodes, threads);
  o.table.kind = kind;
  o.table.locks = locks;
  o.table.local_budget = 5;
  o.table.remote_budget = 20;
  o.locality_percent = locality;
  o.ops_per_worker = ops_per_worker;
  o.verify = true;
  return o;
}

ReproPoint point(std::string panel, std::string series, double x, const workloads::LockTableOptions& o) {
  ReproPoint p;
  p.panel = std::move(panel);
  p.series = std::move(series);
  p.x = x;
  p.cluster = o.cluster;
  p.lock_table = o;
  return p;
}

std::string kind_name(locks::LockKind k) { return locks::to_string(k); }

PaperValue ratio(std::string series, std::string over, double x, double value, std::string source,
                 double tolerance) {
  PaperValue v;
  v.series = std::move(series);
  v.over_series = std::move(over);
  v.x = x;
  v.value = value;
  v.source = std::move(source);
  v.tolerance = tolerance;
  return v;
}

}  // namespace alock_repro

namespace {

workloads::LockTableResult run_one(const workloads::LockTableOptions& o) {
  workloads::LockTableResult r;
  const std::string e = workloads::run_lock_table(o, &r);
  LW_CHECK_MSG(e.empty(), "a lock-table repro point is misconfigured: " + e);
  return r;
}

void note_problem(const workloads::LockTableOptions& o, const workloads::LockTableResult& r, PerfResult* pr) {
  if (r.exact && r.failures == 0) return;
  std::string what = std::string(locks::to_string(o.table.kind)) + ": " +
                     (r.exact ? std::to_string(r.failures) + " failed calls" : "counters disagree") + " (" +
                     r.mismatch + ")";
  std::fprintf(stderr, "\nlatchwork repro: lock table %s\n", what.c_str());
  if (pr->error.empty()) pr->error = what;
}

}  // namespace

PerfResult run_lock_point(const ReproPoint& p) {
  LW_CHECK(p.lock_table.has_value());
  const workloads::LockTableOptions& base = *p.lock_table;
  PerfResult pr;
  pr.op = std::string("lock-") + locks::to_string(base.table.kind);
  pr.workers = uint64_t{base.cluster.memory_nodes} * base.cluster.memory_node_threads *
               base.cluster.coroutines_per_thread;
  if (!p.lock_localities.empty()) {
    // Fig. 4: the mean over localities of the Mops, or of the speedup over
    // the baseline remote budget.
    double sum = 0;
    for (uint32_t loc : p.lock_localities) {
      workloads::LockTableOptions o = base;
      o.locality_percent = loc;
      const workloads::LockTableResult r = run_one(o);
      note_problem(o, r, &pr);
      double y = r.mops;
      pr.verbs += static_cast<uint64_t>(r.nic.count("run.verbs") ? r.nic.at("run.verbs") : 0);
      pr.wall_seconds += r.nic.count("run.wall_seconds") ? r.nic.at("run.wall_seconds") : 0;
      pr.counters["lock.mops_" + std::to_string(loc)] = r.mops;
      if (p.lock_baseline_remote_budget > 0) {
        o.table.remote_budget = p.lock_baseline_remote_budget;
        const workloads::LockTableResult b = run_one(o);
        note_problem(o, b, &pr);
        pr.verbs += static_cast<uint64_t>(b.nic.count("run.verbs") ? b.nic.at("run.verbs") : 0);
        pr.wall_seconds += b.nic.count("run.wall_seconds") ? b.nic.at("run.wall_seconds") : 0;
        pr.counters["lock.baseline_mops_" + std::to_string(loc)] = b.mops;
        y = b.mops > 0 ? r.mops / b.mops : 0;
      }
      sum += y;
    }
    pr.mops = sum / static_cast<double>(p.lock_localities.size());
    return pr;
  }
  const workloads::LockTableResult r = run_one(base);
  note_problem(base, r, &pr);
  pr.ops = r.ops;
  pr.mops = r.mops;
  pr.latency_ns_mean = r.latency.mean();
  pr.latency_ns_p50 = static_cast<double>(r.latency.quantile(0.5));
  pr.latency_ns_p90 = static_cast<double>(r.latency.quantile(0.9));
  pr.latency_ns_p99 = static_cast<double>(r.latency.quantile(0.99));
  pr.latency_ns_p999 = static_cast<double>(r.latency.quantile(0.999));
  pr.counters = r.nic;
  for (double q : kLockQuantiles) {
    char name[32];
    std::snprintf(name, sizeof name, "lock.q%g_us", q);
    pr.counters[name] = static_cast<double>(r.latency.quantile(q / 100)) / 1e3;
  }
  pr.counters["lock.local_p50_us"] = static_cast<double>(r.local_latency.quantile(0.5)) / 1e3;
  pr.counters["lock.remote_p50_us"] = static_cast<double>(r.remote_latency.quantile(0.5)) / 1e3;
  const auto& s = r.totals;
  pr.counters["lock.acquisitions"] = static_cast<double>(s.acquisitions);
  pr.counters["lock.passes"] = static_cast<double>(s.passes);
  pr.counters["lock.reacquires"] = static_cast<double>(s.reacquires);
  pr.counters["lock.remote_verbs"] = static_cast<double>(s.remote_verbs);
  pr.counters["lock.loopback_verbs"] = static_cast<double>(s.loopback_verbs);
  pr.counters["lock.cpu_accesses"] = static_cast<double>(s.cpu_accesses);
  pr.counters["lock.spins"] = static_cast<double>(s.spins);
  pr.counters["lock.exact"] = r.exact ? 1 : 0;
  pr.counters["lock.failures"] = static_cast<double>(r.failures);
  pr.verbs = static_cast<uint64_t>(r.nic.count("run.verbs") ? r.nic.at("run.verbs") : 0);
  pr.wall_seconds = r.nic.count("run.wall_seconds") ? r.nic.at("run.wall_seconds") : 0;
  return pr;
}

}  // namespace lw
