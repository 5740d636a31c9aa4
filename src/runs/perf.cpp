#include "runs/perf.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/sim/timeline.h"

namespace lw {
namespace {

// One thread's measurements, shared by its coroutines. Every backend runs a
// thread's coroutines on one OS thread (thread_index), so recording needs no
// lock. Why per thread, not per coroutine: with 768 coroutines each appending
// to its own vector, every sample missed the cache (perf read ran 15-20%
// slower); a thread's one tail stays in cache.
struct alignas(kCacheLine) ThreadSamples {
  std::vector<Nanos> latencies;
  uint64_t ops = 0;
};

struct Samples {
  explicit Samples(size_t threads) : threads(threads) {}
  std::vector<ThreadSamples> threads;  // by thread_index
  std::mutex mu;      // guards `error`: the threads backend records from many OS threads
  std::string error;  // the first verb that failed
};

// The latency at quantile `q`: the element a full sort would put at index
// floor(q n). Quantiles are asked in increasing order, and each selection
// leaves everything from its index on in [`*from`, end), so the next one
// selects only there (a sort of every sample was a tenth of a perf run).
double percentile(std::vector<Nanos>& samples, double q, size_t* from) {
  if (samples.empty()) return 0;
  const size_t i = std::min(samples.size() - 1, static_cast<size_t>(q * static_cast<double>(samples.size())));
  LW_CHECK(i >= *from);
  std::nth_element(samples.begin() + static_cast<std::ptrdiff_t>(*from),
                   samples.begin() + static_cast<std::ptrdiff_t>(i), samples.end());
  *from = i;
  return static_cast<double>(samples[i]);
}

uint64_t op_bytes(const PerfOptions& o) { return is_atomic(o.op) ? 8 : o.size; }

// One round of `wrs` requests: parts of up to Batch::kMax, all but the last
// posted unsignaled (completed by the last, signaled one on the same queue
// pair), the last awaited; through the SMART context when there is one.
Task<Status> perf_batch(Worker& w, smart::Context* ctx, const PerfOptions& o, uint32_t wrs, RemoteAddr target,
                        uint64_t region_bytes, std::vector<std::byte>& buf) {
  const uint64_t bytes = op_bytes(o);
  const uint64_t align = std::max<uint64_t>(8, std::min<uint64_t>(bytes, kCacheLine));
  uint32_t done = 0;
  Status s = Status::kOk;
  for (uint32_t part = 0; part <= PerfOptions::kMaxBatch / Batch::kMax && done < wrs; ++part) {
    Batch b;
    const uint32_t n = std::min<uint32_t>(Batch::kMax, wrs - done);
    for (uint32_t k = 0; k < n; ++k) {
      RemoteAddr at = target;
      if (o.random_region) at = target + w.rng().below((region_bytes - bytes) / align + 1) * align;
      std::byte* mine = buf.data() + uint64_t{done + k} * bytes;
      switch (o.op) {
        case Opcode::kRead: b.read(mine, at, static_cast<uint32_t>(bytes)); break;
        case Opcode::kWrite: b.write(at, mine, static_cast<uint32_t>(bytes)); break;
        case Opcode::kCas: b.cas(at, 0, 0); break;
        default: b.faa(at, 1); break;
      }
    }
    done += n;
    if (done < wrs) {
      s = w.post(b);
      if (s != Status::kOk) break;
      continue;
    }
    if (ctx) {
      co_await ctx->begin_op(0);
      s = co_await ctx->execute(b);
      ctx->end_op(s == Status::kOk);
    } else {
      s = co_await w.execute(b);
    }
  }
  co_return s;
}

// `rotate`, if not empty, replaces `target`: round i goes to rotate[i % size]
// (the symmetric all-to-all's destinations, each at this worker's slot).
Task<void> perf_worker(Worker& w, smart::Runtime* rt, const PerfOptions& o, uint32_t wrs, RemoteAddr target,
                       uint64_t region_bytes, Nanos start, Samples& out, ThreadSamples& mine,
                       std::vector<RemoteAddr> rotate = {}) {
  const uint64_t bytes = op_bytes(o);
  std::vector<std::byte> buf(bytes * wrs, std::byte{0x5a});
  std::optional<smart::Context> ctx;
  if (rt) ctx.emplace(*rt, w);
  const Nanos window_begin = start + o.warmup_ns, window_end = window_begin + o.measure_ns;
  const uint64_t align = std::max<uint64_t>(8, std::min<uint64_t>(bytes, kCacheLine));
  const bool single = wrs == 1 && !rt;  // the plain one-verb loop (today's figures)
  for (uint64_t i = 0; i < o.max_ops_per_worker; ++i) {
    const Nanos t0 = w.now();
    if (t0 >= window_end) break;
    if (!rotate.empty()) target = rotate[i % rotate.size()];
    if (!o.schedule.empty() && !o.schedule.active(w.placement().thread, o.schedule.interval_at(t0))) {
      // Idle for the rest of this interval (SMART Table 1).
      co_await w.sleep(o.schedule.next_boundary(t0) - t0);
      continue;
    }
    Status s = Status::kOk;
    if (!single) {
      s = co_await perf_batch(w, ctx ? &*ctx : nullptr, o, wrs, target, region_bytes, buf);
    } else {
      RemoteAddr at = target;
      if (o.random_region) {
        const uint64_t slots = (region_bytes - bytes) / align + 1;
        at = target + w.rng().below(slots) * align;
      }
      switch (o.op) {
        case Opcode::kRead: s = co_await w.read(buf.data(), at, bytes); break;
        case Opcode::kWrite: s = co_await w.write(at, buf.data(), bytes); break;
        case Opcode::kCas: {
          // compare 0, swap 0: always succeeds, so every CAS writes back (the
          // cost the papers' contended-CAS figures measure).
          auto r = co_await w.cas(at, 0, 0);
          s = r.status;
          break;
        }
        case Opcode::kFaa: {
          auto r = co_await w.faa(at, 1);
          s = r.status;
          break;
        }
        default: LW_CHECK_MSG(false, "perf runs READ, WRITE, CAS or FAA");
      }
    }
    if (s != Status::kOk) {
      // A status, not an abort: the command reports it and exits 1.
      std::lock_guard<std::mutex> g(out.mu);
      if (out.error.empty()) {
        std::ostringstream e;
        e << "a " << perf_op_name(o.op) << " failed with status " << to_string(s) << " (worker "
          << w.placement().node << "/" << w.placement().thread << "/" << w.placement().coroutine << ")";
        out.error = e.str();
      }
      break;
    }
    const Nanos t1 = w.now();
    if (t1 >= window_begin && t1 < window_end) {
      mine.ops += wrs;
      mine.latencies.push_back(t1 - t0);
    }
  }
}

}  // namespace

const char* perf_op_name(Opcode op) {
  switch (op) {
    case Opcode::kRead: return "read";
    case Opcode::kWrite: return "write";
    case Opcode::kCas: return "cas";
    case Opcode::kFaa: return "faa";
    default: return "?";
  }
}

bool parse_perf_op(const std::string& s, Opcode* out) {
  for (Opcode op : {Opcode::kRead, Opcode::kWrite, Opcode::kCas, Opcode::kFaa}) {
    if (s == perf_op_name(op)) {
      *out = op;
      return true;
    }
  }
  return false;
}

namespace {
// Throttled batches longer than kThrottledPart go out in parts from this
// many sibling coroutines (PerfOptions::kThrottledPart).
uint32_t throttled_split(const ClusterConfig& base, const PerfOptions& o) {
  if (!base.smart.throttling || o.batch <= PerfOptions::kThrottledPart) return 1;
  return (o.batch + PerfOptions::kThrottledPart - 1) / PerfOptions::kThrottledPart;
}

// Requests per round of each (effective) coroutine.
uint32_t wrs_per_coroutine(const ClusterConfig& base, const PerfOptions& o) {
  const uint32_t split = throttled_split(base, o);
  return split == 1 ? o.batch : PerfOptions::kThrottledPart;
}

// The cluster with the perf target's device added, and the sibling
// coroutines of split throttled batches.
ClusterConfig with_target(const ClusterConfig& base, const PerfOptions& o) {
  ClusterConfig c = base;
  if (o.target == "switch") c.network.programmable_switch.enabled = true;
  if (o.target == "smartnic") c.network.smartnic.enabled = true;
  const uint64_t split = throttled_split(base, o);
  if (split > 1 && uint64_t{c.coroutines_per_thread} * split <= ClusterConfig::kMaxCoroutinesPerThread)
    c.coroutines_per_thread = static_cast<uint32_t>(c.coroutines_per_thread * split);
  return c;
}
// The workers that issue the measured verbs (the CAS flow's included).
uint64_t perf_workers(const ClusterConfig& c, const PerfOptions& o) {
  return o.symmetric ? uint64_t{c.memory_nodes} * c.memory_node_threads
                     : c.total_compute_threads() * c.coroutines_per_thread;
}
// Target slots per node: symmetric, every worker has its own slot at every
// other node; else the workers are dealt over the `nodes` targets.
uint64_t slots_per_node(const ClusterConfig& c, const PerfOptions& o, uint64_t nodes) {
  const uint64_t workers = perf_workers(c, o);
  return o.symmetric ? workers : (workers + nodes - 1) / nodes;
}
}  // namespace

std::string validate_perf(const ClusterConfig& base, const PerfOptions& o) {
  if (o.target != "memory" && o.target != "switch" && o.target != "smartnic")
    return "target must be memory, switch or smartnic";
  if (o.batch == 0 || o.batch > PerfOptions::kMaxBatch)
    return "batch must be in [1, " + std::to_string(PerfOptions::kMaxBatch) + "]";
  if (uint64_t{base.coroutines_per_thread} * throttled_split(base, o) > ClusterConfig::kMaxCoroutinesPerThread)
    return "depth x batch / 4 is more coroutines than a thread may have (throttled batches are split)";
  const ClusterConfig c = with_target(base, o);
  // Every coroutine keeps `batch` requests outstanding on its thread's queue pair.
  const uint64_t wrs = wrs_per_coroutine(base, o);
  if (c.coroutines_per_thread * wrs > c.queue_depth)
    return "depth x batch " + std::to_string(c.coroutines_per_thread * wrs) +
           " is more than the queue pair holds (queue_depth " + std::to_string(c.queue_depth) +
           "): lower --depth or --batch, or raise queue_depth in the --config file";
  if (o.batch > 1 && o.target != "memory") return "--batch needs --target memory";
  if (o.symmetric) {
    if (o.target != "memory") return "--symmetric needs --target memory";
    if (c.memory_nodes < 2) return "--symmetric needs at least 2 memory nodes (all-to-all never targets its own node)";
    if (c.memory_node_threads == 0) return "--symmetric needs memory-node threads (memory_node_threads >= 1)";
    if (c.coroutines_per_thread != 1)
      return "--symmetric runs one coroutine per memory-node thread: use --batch for more verbs in flight, not --depth";
    if (o.cas_flow_threads > 0) return "--symmetric and --cas-flow-threads exclude each other";
    if (c.smart.throttling) return "--symmetric runs without the SMART runtime's throttling";
  }
  if (o.cas_flow_threads > 0) {
    if (o.cas_flow_threads >= c.threads_per_node)
      return "--cas-flow-threads must leave at least one thread of each compute node to the measured flow";
    if (o.op != Opcode::kRead && o.op != Opcode::kWrite) return "--cas-flow-threads measures a read or write flow";
    if (o.target != "memory" || o.batch != 1 || c.smart.throttling)
      return "--cas-flow-threads needs --target memory, --batch 1 and no throttling";
  }
  if (std::string e = c.validate(); !e.empty()) return e;
  // Every worker keeps a buffer of one transfer.
  if (c.total_workers() * wrs * op_bytes(o) > PerfOptions::kMaxBufferBytes)
    return "workers x batch x size is " + std::to_string(c.total_workers() * wrs * op_bytes(o)) +
           " bytes of buffers; at most " + std::to_string(PerfOptions::kMaxBufferBytes) +
           " (lower --size, --threads, --depth or --compute-nodes)";
  if (o.target != "memory" && o.device_memory) return "--device-memory is memory-node memory; drop it with --target " + o.target;
  if (o.target == "switch" && !is_atomic(o.op) && o.size != 8)
    return "the switch's registers are 8 bytes: use --size 8 with --target switch";
  if (o.op != Opcode::kRead && o.op != Opcode::kWrite && !is_atomic(o.op))
    return "perf runs read, write, cas or faa";
  if (!is_atomic(o.op) && (o.size == 0 || o.size > kMaxTransferBytes))
    return "size must be in [1, " + std::to_string(kMaxTransferBytes) + "]";
  // Each bound on its own first: stride + padding must not wrap around.
  if (o.stride == 0 || o.stride > PerfOptions::kMaxStep || o.padding > PerfOptions::kMaxStep ||
      o.stride + o.padding > PerfOptions::kMaxStep)
    return "stride + padding must be in [1, 2^30], got stride " + std::to_string(o.stride) +
           " and padding " + std::to_string(o.padding);
  if (o.random_region > c.memory_node_bytes)
    return "random region of " + std::to_string(o.random_region) + " bytes is larger than a memory node (" +
           std::to_string(c.memory_node_bytes) + " bytes)";
  if (o.warmup_ns > ClusterConfig::kMaxLatencyNs || o.measure_ns > ClusterConfig::kMaxLatencyNs)
    return "warm-up and measurement window must be at most 1 s of virtual time each";
  if (is_atomic(o.op) && ((o.stride + o.padding) % 8 != 0 || o.random_region % 8 != 0))
    return "atomics need 8-byte aligned targets: stride + padding must be a multiple of 8";
  if (o.contended && o.random_region) return "--contended and --random-region exclude each other";
  if (o.random_region && o.random_region < op_bytes(o)) return "random region smaller than one op";
  if (o.measure_ns == 0) return "measurement window must be positive";
  const uint64_t nodes = o.target == "memory" ? c.memory_nodes : 1;
  const uint64_t per_node = slots_per_node(c, o, nodes);
  const uint64_t need = o.random_region ? o.random_region
                                        : (o.contended ? 1 : per_node) * (o.stride + o.padding) + op_bytes(o) + 4096;
  auto less = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };  // no wrap-around
  const uint64_t have = o.target == "switch"     ? uint64_t{c.network.programmable_switch.registers} * 8
                        : o.target == "smartnic" ? less(c.network.smartnic.memory_bytes, 4096)
                        : o.device_memory        ? c.device_memory_bytes
                                                 : less(c.memory_node_bytes, 8192);
  if (need > have)
    return "targets need " + std::to_string(need) + " bytes per memory node but " +
           (o.device_memory ? "device memory" : "memory") + " has " + std::to_string(have);
  return {};
}

