#include "repro/repro.h"
#include "repro/repro_lock.h"
#include "repro/repro_rpc.h"
#include "repro/repro_txn.h"
#include "repro/repro_session.h"
#include "repro/paper_scale.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "latchwork/base/assert.h"

namespace lw {
namespace {

ClusterConfig nic_cluster(const std::string& profile, uint32_t compute_nodes, uint32_t threads,
                          uint32_t depth, QpPolicy policy) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = profile;
  c.nic.qp_policy = policy;
  c.compute_nodes = compute_nodes;
  c.threads_per_node = threads;
  c.coroutines_per_thread = depth;
  c.memory_nodes = 1;
  c.memory_node_bytes = 16ull << 20;
  return c;
}

PerfOptions perf(Opcode op, uint64_t stride = 64, uint64_t padding = 0) {
  PerfOptions o;
  o.op = op;
  o.stride = stride;
  o.padding = padding;
  o.warmup_ns = 60'000;
  o.measure_ns = 200'000;
  return o;
}

constexpr uint64_t kRandomRegion = 8ull << 20;

// Jasny Figs. 4, 5: 4 compute nodes, 1 storage node, synchronous workers.
ReproFigure jasny_fig4() {
  ReproFigure f;
  f.name = "jasny-fig4";
  f.title = "Jasny Fig. 4: uncontended vs contended CAS and READ (cx5-100g, 4 compute + 1 memory node)";
  f.x_label = "workers (4 compute nodes, one verb outstanding each)";
  for (uint32_t w : {4u, 8u, 16u, 32u, 64u, 128u, 256u, 512u}) {
    ReproPoint p{"", static_cast<double>(w), nic_cluster("cx5-100g", 4, w / 4, 1, QpPolicy::kPerThreadDoorbell), {}};
    p.series = "read";
    p.perf = perf(Opcode::kRead);
    f.points.push_back(p);
    p.series = "cas uncontended";
    p.perf = perf(Opcode::kCas);
    f.points.push_back(p);
    p.series = "cas contended";
    p.perf = perf(Opcode::kCas);
    p.perf.contended = true;
    f.points.push_back(p);
  }
  f.paper = {
      {"cas uncontended", 128, 51.2, "Jasny §3.2, Fig. 4: uncontended atomics peak near 51.2 M ops/s at 128 workers", true},
      {"read", 128, 51.2, "Jasny §3.2, Fig. 4: uncontended atomics scale like READ (51.2 M at 128)", false},
      {"cas contended", 8, 2.32, "Jasny §3.2, Fig. 4: contended peak 2.32 M ops/s, reached by 8 workers", true},
      {"cas contended", 512, 2.32, "Jasny §3.2, Fig. 4: contended atomics do not scale past 8 workers", false},
  };
  f.notes =
      "The drop at 512 workers is QP thrashing on the client NICs (128 QPs each); the paper gives no "
      "value for it. The paper does not say how its framework maps threads to doorbells; the model "
      "uses per-thread doorbells so that only the atomics show.";
  return f;
}

ReproFigure jasny_fig5(const std::string& name, const std::string& profile, uint32_t compute_nodes) {
  ReproFigure f;
  f.name = name;
  const bool cx7 = profile == "cx7-400g";
  f.title = cx7 ? "Jasny Fig. 17: CAS stride and padding on ConnectX-7 (cx7-400g, 2 compute + 1 memory node)"
                : "Jasny Fig. 5: uncontended CAS with strides between latches (cx5-100g, 4 compute + 1 memory node)";
  f.x_label = "workers (" + std::to_string(compute_nodes) + " compute nodes, one verb outstanding each)";
  struct S {
    const char* name;
    uint64_t stride, padding;
  };
  const std::vector<S> series = cx7 ? std::vector<S>{{"stride 64", 64, 0}, {"stride 4096", 4096, 0}, {"stride 4096 + 8 padding", 4096, 8}}
                                    : std::vector<S>{{"stride 64", 64, 0}, {"stride 256", 256, 0}, {"stride 512", 512, 0},
                                                     {"stride 4096", 4096, 0}, {"stride 4096 + 8 padding", 4096, 8}};
  for (uint32_t w : {4u, 8u, 16u, 32u, 64u, 128u, 256u}) {
    if (w < compute_nodes) continue;
    for (const S& s : series) {
      ReproPoint p{s.name, static_cast<double>(w),
                   nic_cluster(profile, compute_nodes, w / compute_nodes, 1, QpPolicy::kPerThreadDoorbell),
                   perf(Opcode::kCas, s.stride, s.padding)};
      f.points.push_back(p);
    }
  }
  if (cx7) {
    f.paper = {
        {"stride 4096", 128, 2.51, "Jasny §5.1, Figs. 17/18: contended/4 KB-aligned CAS capped near 2.5 M ops/s on ConnectX-7", true},
    };
    f.notes =
        "Fig. 17's absolute peak is bound by a two-node testbed and is not stated; the message rate "
        "and PCIe read rate of cx7-400g are assumed. Padding restoring scalability is the shape to check.";
  } else {
    f.paper = {
        {"stride 64", 128, 50, "Jasny §3.2, Fig. 5: 64 B stride peaks at 50 M with 128 workers", false},
        {"stride 256", 128, 40, "Jasny §3.2, Fig. 5: 256 B stride peaks at 40 M with 128 workers", false},
        {"stride 512", 64, 20, "Jasny §3.2, Fig. 5: 512 B stride halves, 20 M reached with 64 workers", false},
        {"stride 4096", 128, 2.32, "Jasny §3.2: 4 KB-aligned latches behave like the contended case of Fig. 4", false},
        {"stride 4096 + 8 padding", 128, 50, "Jasny §3.2, Fig. 5: with 8-byte padding all strides scale alike", false},
    };
    f.notes = "All values here are predictions: the parameters were fitted to Fig. 4 only.";
  }
  return f;
}

// SMART §3.1 Fig. 3: one compute blade, one memory blade, random 8-byte
// READs in a large region. (Fig. 13 is src/repro/smart/fig13.cpp.)
ReproFigure smart_fig3() {
  ReproFigure f;
  f.name = "smart-fig3";
  const uint32_t depth = 8;
  f.title = "SMART Fig. 3: 8-byte READ throughput by QP allocation policy (cx6-200g, depth " +
            std::to_string(depth) + ")";
  f.x_label = "threads (1 compute node, " + std::to_string(depth) + " outstanding each)";
  f.log_x = false;
  const std::vector<QpPolicy> policies = {QpPolicy::kSharedQp, QpPolicy::kPerThreadQp, QpPolicy::kPerThreadDoorbell};
  for (uint32_t t : {1u, 4u, 8u, 16u, 24u, 32u, 48u, 64u, 80u, 96u}) {
    for (QpPolicy pol : policies) {
      ReproPoint p{to_string(pol), static_cast<double>(t), nic_cluster("cx6-200g", 1, t, depth, pol),
                   perf(Opcode::kRead)};
      p.perf.random_region = kRandomRegion;
      f.points.push_back(p);
    }
  }
  f.paper = {
      {"per-thread-doorbell", 96, 110, "SMART §3.1, Fig. 3: per-thread doorbell reaches 110 MOPS", true},
      {"per-thread-qp", 96, 110 / 5.6, "SMART §3.1: per-thread doorbell up to 5.6x per-thread QP for READ", true},
      {"per-thread-qp", 16, 2 * 110 / 5.6, "derived from SMART §3.1: per-thread QP is cut in half by 96 threads (its peak, here at 16 threads, = 2x the 96-thread value)", true},
  };
  f.notes = "The shared-QP series locks the QP for every post; SMART reports it 2.4-130x below per-thread QPs.";
  return f;
}

// SMART §3.2 Fig. 4a: outstanding work requests thrash the WQE cache.
ReproFigure smart_fig4() {
  ReproFigure f;
  f.name = "smart-fig4";
  f.title = "SMART Fig. 4a: 8-byte READ throughput vs outstanding WRs per thread (cx6-200g, per-thread doorbell)";
  f.x_label = "outstanding work requests per thread";
  for (uint32_t d : {1u, 2u, 4u, 8u, 16u, 32u}) {
    for (uint32_t t : {36u, 96u}) {
      ReproPoint p{std::to_string(t) + " threads", static_cast<double>(d),
                   nic_cluster("cx6-200g", 1, t, d, QpPolicy::kPerThreadDoorbell), perf(Opcode::kRead)};
      p.perf.random_region = kRandomRegion;
      f.points.push_back(p);
    }
  }
  f.paper = {
      {"96 threads", 8, 110, "SMART §3.2: maximum READ IOPS at 96 threads x 8 OWRs (the 110 MOP/s limit)", true},
      {"96 threads", 32, 0.495 * 110, "SMART §3.2: 96 threads x 32 OWRs give 49.5% of x 8", true},
      {"36 threads", 32, 101, "SMART §3.2: 36 threads need 32 OWRs to reach 101 MOPS", true},
  };
  f.notes = "The model charges the expected WQE refetches once outstanding WRs exceed the cache (no published replacement policy).";
  return f;
}

// Sherman §4.3: CAS on the NIC's on-chip memory vs host memory.
ReproFigure sherman_device_memory() {
  ReproFigure f;
  f.name = "sherman-dm";
  f.title = "Sherman §4.3: CAS on on-chip device memory vs host memory (cx5-100g, 8 compute + 1 memory node)";
  f.x_label = "workers (8 compute nodes x threads x 2 coroutines)";
  for (uint32_t t : {1u, 2u, 4u, 8u, 16u, 22u}) {
    for (bool dm : {false, true}) {
      ReproPoint p{dm ? "device memory" : "host memory", static_cast<double>(8 * t * 2),
                   nic_cluster("cx5-100g", 8, t, 2, QpPolicy::kPerThreadDoorbell), perf(Opcode::kCas, 8)};
      p.perf.device_memory = dm;
      f.points.push_back(p);
    }
  }
  f.paper = {
      {"device memory", 352, 110, "Sherman §4.3: on-chip memory gives about 110 Mops RDMA_CAS", true},
  };
  f.notes = "Latches 8 bytes apart (a decoupled array), so the lock table does not limit either series.";
  return f;
}

// Sherman §3.2.3 Fig. 3: WRITE throughput vs IO size.
ReproFigure sherman_fig3() {
  ReproFigure f;
  f.name = "sherman-fig3";
  f.title = "Sherman Fig. 3: inbound WRITE throughput vs IO size (cx5-100g, 4 compute + 1 memory node)";
  f.x_label = "IO size (bytes)";
  for (uint32_t s : {8u, 16u, 32u, 64u, 128u, 256u, 512u, 1024u, 2048u, 4096u}) {
    ReproPoint p{"write", static_cast<double>(s), nic_cluster("cx5-100g", 4, 22, 4, QpPolicy::kPerThreadDoorbell),
                 perf(Opcode::kWrite, 4096)};
    p.perf.size = s;
    f.points.push_back(p);
  }
  f.paper = {
      {"write", 64, 50, "Sherman §3.2.3, Fig. 3: more than 50 Mops at IO sizes up to 128 B", false, 0.15, true},
      {"write", 128, 50, "Sherman §3.2.3, Fig. 3: more than 50 Mops at IO sizes up to 128 B", false, 0.15, true},
  };
  f.notes = "From 256 B the 100 Gbit/s link bounds throughput (Sherman: 'NIC's hardware bandwidth restricts throughput').";
  return f;
}

}  // namespace

