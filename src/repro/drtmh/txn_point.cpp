// Transaction points of the repro figures: resolve the design, build its
// cluster, run txn::run_txn, report it as a PerfResult (repro_txn.h).
#include "repro/repro_txn.h"

#include <memory>

#include "latchwork/base/assert.h"

namespace lw {
namespace {

// The window of every transaction point (virtual time). Short, so that a
// figure of ~30 points runs in well under a minute of wall time; long
// enough for thousands of transactions at the scaled-down thread counts.
constexpr Nanos kTxnWarmupNs = 100'000;
constexpr Nanos kTxnMeasureNs = 500'000;
constexpr int kMaxPhaseFlags = 16;  // E, VL, VV, L, C, R, RV and then some

std::string resolve_design(const ReproTxn& t, txn::DesignConfig* d) {
  if (!txn::design_preset(t.design, d)) return "unknown design " + t.design;
  size_t start = 0;
  for (int part = 0; part < kMaxPhaseFlags && start < t.phases.size(); ++part) {
    const size_t comma = t.phases.find(',', start);
    const size_t end = comma == std::string::npos ? t.phases.size() : comma;
    if (std::string e = txn::apply_phase_flag(t.phases.substr(start, end - start), d); !e.empty()) return e;
    start = end + 1;
  }
  if (t.passive_ack) d->passive_ack = *t.passive_ack;
  if (t.location_cache) d->location_cache = *t.location_cache;
  if (t.speculative_reads) d->speculative_reads = *t.speculative_reads;
  return d->validate();
}

}  // namespace

std::string txn_phase_counter(txn::Phase p) { return "txn.phase_us." + std::string(txn::to_string(p)); }

PerfResult txn_perf_result(const txn::TxnRunResult& r) {
  PerfResult pr;
  pr.op = r.design + "/" + r.workload;
  pr.workers = r.coordinators;
  pr.ops = r.committed;
  pr.mops = r.mtps;
  pr.latency_ns_mean = r.latency_us_mean * 1e3;
  pr.latency_ns_p50 = r.latency_us_p50 * 1e3;
  pr.latency_ns_p90 = r.latency_us_p90 * 1e3;
  pr.latency_ns_p99 = r.latency_us_p99 * 1e3;
  pr.gbps = r.mtps * 1e6 * r.bytes_per_txn / 1e9;
  pr.verbs = r.verbs;
  pr.wall_seconds = r.wall_seconds;
  pr.trace_hash = r.trace_hash;
  pr.counters = r.counters;
  for (size_t i = 0; i < static_cast<size_t>(txn::Phase::kCount); ++i)
    pr.counters[txn_phase_counter(static_cast<txn::Phase>(i))] = r.phase_us[i];
  pr.counters[kTxnAbortRateCounter] = r.abort_rate;
  pr.counters["txn.round_trips_per_txn"] = r.round_trips_per_txn;
  pr.counters["txn.rpcs_per_txn"] = r.rpcs_per_txn;
  pr.counters["txn.bytes_per_txn"] = r.bytes_per_txn;
  pr.counters["txn.cache_hit_rate"] = r.cache_hit_rate;
  pr.error = r.error;
  return pr;
}

PerfResult run_txn_point(const ReproPoint& p) {
  LW_CHECK_MSG(p.txn.has_value(), "not a transaction point");
  const ReproTxn& t = *p.txn;
  txn::TxnRunOptions o = t.run;
  std::string err = resolve_design(t, &o.design);
  ClusterConfig c;
  if (err.empty()) {
    const std::string profile = !t.nic_profile.empty() ? t.nic_profile : o.design.disaggregated ? "cx6-200g" : "cx5-100g";
    c = txn::txn_cluster(o.design, profile, t.nodes, t.threads, t.coroutines, t.memory_nodes, t.memory_node_bytes);
    for (const auto& [k, v] : t.nic_overrides) c.nic.overrides[k] = v;
    if (t.rpc_cores > 0) c.rpc.cores_per_node = t.rpc_cores;
    c.rpc.servers = t.rpc_servers;
    if (t.qp_policy) c.nic.qp_policy = *t.qp_policy;
    c.seed = p.cluster.seed;
    err = c.validate();
  }
  if (err.empty()) err = o.validate(c);
  std::unique_ptr<txn::TxnWorkload> w;
  if (err.empty()) {
    workloads::OltpOptions oo = t.oltp;
    oo.nodes = c.memory_nodes;  // the data is scaled per store node and partitioned over them
    w = workloads::make_oltp_workload(t.workload, oo, &err);
  }
  if (!err.empty() || !w) {
    PerfResult bad;
    bad.op = t.design + "/" + t.workload;
    bad.error = err.empty() ? "no workload" : err;
    return bad;
  }
  return txn_perf_result(txn::run_txn(c, *w, o));
}

ReproPoint txn_point(std::string series, double x, const std::string& design, const std::string& phase_flags,
                     const std::string& workload, uint32_t nodes, uint32_t threads, uint32_t coroutines) {
  ReproPoint p;
  p.series = std::move(series);
  p.x = x;
  ReproTxn t;
  t.workload = workload;
  t.design = design;
  t.phases = phase_flags;
  // A coordinator's transaction takes about `coroutines` times longer once
  // its thread is saturated (TPC-C at 16: p50 0.4-0.9 ms): the window grows
  // with it, so that it holds several transactions per coordinator.
  const Nanos scale = std::max<Nanos>(1, coroutines / 4);
  t.run.warmup_ns = kTxnWarmupNs * scale;
  t.run.measure_ns = kTxnMeasureNs * scale;
  t.nodes = nodes;
  t.threads = threads;
  t.coroutines = coroutines;
  p.txn = std::move(t);
  return p;
}

}  // namespace lw
