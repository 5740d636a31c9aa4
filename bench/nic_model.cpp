// The calibrated NIC model: the perf READ and CAS runs of issue 10, and the
// wall cost per simulated verb as compute nodes grow at equal work per node.
#include <algorithm>
#include <vector>

#include "runs/perf.h"
#include "latchwork/sim/sim_backend.h"
#include "sections.h"

namespace lw::bench {
namespace {

// `latchwork perf {read|cas} --nic cx6-200g --depth 8 --threads 96
//  --random-region 8388608 --measure-us 3000` (perf's defaults otherwise).
void perf_row(const Options& o, Report& r, Opcode op) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = "cx6-200g";
  c.memory_node_bytes = 256ull << 20;
  c.threads_per_node = 96;
  c.coroutines_per_thread = 8;
  PerfOptions p;
  p.op = op;
  p.random_region = 8388608;
  p.warmup_ns = 100'000;
  p.measure_ns = o.quick ? 500'000 : 3'000'000;
  double best_loop = 1e30, best_total = 1e30;
  PerfResult res;
  for (int rep = 0; rep < o.repeats; ++rep) {
    Stopwatch total;
    res = run_perf(c, p);
    best_total = std::min(best_total, total.seconds());
    best_loop = std::min(best_loop, res.wall_seconds);
  }
  Row& row = r.add("NIC model (cx6-200g, 96 threads x depth 8, 8 MB random region)",
                   std::string("perf ") + perf_op_name(op) + ": loop only",
                   static_cast<double>(res.verbs) / best_loop / 1e6, "M verbs/s");
  row.detail = format("%llu verbs in %.0f ms, start-up %.0f ms; simulated %.1f Mops, p50 %.0f ns",
                      static_cast<unsigned long long>(res.verbs), best_loop * 1e3,
                      (best_total - best_loop) * 1e3, res.mops, res.latency_ns_p50);
  row.fields = {{"verbs", static_cast<double>(res.verbs)}, {"loop_seconds", best_loop},
                {"total_seconds", best_total}, {"simulated_mops", res.mops}};
}

// Each compute node: `threads` x `coroutines`, each doing the same number of
// 8-byte READs at random lines of 8 MB on one memory node. Two loads: a light
// one (64 workers per node) and perf's 96 x 8 (768 per node, 24,576 at 32
// nodes, where the per-request state outgrows the caches).
struct NodeLoad {
  uint32_t threads, coroutines;
  int reads;
};

void nodes_row(const Options& o, Report& r, const NodeLoad& load, uint32_t compute_nodes,
               double* one_node_ns) {
  const int reads = o.quick ? std::max(1, load.reads / 5) : load.reads;
  double best = 1e30;
  uint64_t verbs = 0;
  for (int rep = 0; rep < o.repeats; ++rep) {
    ClusterConfig c;
    c.set_profile("connectx");
    c.nic.profile = "cx6-200g";
    c.memory_node_bytes = 16ull << 20;
    c.compute_nodes = compute_nodes;
    c.threads_per_node = load.threads;
    c.coroutines_per_thread = load.coroutines;
    SimBackend sim(c);
    const RemoteAddr base = sim.allocate(0, 8 << 20, 4096);
    // Map the region before the clock starts: otherwise the first READ of
    // each page takes a page fault, which a small run cannot amortise.
    const std::vector<std::byte> zeros(1 << 20);
    for (uint64_t off = 0; off < (8 << 20); off += zeros.size()) sim.host_write(base + off, zeros.data(), zeros.size());
    sim.spawn_compute([base, reads](Worker& w) -> Task<void> {
      uint64_t v = 0;
      for (int i = 0; i < reads; ++i)
        (void)co_await w.read(&v, base + w.rng().below((8 << 20) / 64) * 64, 8);
    });
    Stopwatch loop;
    verbs = sim.run().verbs;
    best = std::min(best, loop.seconds());
  }
  const double ns = best * 1e9 / static_cast<double>(verbs);
  if (compute_nodes == 1) *one_node_ns = ns;
  Row& row = r.add(format("NIC model: wall cost per verb, equal work per compute node (%u threads x %u coroutines each)",
                          load.threads, load.coroutines),
                   format("%u compute node%s", compute_nodes, compute_nodes > 1 ? "s" : ""), ns,
                   "ns/verb");
  row.detail = format("%llu READs, %.0f ms loop; %.2fx the 1-node cost",
                      static_cast<unsigned long long>(verbs), best * 1e3, ns / *one_node_ns);
  row.fields = {{"compute_nodes", compute_nodes}, {"threads_per_node", load.threads},
                {"coroutines_per_thread", load.coroutines}, {"verbs", static_cast<double>(verbs)},
                {"loop_seconds", best}, {"ratio_to_one_node", ns / *one_node_ns}};
}

}  // namespace

void nic_model(const Options& o, Report& r) {
  perf_row(o, r, Opcode::kRead);
  perf_row(o, r, Opcode::kCas);
  for (const NodeLoad& load : {NodeLoad{8, 8, 400}, NodeLoad{96, 8, 40}}) {
    double one = 0;
    for (uint32_t n : {1u, 8u, 32u}) nodes_row(o, r, load, n, &one);
  }
}

}  // namespace lw::bench