// Jasny §3.4 and §4.5 (src/repro/jasny/sync.cpp).
ReproFigure jasny_fig8();
ReproFigure jasny_fig9();
ReproFigure jasny_fig14();
ReproFigure jasny_fig15();
// Jasny §3.5 and §4.6, Figs. 10 and 16 (src/repro/jasny/namdb.cpp).
ReproFigure jasny_fig10();
ReproFigure jasny_fig16();
// Jasny §4, Fig. 11 (src/repro/jasny/btree.cpp).
ReproFigure jasny_fig11();
ReproFigure jasny_fig18();
ReproFigure jasny_fig22();
ReproFigure jasny_fig25();
ReproFigure jasny_fig26();
// SMART §6.2-6.3 (src/repro/smart/, one file per figure).
ReproFigure smart_fig7();
ReproFigure smart_fig8();
ReproFigure smart_fig9();
ReproFigure smart_fig13();
ReproFigure smart_fig14();
ReproFigure smart_table1();
// ALock §2 and §6 (src/repro/alock/, one file per figure).
ReproFigure alock_fig1();
ReproFigure alock_fig4();
ReproFigure alock_fig5();
ReproFigure alock_fig6();
// Sherman §3.2.2 and §5, SMART §6.2.3 (src/repro/sherman/, one file per figure).
ReproFigure sherman_fig2();
ReproFigure sherman_fig10();
ReproFigure sherman_fig11();
ReproFigure sherman_fig12();
ReproFigure sherman_fig13();
ReproFigure sherman_fig14();
ReproFigure sherman_fig15();
ReproFigure sherman_fig16();
ReproFigure smart_fig12();