PerfResult run_perf(const ClusterConfig& cluster, const PerfOptions& o) {
  const std::string err = validate_perf(cluster, o);
  const ClusterConfig c = with_target(cluster, o);
  LW_CHECK_MSG(err.empty(), err);
  std::string berr;
  std::unique_ptr<Backend> backend = make_backend(c, &berr);
  LW_CHECK_MSG(backend, berr);
  if (o.timeline) o.timeline->attach(*backend);

  // One region per memory node, 4 KB aligned so that the low 12 address bits
  // of each target are exactly what the stride and padding make them.
  const uint64_t workers = perf_workers(c, o);
  const std::vector<NodeId> targets = o.target == "switch"     ? std::vector<NodeId>{c.switch_node()}
                                      : o.target == "smartnic" ? std::vector<NodeId>{c.smartnic_node()}
                                                               : [&] {
                                                                   std::vector<NodeId> v;
                                                                   for (NodeId m = 0; m < c.memory_nodes; ++m) v.push_back(m);
                                                                   return v;
                                                                 }();
  const uint64_t nodes = targets.size();
  const uint64_t per_node = slots_per_node(c, o, nodes);
  const uint64_t step = o.stride + o.padding;
  const uint64_t region = o.random_region ? o.random_region
                                          : (o.contended ? 1 : per_node) * step + op_bytes(o);
  std::vector<RemoteAddr> base;
  for (NodeId m : targets) {
    const uint64_t align = o.target == "switch" ? 8 : 4096;
    RemoteAddr a = o.device_memory ? backend->allocate_device_memory(m, region)
                                   : backend->allocate(m, region, align);
    LW_CHECK_MSG(!a.is_null(), "perf: allocation failed");
    // Zero the targets (CAS compares with 0), in chunks a transfer allows.
    std::vector<std::byte> zero(std::min<uint64_t>(region, 1 << 20), std::byte{0});
    for (uint64_t done = 0; done < region; done += zero.size())
      backend->host_write(a + done, zero.data(), std::min<uint64_t>(zero.size(), region - done));
    (void)m;
    base.push_back(a);
  }

  // Husky's CAS flow: one word per memory node, apart from the targets.
  std::vector<RemoteAddr> hot;
  for (NodeId m = 0; o.cas_flow_threads > 0 && m < c.memory_nodes; ++m) {
    const RemoteAddr a = backend->allocate(m, 64, 4096);
    LW_CHECK_MSG(!a.is_null(), "perf: allocation failed");
    const uint64_t zero = 0;
    backend->host_write(a, &zero, sizeof zero);
    hot.push_back(a);
  }
  PerfOptions cas_flow = o;
  cas_flow.op = Opcode::kCas;
  cas_flow.random_region = 0;
  cas_flow.contended = true;
  Samples cas_samples(c.total_threads());
  auto in_cas_flow = [&](const Placement& p) { return p.thread + o.cas_flow_threads >= c.threads_per_node; };

  Samples samples(c.total_threads());
  const uint32_t wrs = wrs_per_coroutine(cluster, o);
  // The SMART runtime only when a policy needs it: the plain loop stays
  // exactly what the existing figures ran.
  std::unique_ptr<smart::Runtime> rt;
  if (c.smart.throttling) rt = std::make_unique<smart::Runtime>(backend->config());
  // All-to-all (symmetric): thread t of node m starts at the (t mod (N-1))-th
  // other node after its own and moves one node on each round. Built before
  // the run: the coroutines read them while it lasts.
  std::vector<std::vector<RemoteAddr>> rotations;
  if (o.symmetric) {
    const uint32_t n = c.memory_nodes;
    for (uint32_t m = 0; m < n; ++m) {
      for (uint32_t t = 0; t < c.memory_node_threads; ++t) {
        const uint64_t slot = o.contended || o.random_region ? 0 : uint64_t{m} * c.memory_node_threads + t;
        std::vector<RemoteAddr>& rotate = rotations.emplace_back();
        for (uint32_t k = 0; k + 1 < n; ++k) rotate.push_back(base[(m + 1 + (t + k) % (n - 1)) % n] + slot * step);
      }
    }
    for (uint32_t m = 0; m < n; ++m) {
      for (uint32_t t = 0; t < c.memory_node_threads; ++t) {
        backend->spawn({Placement::Kind::kMemory, m, t, 0}, [&](Worker& w) -> Task<void> {
          const Placement& p = w.placement();
          const std::vector<RemoteAddr>& rotate = rotations[size_t{p.node} * c.memory_node_threads + p.thread];
          co_await perf_worker(w, nullptr, o, wrs, rotate[0], region, w.now(), samples,
                               samples.threads[thread_index(c, p)], rotate);
        });
      }
    }
  } else {
    backend->spawn_compute([&](Worker& w) -> Task<void> {
      const Placement& p = w.placement();
      const uint64_t index =
          (uint64_t{p.node} * c.threads_per_node + p.thread) * c.coroutines_per_thread + p.coroutine;
      const uint64_t node = index % nodes;
      const uint64_t slot = o.contended || o.random_region ? 0 : index / nodes;
      if (in_cas_flow(p)) {
        co_await perf_worker(w, nullptr, cas_flow, 1, hot[node], 8, w.now(), cas_samples,
                             cas_samples.threads[thread_index(c, p)]);
        co_return;
      }
      co_await perf_worker(w, rt.get(), o, wrs, base[node] + slot * step, region, w.now(), samples,
                           samples.threads[thread_index(c, p)]);
    });
  }
  const RunStats stats = backend->run();
  require_within_budget(stats);

  PerfResult r;
  r.op = perf_op_name(o.op);
  r.workers = o.symmetric ? workers
                          : (c.total_compute_threads() - uint64_t{c.compute_nodes} * o.cas_flow_threads) *
                                cluster.coroutines_per_thread;
  // Every thread's samples in one vector: the mean is an integer sum and the
  // quantiles a selection, so the order they were recorded in does not matter.
  std::vector<Nanos> latencies;
  for (ThreadSamples& t : samples.threads) {
    r.ops += t.ops;
    latencies.insert(latencies.end(), t.latencies.begin(), t.latencies.end());
    std::vector<Nanos>().swap(t.latencies);
  }
  const double seconds = static_cast<double>(o.measure_ns) * 1e-9;
  r.mops = static_cast<double>(r.ops) / seconds / 1e6;
  r.gbps = static_cast<double>(r.ops * op_bytes(o)) / seconds / 1e9;
  if (!latencies.empty()) {
    uint64_t sum = 0;  // exact in any order, as the double sum was below 2^53
    for (Nanos l : latencies) sum += l;
    r.latency_ns_mean = static_cast<double>(sum) / static_cast<double>(latencies.size());
  }
  size_t from = 0;
  r.latency_ns_p50 = percentile(latencies, 0.50, &from);
  r.latency_ns_p90 = percentile(latencies, 0.90, &from);
  r.latency_ns_p99 = percentile(latencies, 0.99, &from);
  r.latency_ns_p999 = percentile(latencies, 0.999, &from);
  r.verbs = stats.verbs;
  r.wall_seconds = stats.wall_seconds;
  if (c.backend == "sim" && stats.wall_seconds > 0)
    r.sim_verbs_per_wall_second = static_cast<double>(stats.verbs) / stats.wall_seconds;
  r.counters = stats.counters;
  if (o.symmetric) r.counters["symmetric.mops_per_node"] = r.mops / c.memory_nodes;
  if (o.cas_flow_threads > 0) {
    uint64_t cas_ops = 0;
    for (const ThreadSamples& t : cas_samples.threads) cas_ops += t.ops;
    r.counters["cas_flow.mops"] = static_cast<double>(cas_ops) / seconds / 1e6;
    r.counters["cas_flow.workers"] =
        static_cast<double>(uint64_t{c.compute_nodes} * o.cas_flow_threads * cluster.coroutines_per_thread);
    if (r.error.empty() && !cas_samples.error.empty()) r.error = "CAS flow: " + cas_samples.error;
  }
  if (rt) {
    // Where Alg. 1 left each thread's C_max: the throttling's choice.
    double sum = 0;
    const std::vector<smart::ThreadSummary> ts = rt->summaries();
    const size_t compute = std::min<size_t>(ts.size(), c.total_compute_threads());  // compute threads first
    for (size_t i = 0; i < compute; ++i) sum += ts[i].credits_limit;
    const double threads = static_cast<double>(compute);
    if (threads > 0) r.counters["smart.credits_limit_mean"] = sum / threads;
  }
  r.trace_hash = stats.trace_hash;
  if (!samples.error.empty()) r.error = samples.error;
  return r;
}

std::string PerfResult::to_json() const {
  nlohmann::json j = {{"op", op},
                      {"workers", workers},
                      {"ops", ops},
                      {"mops", mops},
                      {"gbps", gbps},
                      {"latency_ns", {{"mean", latency_ns_mean},
                                      {"p50", latency_ns_p50},
                                      {"p90", latency_ns_p90},
                                      {"p99", latency_ns_p99},
                                      {"p999", latency_ns_p999}}},
                      {"verbs", verbs},
                      {"wall_seconds", wall_seconds},
                      {"counters", counters}};
  char hash[32];
  std::snprintf(hash, sizeof hash, "0x%016llx", static_cast<unsigned long long>(trace_hash));
  j["trace_hash"] = hash;
  if (!error.empty()) j["error"] = error;
  if (sim_verbs_per_wall_second > 0) j["sim_verbs_per_wall_second"] = sim_verbs_per_wall_second;
  return j.dump();
}

}  // namespace lw
