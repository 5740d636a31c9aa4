// HOCL alone (Sherman §3.2.2 Fig. 2, §5.7 Fig. 16): lock and unlock of
// Zipf-chosen locks on one memory node by every compute coroutine.
#include <algorithm>
#include <memory>
#include <mutex>
#include <set>

#include "latchwork/backends.h"
#include "latchwork/base/zipf.h"
#include "runs/sherman_run.h"
#include "latchwork/runtime/smart.h"

namespace lw {

std::string HoclRunOptions::validate(const ClusterConfig& c) const {
  if (std::string e = c.validate(); !e.empty()) return e;
  if (std::string e = lock.validate(); !e.empty()) return e;
  if (locks == 0 || locks > lock.locks_per_node / 2)
    return "locks must be in [1, locks_per_node / 2] (each lock gets its own GLT slot)";
  if (std::string e = ZipfKeys::validate(locks, zipf); zipf > 0 && !e.empty()) return e;
  if (!(zipf >= 0 && zipf < 10)) return "zipf must be in [0, 10)";
  if (measure_ns == 0 || measure_ns > ClusterConfig::kMaxLatencyNs || 
      warmup_ns > ClusterConfig::kMaxLatencyNs)
    return "the measurement window must be in (0, 1 s] and the warm-up in [0, 1 s] of virtual time";
  if (c.memory_nodes < 1) return "needs a memory node";
  return {};
}

HoclRunResult run_hocl(const ClusterConfig& cluster, const HoclRunOptions& o) {
  const std::string invalid = o.validate(cluster);
  LW_CHECK_MSG(invalid.empty(), invalid);
  HoclRunResult r;
  std::string err;
  std::unique_ptr<Backend> backend = make_backend(cluster, &err);
  LW_CHECK_MSG(backend, err);
  const ClusterConfig& c = backend->config();
  Result<locks::Hocl> created = locks::Hocl::create(*backend, o.lock);
  if (!ok(created.status)) {
    r.error = "creating the lock tables failed: " + std::string(to_string(created.status));
    return r;
  }
  const locks::Hocl hocl = created.value;
  // Guarded addresses on memory node 0 whose GLT slots are all distinct, so
  // that the run has exactly `locks` locks.
  std::vector<RemoteAddr> guarded;
  std::set<uint32_t> slots;
  for (uint64_t off = 0; guarded.size() < o.locks; off += kCacheLine) {
    const RemoteAddr a(0, off);
    if (slots.insert(hocl.index_of(a)).second) guarded.push_back(a);
  }
  std::shared_ptr<const ZipfKeys> zipf = o.zipf > 0 ? ZipfKeys::shared(o.locks, o.zipf) : nullptr;
  // Hot locks are not neighbours: popularity rank -> a shuffled lock.
  std::vector<uint32_t> of_rank(o.locks);
  for (uint32_t i = 0; i < o.locks; ++i) of_rank[i] = i;
  Rng shuffle(c.seed ^ 0x484f434cull);
  for (uint32_t i = o.locks; i > 1; --i) std::swap(of_rank[i - 1], of_rank[shuffle.below(i)]);

  smart::Runtime rt(c);
  std::mutex mu;
  std::vector<Nanos> latencies;
  uint64_t ops = 0, failed = 0;
  std::string error;
  backend->spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    std::vector<Nanos> lat;
    uint64_t n = 0, bad = 0;
    std::string e;
    const Nanos window_begin = w.now() + o.warmup_ns, window_end = window_begin + o.measure_ns;
    for (uint64_t i = 0; i < o.max_ops_per_worker; ++i) {
      const Nanos t0 = w.now();
      if (t0 >= window_end) break;
      const uint64_t rank = zipf ? zipf->sample(w.rng()) : w.rng().below(o.locks);
      const RemoteAddr a = guarded[of_rank[rank]];
      co_await ctx.begin_op(0);
      const Result<locks::Hocl::Grant> g = co_await hocl.lock(ctx, a);
      Status s = g.status;
      if (ok(s)) s = co_await hocl.unlock(ctx, g.value);
      ctx.end_op(ok(s));
      const Nanos t1 = w.now();
      if (!ok(s)) {
        ++bad;
        if (e.empty()) e = "a lock or unlock failed with " + std::string(to_string(s));
        if (s != Status::kRetryExhausted) break;
        continue;
      }
      if (t1 < window_begin || t1 >= window_end) continue;
      ++n;
      lat.push_back(t1 - t0);
    }
    std::lock_guard<std::mutex> lg(mu);
    ops += n;
    failed += bad;
    latencies.insert(latencies.end(), lat.begin(), lat.end());
    if (error.empty()) error = e;
  });
  const RunStats stats = backend->run();
  require_within_budget(stats);
  r.workers = c.total_workers();
  r.ops = ops;
  r.failed = failed;
  r.mops = static_cast<double>(ops) * 1e3 / static_cast<double>(o.measure_ns);
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double q) {
    if (latencies.empty()) return 0.0;
    const size_t i = std::min(latencies.size() - 1, static_cast<size_t>(q * static_cast<double>(latencies.size())));
    return static_cast<double>(latencies[i]) / 1e3;
  };
  r.latency_us_p50 = pct(0.5);
  r.latency_us_p99 = pct(0.99);
  if (!latencies.empty()) {
    double sum = 0;
    for (Nanos l : latencies) sum += static_cast<double>(l);
    r.latency_us_mean = sum / static_cast<double>(latencies.size()) / 1e3;
  }
  r.lock = hocl.stats();
  r.on_chip = hocl.on_chip();
  r.fallback = hocl.fallback();
  r.verbs = stats.verbs;
  r.wall_seconds = stats.wall_seconds;
  r.counters = stats.counters;
  r.trace_hash = stats.trace_hash;
  r.error = error;
  if (r.error.empty() && !stats.stalled.empty()) r.error = "the run stalled: " + stats.stalled;
  return r;
}

PerfResult HoclRunResult::to_perf_result() const {
  PerfResult p;
  p.op = "hocl";
  p.workers = workers;
  p.ops = ops;
  p.mops = mops;
  p.latency_ns_mean = latency_us_mean * 1e3;
  p.latency_ns_p50 = latency_us_p50 * 1e3;
  p.latency_ns_p99 = latency_us_p99 * 1e3;
  p.verbs = verbs;
  p.wall_seconds = wall_seconds;
  p.counters = counters;
  const double acq = static_cast<double>(std::max<uint64_t>(1, lock.acquisitions));
  p.counters["hocl.handover_pct"] = 100.0 * static_cast<double>(lock.handovers) / acq;
  p.counters["hocl.cas_per_acquisition"] = static_cast<double>(lock.global_cas) / acq;
  p.counters["hocl.failed_cas_per_acquisition"] = static_cast<double>(lock.global_cas_failed) / acq;
  p.counters["hocl.on_chip"] = on_chip ? 1 : 0;
  p.trace_hash = trace_hash;
  p.error = error;
  return p;
}

}  // namespace lw