const char* to_string(ReproScale s) { return s == ReproScale::kPaper ? "paper" : "default"; }

const std::vector<std::string>& repro_scale_names() {
  static const std::vector<std::string> names = {"default", "paper"};
  return names;
}

bool parse_repro_scale(const std::string& name, ReproScale* out) {
  if (name == "default") *out = ReproScale::kDefault;
  else if (name == "paper") *out = ReproScale::kPaper;
  else return false;
  return true;
}

namespace {
const std::vector<ReproFigure>& default_figures() {
  static const std::vector<ReproFigure> figures = {
      jasny_fig4(),
      jasny_fig5("jasny-fig5", "cx5-100g", 4),
      jasny_fig5("jasny-fig17", "cx7-400g", 2),
      smart_fig3(),
      smart_fig4(),
      smart_fig13(),
      sherman_device_memory(),
      sherman_fig3(),
      drtmh_fig3b(),
      drtmh_fig5(),
      jasny_fig8(),
      jasny_fig9(),
      jasny_fig14(),
      jasny_fig15(),
      jasny_fig10(),
      jasny_fig16(),
      jasny_fig11(),
      jasny_fig18(),
      jasny_fig22(),
      jasny_fig25(),
      jasny_fig26(),
      smart_fig7(),
      smart_fig8(),
      smart_fig9(),
      smart_fig14(),
      smart_table1(),
      alock_fig1(),
      alock_fig4(),
      alock_fig5(),
      alock_fig6(),
      sherman_fig2(),
      sherman_fig10(),
      sherman_fig11(),
      sherman_fig12(),
      sherman_fig13(),
      sherman_fig14(),
      sherman_fig15(),
      sherman_fig16(),
      smart_fig12(),
      drtmh_fig6(),
      drtmh_fig7(),
      drtmh_fig8(),
      drtmh_fig9(),
      drtmh_fig10(),
      drtmh_fig11(),
      drtmh_fig12(),
      drtmh_fig13(),
      drtmh_fig14(),
      drtmh_fig15(),
      drtmh_table3(),
      smart_fig10(),
      smart_fig11(),
  };
  return figures;
}
}  // namespace

