// The transaction experiment (run.h): build the store for a workload, spawn
// coordinators, run them for a window of virtual time (or a fixed number of
// transactions each), and summarise; optionally verify the final state.
#include "latchwork/txn/run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "latchwork/backends.h"
#include "latchwork/base/assert.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/sim/timeline.h"
#include "latchwork/txn/load.h"
#include "latchwork/txn/txn.h"

namespace lw::txn {

namespace {

// Work requests one coordinator may have on one queue pair: a batch of
// Batch::kMax and as many unsignaled ones (txn_state.h).
constexpr uint64_t kWrsPerCoordinator = 2 * Batch::kMax;

double percentile_us(const std::vector<Nanos>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t i = std::min(sorted.size() - 1, static_cast<size_t>(q * static_cast<double>(sorted.size())));
  return static_cast<double>(sorted[i]) / 1e3;
}

uint64_t process_seed(uint64_t seed, uint32_t process_index) {
  if (process_index == 0) return seed;
  uint64_t s = seed ^ (uint64_t{process_index} * 0x9e3779b97f4a7c15ull);
  return splitmix64(s);
}

// What one coordinator measured; summed under a lock (threads backend).
struct Tally {
  uint64_t committed = 0, aborted = 0, gave_up = 0, failed = 0;
  std::vector<uint64_t> by_type;
  std::vector<Nanos> latencies;
  Nanos phase_ns[static_cast<size_t>(Phase::kCount)] = {};
  OpCounters ops;  // in the window
  uint64_t cache_hits = 0, cache_misses = 0, torn = 0, reclaims = 0;
  uint64_t aborts_by_phase[static_cast<size_t>(Phase::kCount)] = {};
  TxnEffect effect;  // the whole run's committed transactions
  std::string error;
};

void add_ops(OpCounters& to, const OpCounters& a, const OpCounters& b) {
  to.round_trips += a.round_trips - b.round_trips;
  to.work_requests += a.work_requests - b.work_requests;
  to.bytes_read += a.bytes_read - b.bytes_read;
  to.bytes_written += a.bytes_written - b.bytes_written;
  to.rpcs += a.rpcs - b.rpcs;
  to.retries += a.retries - b.retries;
}

// Every backup equal to its primary, every lock free.
std::string verify_replicas(const Store& s) {
  for (TableId t = 0; t < s.tables().size(); ++t) {
    std::vector<std::byte> p0(s.payload_bytes(t)), pr(s.payload_bytes(t));
    for (uint64_t key : s.keys(t)) {
      RecordView v0, vr;
      if (!s.host_read(t, key, 0, &v0, p0)) return "a loaded record is missing";
      const std::string name = s.tables()[t].name + " key " + std::to_string(key);
      if (v0.lock != 0) return name + ": the primary's lock is held after the run";
      if (!v0.consistent) return name + ": the primary is torn after the run";
      for (uint32_t r = 1; r < s.replicas(); ++r) {
        s.host_read(t, key, r, &vr, pr);
        if (vr.lock != 0) return name + ": backup " + std::to_string(r) + "'s lock word is not 0";
        if (vr.version != v0.version || pr != p0)
          return name + ": backup " + std::to_string(r) + " has version " + std::to_string(vr.version) +
                 ", the primary " + std::to_string(v0.version);
      }
    }
  }
  return {};
}

}  // namespace

// A field added to TxnRunOptions changes this size: compare it in its
// operator== (or say there why it does not change a run).
static_assert(sizeof(TxnRunOptions) == 240, "TxnRunOptions changed: review its operator==");

std::string TxnRunOptions::validate(const ClusterConfig& c) const {
  if (std::string e = c.validate(); !e.empty()) return e;
  if (std::string e = design.validate(); !e.empty()) return "design " + design.name + ": " + e;
  if (txns_per_worker == 0 && (measure_ns == 0 || measure_ns > ClusterConfig::kMaxLatencyNs ||
                               warmup_ns > ClusterConfig::kMaxLatencyNs))
    return "the measurement window must be in (0, 1 s] and the warm-up in [0, 1 s] of virtual time";
  if (txns_per_worker > max_txns_per_worker) return "txns_per_worker above max_txns_per_worker";
  if (max_attempts == 0 || max_attempts > 1'000'000) return "max_attempts must be in [1, 10^6]";
  if (retry_backoff_ns > 1'000'000) return "retry_backoff_ns must be at most 1 ms";
  if (think_ns > ClusterConfig::kMaxLatencyNs) return "the think time must be at most 1 s of virtual time";
  if (processes == 0 || process_index >= processes) return "process_index must be below processes";
  if (processes > 1 && shared_name.empty()) return "a multi-process run needs shared_name";
  if (processes > 1 && c.backend != "verbs") return "processes > 1 is for the verbs backend";
  if (!design.disaggregated) {
    if (c.memory_node_threads == 0)
      return "symmetric designs run coordinators on memory-node threads: set memory_node_threads (txn_cluster does)";
    if (processes > 1 && processes != c.memory_nodes)
      return "symmetric multi-process runs are one process per memory node";
  } else if (c.total_workers() == 0) {
    return "disaggregated designs run coordinators on compute threads";
  }
  if (uint64_t{c.coroutines_per_thread} * kWrsPerCoordinator > c.queue_depth)
    return "each coordinator needs " + std::to_string(kWrsPerCoordinator) +
           " work requests per queue pair: raise queue_depth to coroutines_per_thread x " +
           std::to_string(kWrsPerCoordinator);
  if (log_ring_bytes < 2048 || log_ring_bytes % 64 != 0) return "log_ring_bytes must be a multiple of 64, >= 2048";
  return {};
}

ClusterConfig txn_cluster(const DesignConfig& d, const std::string& nic_profile, uint32_t nodes, uint32_t threads,
                          uint32_t coroutines, uint32_t memory_nodes, uint64_t memory_node_bytes) {
  ClusterConfig c;
  c.nic.profile = nic_profile;
  c.coroutines_per_thread = coroutines;
  c.memory_node_bytes = memory_node_bytes;
  if (d.disaggregated) {
    c.compute_nodes = nodes;
    c.threads_per_node = threads;
    c.memory_nodes = memory_nodes;
    c.memory_node_threads = 0;
  } else {
    c.compute_nodes = 1;  // idle
    c.threads_per_node = 1;
    c.memory_nodes = nodes;
    c.memory_node_threads = threads;
  }
  c.queue_depth = static_cast<uint32_t>(std::max<uint64_t>(c.queue_depth, uint64_t{coroutines} * kWrsPerCoordinator));
  if (d.disaggregated) {
    // FORD and SMART-DTX keep their records in persistent memory (SMART
    // §6.2.2: Optane DC PMM on the memory blades): the simulator's PM class.
    c.memory.kind = MemoryKind::kPm;
  }
  if (d.disaggregated && !d.smart_runtime) {
    // FORD+ (SMART §6.2.2): the driver's default allocation, threads' QPs on
    // shared doorbells (SMART §2.2), as RACE in apply_hash_table_preset.
    c.nic.qp_policy = QpPolicy::kPerThreadQp;
  }
  if (d.smart_runtime) {
    // SMART-HT's policies (bench/hash_run.h apply_hash_table_preset).
    c.nic.qp_policy = QpPolicy::kPerThreadDoorbell;
    c.smart.throttling = true;
    c.smart.backoff = true;
    c.smart.dynamic_limit = true;
    c.smart.coroutine_throttling = true;
    // And their clocks divided as hash runs do (bench/hash_run.h
    // kDefaultPolicyTimeDivisor): a simulated run lasts milliseconds.
    constexpr Nanos kPolicyTimeDivisor = 16;
    c.smart.delta_ns = std::max<Nanos>(1, c.smart.delta_ns / kPolicyTimeDivisor);
    c.smart.retry_window_ns = std::max<Nanos>(1, c.smart.retry_window_ns / kPolicyTimeDivisor);
  }
  return c;
}

Nanos retry_delay(Rng& rng, Nanos base, uint32_t attempt) {
  constexpr uint32_t kMaxDoublings = 8;
  const Nanos window = base << std::min(attempt, kMaxDoublings);
  return window == 0 ? 0 : rng.below(window);
}

TxnRunResult run_txn(const ClusterConfig& cluster, const TxnWorkload& workload, const TxnRunOptions& o) {
  TxnRunResult r;
  r.design = o.design.name;
  r.workload = workload.name();
  r.phases = o.design.describe();
  if (std::string e = o.validate(cluster); !e.empty()) {
    r.error = e;
    return r;
  }
  ClusterConfig cc = cluster;
  if (o.design.disaggregated) cc.seed = process_seed(cluster.seed, o.process_index);
  // SMART's throttle (Alg. 1) measures each candidate C_max for delta_ns and
  // starts at the smallest. A transaction window is tens of microseconds of
  // virtual time, far shorter than even a divided delta (500 us), so the
  // update phase never ended and SMART-DTX ran its whole window at the first
  // candidate (4 work requests in flight per thread: one doorbell batch of
  // FORD's CAS+READ pairs for 8 coroutines). The update phase is fitted into
  // the warm-up, so the measured window runs at the C_max Alg. 1 chose.
  if (o.design.smart_runtime && cc.smart.throttling && o.txns_per_worker == 0 && o.warmup_ns > 0) {
    const Nanos candidates = static_cast<Nanos>(std::max<size_t>(1, cc.smart.candidate_credits.size()));
    cc.smart.delta_ns = std::max<Nanos>(1, std::min(cc.smart.delta_ns, o.warmup_ns / candidates));
  }
  std::string err;
  std::unique_ptr<Backend> b = make_backend(cc, &err);
  if (!b) {
    r.error = "cannot create the backend: " + err;
    return r;
  }
  if (o.timeline) o.timeline->attach(*b);
  const ClusterConfig& c = b->config();
  if (workload.store_nodes() != 0 && workload.store_nodes() != c.memory_nodes) {
    r.error = "the " + workload.name() + " workload was scaled for " + std::to_string(workload.store_nodes()) +
              " store node(s) but the run has " + std::to_string(c.memory_nodes) +
              " memory nodes (set OltpOptions::nodes to the cluster's memory_nodes)";
    return r;
  }
  const bool symmetric = !o.design.disaggregated;
  if (symmetric && !b->capabilities().cpu_access) {
    r.error = "the " + std::string(b->name()) + " backend runs no memory-node threads";
    return r;
  }
  // Global coordinator numbers (lock words, log rings): symmetric, by
  // (memory node, thread, coroutine), the same in every `latchwork node`
  // process (process I spawns node I's only); disaggregated, process I's
  // compute coroutines after processes 0 .. I-1's.
  const uint32_t per_node = c.memory_node_threads * c.coroutines_per_thread;
  const uint32_t coordinators = symmetric ? c.memory_nodes * per_node
                                          : o.processes * static_cast<uint32_t>(c.total_workers());
  const uint32_t coordinator_base = symmetric ? 0 : o.process_index * static_cast<uint32_t>(c.total_workers());

  // The store.
  const auto load_start = std::chrono::steady_clock::now();
  StoreOptions so;
  so.nodes = c.memory_nodes;
  so.replicas = o.design.replicas;
  so.coordinators = coordinators;
  so.log_ring_bytes = o.log_ring_bytes;
  so.shared_name = o.shared_name;
  so.write_images = o.process_index == 0;
  so.node_bytes = c.memory_node_bytes;
  std::unique_ptr<Store> store = load_store(*b, workload, so, &err);
  if (!store) {
    r.error = "cannot build the store: " + err;
    r.input_error = err.rfind(kStoreDoesNotFit, 0) == 0;
    return r;
  }
  Engine::Options eo;
  eo.design = o.design;
  eo.on_commit = o.on_commit;
  eo.coordinator_base = coordinator_base;
  eo.warm_cache = o.warm_cache;
  std::unique_ptr<Engine> engine = Engine::create(*b, *store, eo, &err);
  if (!engine) {
    r.error = "cannot create the engine: " + err;
    return r;
  }
  std::unique_ptr<smart::Runtime> rt;
  if (o.design.smart_runtime) {
    rt = std::make_unique<smart::Runtime>(c);
    engine->set_runtime(rt.get());
  }
  RemoteAddr effects;
  if (o.processes > 1) {
    effects = b->allocate_shared(0, o.shared_name + "/txn/effects", uint64_t{o.processes} * kCacheLine);
    if (effects.is_null()) {
      r.error = "the per-process effects do not fit memory node 0";
      return r;
    }
    if (std::string e = b->barrier(o.shared_name + "/txn-loaded", o.processes, o.barrier_timeout_ms); !e.empty()) {
      r.error = "waiting for the other processes: " + e;
      return r;
    }
  }
  r.load_wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();

  // The coordinators.
  const std::vector<std::string> types = workload.types();
  const bool fixed = o.txns_per_worker > 0;
  const Nanos win_begin = o.warmup_ns, win_end = o.warmup_ns + o.measure_ns;
  Tally total;
  total.by_type.assign(types.size(), 0);
  std::mutex mu;
  const WorkerMain main = [&](Worker& w) -> Task<void> {
    const Placement& p = w.placement();
    const uint32_t coord =
        symmetric ? (p.node * c.memory_node_threads + p.thread) * c.coroutines_per_thread + p.coroutine
                  : coordinator_base +
                        static_cast<uint32_t>((uint64_t{p.node} * c.threads_per_node + p.thread) * c.coroutines_per_thread +
                                              p.coroutine);
    Txn txn(*engine, w, coord);
    Tally t;
    t.by_type.assign(types.size(), 0);
    OpCounters at_begin, at_end;
    bool began = fixed, ended = false;
    const NodeId home = symmetric ? static_cast<NodeId>(p.node) : NodeId{0};
    for (uint64_t i = 0; i < o.max_txns_per_worker; ++i) {
      if (fixed && i >= o.txns_per_worker) break;
      if (o.think_ns > 0)
        co_await w.sleep(i > 0 ? o.think_ns : static_cast<Nanos>(w.rng().below(static_cast<uint64_t>(o.think_ns))));
      w.compute(CpuWork::kOpIssue, 1);  // draw the transaction and its inputs, time it
      const Nanos start = w.now();
      if (!fixed) {
        if (!began && start >= win_begin) {
          began = true;
          at_begin = w.counters();
        }
        if (start >= win_end) {
          at_end = w.counters();
          ended = true;
          break;
        }
      }
      const TxnInput in = workload.draw(w.rng(), home, c.memory_nodes);
      TxnStatus st = TxnStatus::kAborted;
      TxnEffect eff;
      uint64_t aborted = 0;
      const TxnCounters before = txn.counters();
      for (uint32_t a = 0; a < o.max_attempts; ++a) {
        eff = TxnEffect{};
        st = co_await workload.execute(txn, in, &eff);
        if (st != TxnStatus::kAborted) break;
        ++aborted;
        if (a + 1 < o.max_attempts && o.retry_backoff_ns > 0)
          co_await w.sleep(retry_delay(w.rng(), o.retry_backoff_ns, a));
      }
      const Nanos end = w.now();
      const bool in_window = fixed || (end >= win_begin && end < win_end);
      if (st == TxnStatus::kOk) t.effect.balance_delta += eff.balance_delta;
      if (in_window) {
        t.aborted += aborted;
        const TxnCounters& now = txn.counters();
        for (size_t k = 0; k < static_cast<size_t>(Phase::kCount); ++k)
          t.aborts_by_phase[k] += now.aborts_by_phase[k] - before.aborts_by_phase[k];
        if (st == TxnStatus::kOk) {
          ++t.committed;
          if (in.type < t.by_type.size()) ++t.by_type[in.type];
          t.latencies.push_back(end - start);
          for (size_t k = 0; k < static_cast<size_t>(Phase::kCount); ++k)
            t.phase_ns[k] += now.phase_ns[k] - before.phase_ns[k];
        } else if (st == TxnStatus::kAborted) {
          ++t.gave_up;
        }
      }
      if (st == TxnStatus::kFailed) {
        ++t.failed;
        if (t.error.empty())
          t.error = "coordinator " + std::to_string(coord) + ": a transaction failed with " +
                    std::string(lw::to_string(txn.error())) +
                    (txn.error() == Status::kBadLength ? " (a log entry larger than a log ring? raise log_ring_bytes)"
                     : txn.error() == Status::kOutOfBounds ? " (a key the store does not hold?)"
                                                           : "");
        break;
      }
    }
    if (fixed || !ended) at_end = w.counters();
    if (began) add_ops(t.ops, at_end, at_begin);
    const Status ds = co_await txn.drain();
    if (!ok(ds) && t.error.empty())
      t.error = "coordinator " + std::to_string(coord) + ": drain failed with " + std::string(lw::to_string(ds));
    const TxnCounters& tc = txn.counters();
    t.cache_hits = tc.cache_hits;
    t.cache_misses = tc.cache_misses;
    t.torn = tc.torn_reads;
    t.reclaims = tc.reclaims;
    std::lock_guard<std::mutex> g(mu);
    total.committed += t.committed;
    total.aborted += t.aborted;
    total.gave_up += t.gave_up;
    total.failed += t.failed;
    for (size_t k = 0; k < t.by_type.size(); ++k) total.by_type[k] += t.by_type[k];
    total.latencies.insert(total.latencies.end(), t.latencies.begin(), t.latencies.end());
    for (size_t k = 0; k < static_cast<size_t>(Phase::kCount); ++k) {
      total.phase_ns[k] += t.phase_ns[k];
      total.aborts_by_phase[k] += t.aborts_by_phase[k];
    }
    add_ops(total.ops, t.ops, OpCounters{});
    total.cache_hits += t.cache_hits;
    total.cache_misses += t.cache_misses;
    total.torn += t.torn;
    total.reclaims += t.reclaims;
    total.effect.balance_delta += t.effect.balance_delta;
    if (total.error.empty()) total.error = t.error;
  };
  uint64_t spawned = 0;
  if (symmetric) {
    for (uint32_t n = 0; n < c.memory_nodes; ++n) {
      if (o.processes > 1 && n != o.process_index) continue;
      for (uint32_t th = 0; th < c.memory_node_threads; ++th)
        for (uint32_t co = 0; co < c.coroutines_per_thread; ++co, ++spawned)
          b->spawn({Placement::Kind::kMemory, n, th, co}, main);
    }
  } else {
    b->spawn_compute(main);
    spawned = c.total_workers();
  }
  const RunStats stats = b->run();
  require_within_budget(stats);
  r.coordinators = spawned;

  TxnEffect effect = total.effect;
  if (o.processes > 1) {
    b->host_store(effects + uint64_t{o.process_index} * kCacheLine, static_cast<uint64_t>(effect.balance_delta));
    if (std::string e = b->barrier(o.shared_name + "/txn-done", o.processes, o.barrier_timeout_ms); !e.empty()) {
      r.error = "waiting for the other processes to finish: " + e;
      return r;
    }
    effect.balance_delta = 0;
    for (uint32_t pi = 0; pi < o.processes; ++pi)
      effect.balance_delta += static_cast<int64_t>(b->host_load(effects + uint64_t{pi} * kCacheLine));
  }

  r.committed = total.committed;
  r.aborted = total.aborted;
  r.gave_up = total.gave_up;
  r.failed = total.failed;
  r.committed_by_type = total.by_type;
  r.elapsed_ns = stats.elapsed_ns;
  r.verbs = stats.verbs;
  r.wall_seconds = stats.wall_seconds;
  r.trace_hash = stats.trace_hash;
  r.counters = stats.counters;
  r.effect = effect;
  const double span_ns = fixed ? static_cast<double>(stats.elapsed_ns) : static_cast<double>(o.measure_ns);
  r.mtps = span_ns > 0 ? static_cast<double>(r.committed) * 1e3 / span_ns : 0;
  const uint64_t attempts = r.committed + r.aborted + r.gave_up;
  r.abort_rate = attempts ? static_cast<double>(r.aborted) / static_cast<double>(attempts) : 0;
  std::sort(total.latencies.begin(), total.latencies.end());
  r.latency_us_p50 = percentile_us(total.latencies, 0.50);
  r.latency_us_p90 = percentile_us(total.latencies, 0.90);
  r.latency_us_p99 = percentile_us(total.latencies, 0.99);
  if (!total.latencies.empty()) {
    double sum = 0;
    for (Nanos l : total.latencies) sum += static_cast<double>(l);
    r.latency_us_mean = sum / static_cast<double>(total.latencies.size()) / 1e3;
  }
  const double per = r.committed ? 1.0 / static_cast<double>(r.committed) : 0;
  for (size_t k = 0; k < static_cast<size_t>(Phase::kCount); ++k)
    r.phase_us[k] = static_cast<double>(total.phase_ns[k]) * per / 1e3;
  r.round_trips_per_txn = static_cast<double>(total.ops.round_trips) * per;
  r.rpcs_per_txn = static_cast<double>(total.ops.rpcs) * per;
  r.bytes_per_txn = static_cast<double>(total.ops.bytes_read + total.ops.bytes_written) * per;
  const uint64_t lookups = total.cache_hits + total.cache_misses;
  r.cache_hit_rate = lookups ? static_cast<double>(total.cache_hits) / static_cast<double>(lookups) : 0;
  r.counters["txn.torn_reads"] = static_cast<double>(total.torn);
  r.counters["txn.reclaims"] = static_cast<double>(total.reclaims);
  for (size_t k = 0; k < static_cast<size_t>(Phase::kCount); ++k)
    r.counters["txn.aborts." + std::string(to_string(static_cast<Phase>(k)))] =
        static_cast<double>(total.aborts_by_phase[k]);
  r.counters["run.events"] = static_cast<double>(stats.events);
  if (!total.error.empty()) r.error = total.error;
  else if (!stats.stalled.empty()) r.error = "the run stalled: " + stats.stalled;
  if (r.error.empty() && o.verify) {
    r.error = verify_replicas(*store);
    if (r.error.empty()) r.error = workload.check(*store, effect);
    r.verified = r.error.empty();
  }
  return r;
}

std::string TxnRunResult::to_json() const {
  char hash[32];
  std::snprintf(hash, sizeof hash, "0x%016llx", static_cast<unsigned long long>(trace_hash));
  nlohmann::json phase = nlohmann::json::object();
  for (size_t k = 0; k < static_cast<size_t>(Phase::kCount); ++k)
    phase[std::string(to_string(static_cast<Phase>(k)))] = phase_us[k];
  nlohmann::json j = {{"design", design},
                      {"workload", workload},
                      {"phases", phases},
                      {"coordinators", coordinators},
                      {"committed", committed},
                      {"aborted", aborted},
                      {"gave_up", gave_up},
                      {"failed", failed},
                      {"committed_by_type", committed_by_type},
                      {"mtps", mtps},
                      {"abort_rate", abort_rate},
                      {"latency_us",
                       {{"p50", latency_us_p50}, {"p90", latency_us_p90}, {"p99", latency_us_p99}, {"mean", latency_us_mean}}},
                      {"phase_us", phase},
                      {"round_trips_per_txn", round_trips_per_txn},
                      {"rpcs_per_txn", rpcs_per_txn},
                      {"bytes_per_txn", bytes_per_txn},
                      {"cache_hit_rate", cache_hit_rate},
                      {"effect", {{"balance_delta", effect.balance_delta}}},
                      {"verbs", verbs},
                      {"elapsed_ns", elapsed_ns},
                      {"wall_seconds", wall_seconds},
                      {"load_wall_seconds", load_wall_seconds},
                      {"trace_hash", hash},
                      {"counters", counters},
                      {"verified", verified}};
  if (!error.empty()) j["error"] = error;
  if (input_error) j["input_error"] = true;
  return j.dump();
}

}  // namespace lw::txn