const std::vector<ReproFigure>& repro_figures(ReproScale scale) {
  if (scale == ReproScale::kDefault) return default_figures();
  static const std::vector<ReproFigure> paper = [] {
    std::vector<ReproFigure> v;
    for (const ReproFigure& f : default_figures()) v.push_back(at_paper_scale(f));
    return v;
  }();
  return paper;
}

const ReproFigure* find_repro(const std::string& name, ReproScale scale) {
  for (const auto& f : repro_figures(scale))
    if (f.name == name) return &f;
  return nullptr;
}

double repro_y(const ReproFigure& f, const PerfResult& r) {
  return f.latency ? r.latency_ns_mean / 1e3 : r.mops;
}

double repro_metric(const std::string& m, const PerfResult& r) {
  if (m == "mops") return r.mops;
  if (m == "p50_us") return r.latency_ns_p50 / 1e3;
  if (m == "p90_us") return r.latency_ns_p90 / 1e3;
  if (m == "p99_us") return r.latency_ns_p99 / 1e3;
  if (m == "mean_us") return r.latency_ns_mean / 1e3;
  if (m.rfind("counter:", 0) == 0) {
    auto it = r.counters.find(m.substr(8));
    return it == r.counters.end() ? 0 : it->second;
  }
  LW_CHECK_MSG(false, "unknown repro metric " + m);
  return 0;
}

double repro_y(const ReproFigure& f, const ReproPoint& p, const PerfResult& r) {
  return p.metric.empty() ? repro_y(f, r) : repro_metric(p.metric, r);
}

const char* repro_y_label(const ReproFigure& f) {
  return f.latency ? "mean latency (us)" : "throughput (Mops)";
}

namespace {

// One point's run (never a same_run_as view).
PerfResult run_point(const ReproPoint& p) {
  if (p.txn) return run_txn_point(p);
  if (p.lock_table) return run_lock_point(p);
  if (is_rpc_point(p)) return run_rpc_point(p);
  if (p.hash) return run_hash(p.cluster, *p.hash).to_perf_result();
  if (p.sherman) return run_sherman(p.cluster, *p.sherman).to_perf_result();
  if (p.hocl) return run_hocl(p.cluster, *p.hocl).to_perf_result();
  if (p.tuples) {
    const TupleWorkloadResult t = run_tuple_workload(p.cluster, *p.tuples);
    PerfResult pr;
    pr.op = p.tuples->scheme;
    pr.workers = t.workers;
    pr.ops = t.ops;
    pr.mops = t.mops;
    pr.gbps = t.mops * 1e6 * p.tuples->tuple_bytes / 1e9;
    pr.latency_ns_mean = t.mean_latency_us * 1e3;
    pr.verbs = t.verbs;
    pr.wall_seconds = t.wall_seconds;
    return pr;
  }
  if (p.btree) {
    const BTreeWorkloadResult t = run_btree_workload(p.cluster, *p.btree);
    PerfResult pr;
    pr.op = "btree-" + p.btree->sync;
    pr.workers = t.workers;
    pr.ops = t.ops;
    pr.mops = t.mops;
    pr.gbps = t.node_gbps;  // node bytes of the root-to-leaf paths
    pr.latency_ns_mean = t.mean_latency_us * 1e3;
    pr.verbs = t.verbs;
    pr.wall_seconds = t.wall_seconds;
    return pr;
  }
  return run_perf(p.cluster, p.perf);
}

}  // namespace

ReproResult run_repro(const ReproFigure& f, const std::function<void(size_t, size_t)>& progress,
                      uint32_t jobs, ReproSession* session) {
  std::optional<ReproSession> own;
  if (session == nullptr) session = &own.emplace();
  ReproResult r;
  r.figure = &f;
  const auto start = std::chrono::steady_clock::now();  // reported only
  const size_t n = f.points.size();
  for (size_t i = 0; i < n; ++i)
    LW_CHECK_MSG(f.points[i].same_run_as < static_cast<int>(i), "same_run_as must name an earlier point");
  // Points that run a simulation of their own; the others copy a result.
  std::vector<size_t> runs;
  for (size_t i = 0; i < n; ++i)
    if (f.points[i].same_run_as < 0) runs.push_back(i);
  r.results.resize(n);
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<uint32_t>(std::min<size_t>(jobs, std::max<size_t>(1, runs.size())));
  std::mutex mu;  // guards `done`, `failure` and the progress callback
  size_t done = 0;
  std::exception_ptr failure;
  std::atomic<size_t> next{0};
  if (progress) progress(0, n);
  // Workers take points in order; each result goes to its own slot.
  auto work = [&] {
    for (size_t k = next++; k < runs.size(); k = next++) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (failure) return;
      }
      try {
        const ReproPoint& p = f.points[runs[k]];
        std::optional<PerfResult> earlier = session->find(p);
        PerfResult pr = earlier ? std::move(*earlier) : run_point(p);
        if (!earlier) session->add(p, pr);
        std::lock_guard<std::mutex> lock(mu);
        if (earlier) ++r.shared_runs;
        r.results[runs[k]] = std::move(pr);
        ++done;
        if (progress) progress(done, n);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        return;
      }
    }
  };
  if (jobs == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (uint32_t j = 0; j < jobs; ++j) {
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {
        break;  // no thread to spare: the ones started take all the points
      }
    }
    if (pool.empty()) work();
    for (std::thread& t : pool) t.join();
  }
  if (failure) std::rethrow_exception(failure);
  for (size_t i = 0; i < n; ++i) {
    const int of = f.points[i].same_run_as;
    if (of >= 0) {
      // Another view of an earlier point's run: nothing to simulate.
      r.results[i] = r.results[static_cast<size_t>(of)];
      if (progress) progress(++done, n);
    } else {
      r.verbs += r.results[i].verbs;
    }
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto y_of = [&](const std::string& series, double x, bool* found) {
    double y = 0;
    for (size_t i = 0; i < f.points.size(); ++i) {
      if (f.points[i].series == series && f.points[i].x == x) {
        y = repro_y(f, f.points[i], r.results[i]);
        *found = true;
      }
    }
    return y;
  };
  auto peak_of = [&](const std::string& series, bool* found) {
    double y = 0;
    for (size_t i = 0; i < f.points.size(); ++i) {
      if (f.points[i].series == series) {
        y = std::max(y, repro_y(f, f.points[i], r.results[i]));
        *found = true;
      }
    }
    return y;
  };
  for (const PaperValue& pv : f.paper) {
    ReproComparison cmp{pv, 0, 0, false};
    bool found = false;
    cmp.model = y_of(pv.series, pv.x, &found);
    LW_CHECK_MSG(found, "a paper value names no point of its figure: " + pv.series);
    LW_CHECK_MSG(!pv.over_peak || !pv.over_series.empty(), "a paper value over a peak names no series");
    if (!pv.over_series.empty()) {
      bool base_found = false;
      const double base = pv.over_peak ? peak_of(pv.over_series, &base_found) : y_of(pv.over_series, pv.x, &base_found);
      LW_CHECK_MSG(base_found, "a paper ratio names no point of its figure: " + pv.over_series);
      cmp.model = base > 0 ? cmp.model / base : 0;
    }
    cmp.error = (cmp.model - pv.value) / pv.value;
    cmp.within = pv.at_least  ? cmp.model >= pv.value * (1 - pv.tolerance)
                 : pv.at_most ? cmp.model <= pv.value * (1 + pv.tolerance)
                              : std::fabs(cmp.error) <= pv.tolerance;
    r.comparisons.push_back(cmp);
  }
  return r;
}

std::string ReproResult::to_json() const {
  using nlohmann::json;
  json series = json::object();
  for (size_t i = 0; i < figure->points.size(); ++i) {
    const ReproPoint& p = figure->points[i];
    const PerfResult& res = results[i];
    series[p.series].push_back({{"x", p.x_metric.empty() ? p.x : repro_metric(p.x_metric, res)},
                                {"nominal_x", p.x},
                                {"panel", p.panel},
                                {"y", repro_y(*figure, p, res)},
                                {"mops", res.mops},
                                {"latency_ns_mean", res.latency_ns_mean},
                                {"gbps", res.gbps},
                                {"latency_ns_p50", res.latency_ns_p50},
                                {"latency_ns_p99", res.latency_ns_p99}});
  }
  json series_order = json::array();  // the figure's order (object keys are sorted): bars keep it
  for (const ReproPoint& p : figure->points)
    if (std::find(series_order.begin(), series_order.end(), p.series) == series_order.end()) series_order.push_back(p.series);
  json panels = json::array();  // in the figure's order (object keys are sorted)
  for (const ReproPoint& p : figure->points)
    if (std::find(panels.begin(), panels.end(), p.panel) == panels.end()) panels.push_back(p.panel);
  json paper = json::array();
  for (const ReproComparison& c : comparisons)
    paper.push_back({{"series", c.paper.series},
                     {"x", c.paper.x},
                     {"paper_value", c.paper.value},
                     {"model_value", c.model},
                     {"error", c.error},
                     {"within_tolerance", c.within},
                     {"tolerance", c.paper.tolerance},
                     {"at_least", c.paper.at_least},
                     {"at_most", c.paper.at_most},
                     {"over_series", c.paper.over_series},
                     {"over_peak", c.paper.over_peak},
                     {"fitted", c.paper.fitted},
                     {"source", c.paper.source}});
  json j = {{"name", figure->name}, {"scale", to_string(figure->scale)}, {"title", figure->title},   {"x_label", figure->x_label},
            {"y_label", repro_y_label(*figure)}, {"log_x", figure->log_x}, {"notes", figure->notes},
            {"series", series},     {"panels", panels},         {"paper", paper},           {"wall_seconds", wall_seconds},
            {"simulated_verbs", verbs}, {"panel_y_labels", figure->panel_y_labels},
            {"chart", to_string(figure->chart)}, {"setup", repro_setup(*figure)}, {"series_order", series_order}};
  return j.dump(2);
}

std::string ReproResult::to_csv() const {
  std::ostringstream os;
  os << "panel,series,x,y,mops,gbps,latency_ns_p50,latency_ns_p99\n";
  for (size_t i = 0; i < figure->points.size(); ++i) {
    const ReproPoint& p = figure->points[i];
    const PerfResult& r = results[i];
    os << '"' << p.panel << "\",\"" << p.series << "\"," << p.x << ',' << repro_y(*figure, p, r) << ','
       << r.mops << ',' << r.gbps << ',' << r.latency_ns_p50 << ',' << r.latency_ns_p99 << '\n';
  }
  return os.str();
}

}  // namespace lw
