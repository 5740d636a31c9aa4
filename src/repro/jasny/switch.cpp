// Reproductions of Jasny et al.'s smart-hardware figures (§5.2-5.5) on the NIC
// model: the SmartNIC's latch RPCs against unpadded NIC atomics (Fig. 18),
// atomics on the programmable switch (Fig. 22), and switch-assisted
// optimistic latching against the corrected optimistic baseline (Figs. 25, 26).
#include "repro/repro.h"

namespace lw {
namespace {

ClusterConfig smart_cluster(const std::string& profile, uint32_t compute_nodes, uint32_t threads) {
  return repro_sync_cluster(profile, compute_nodes, threads, 16ull << 20);
}

PerfOptions cas(const std::string& target, uint64_t stride, bool contended) {
  PerfOptions o;
  o.op = Opcode::kCas;
  o.target = target;
  o.stride = stride;
  o.contended = contended;
  o.warmup_ns = 40'000;
  o.measure_ns = 150'000;
  return o;
}

}  // namespace

ReproFigure jasny_fig18() {
  ReproFigure f;
  f.name = "jasny-fig18";
  f.title = "Jasny Fig. 18: unpadded CAS on ConnectX-7 vs latch RPCs on a SmartNIC (cx7-400g, 2 + 1 nodes)";
  f.x_label = "workers (2 compute nodes, one CAS outstanding each; latches 4 KB apart)";
  for (uint32_t w : {2u, 8u, 32u, 128u, 512u}) {
    ClusterConfig c = smart_cluster("cx7-400g", 2, w / 2);
    c.network.smartnic.memory_bytes = 8ull << 20;
    // 4 KB apart: every latch falls into the same lock-table slot (§3.2).
    f.points.push_back(ReproPoint::of_perf("cas on the RNIC (no padding)", w, c, cas("memory", 4096, false)));
    f.points.push_back(ReproPoint::of_perf("latch RPC on the SmartNIC", w, c, cas("smartnic", 4096, false)));
  }
  f.paper = {
      {"latch RPC on the SmartNIC", 512, 20.0,
       "Jasny §5.2, Fig. 18: the SmartNIC approach reaches up to 20 M ops/s", true},
      {"cas on the RNIC (no padding)", 512, 2.51,
       "Jasny §5.2, Fig. 18: one-sided CAS capped at about 2.51 M ops/s (one lock-table slot)", false},
  };
  f.notes =
      "smartnic_rpc_ns (400 ns per RPC on each of 8 cores) is fitted to the 20 M of Fig. 18. The RNIC "
      "series is the lock-table cap of §3.2: all latches share one slot. The SmartNIC serves every "
      "request as an RPC to its cores with CPU atomics, so there is no lock table to collide in.";
  return f;
}

ReproFigure jasny_fig22() {
  ReproFigure f;
  f.name = "jasny-fig22";
  f.title = "Jasny Fig. 22: atomics on a programmable switch vs a storage node's NIC (cx7-400g at 100G, 4 clients)";
  f.x_label = "workers (4 compute nodes, one CAS outstanding each)";
  for (uint32_t w : {8u, 32u, 128u, 512u, 2048u}) {
    // §5.4: the §5.1 testbed's ConnectX-7 NICs on 100G links to a Tofino1.
    ClusterConfig c = smart_cluster("cx7-400g", 4, w / 4);
    c.nic.overrides["link_gbps"] = 100;
    f.points.push_back(ReproPoint::of_perf("switch, uncontended", w, c, cas("switch", 8, false)));
    f.points.push_back(ReproPoint::of_perf("switch, contended", w, c, cas("switch", 8, true)));
    f.points.push_back(ReproPoint::of_perf("storage NIC, uncontended", w, c, cas("memory", 64, false)));
    f.points.push_back(ReproPoint::of_perf("storage NIC, contended", w, c, cas("memory", 64, true)));
  }
  f.paper = {
      {"switch, uncontended", 2048, 110.0,
       "Jasny §5.4, Fig. 22: four clients max out at around 110 M ops/s (Tofino1, 100G links)", false, 0.25},
      {"switch, contended", 2048, 110.0,
       "Jasny §5.4, Fig. 22: contended and uncontended switch atomics are exactly the same", false, 0.25},
  };
  f.notes =
      "Shape to check (§5.4): contended and uncontended switch atomics coincide (one pipeline pass, no "
      "lock table), while the storage NIC's contended CAS stays at its lock-table cap; the switch "
      "answers in less than half the round trip. The model's client NICs, not the switch, bound the "
      "switch series: their message rate, and QP-context misses once each client holds more QPs "
      "than its cache.";
  return f;
}

ReproFigure jasny_fig25() {
  ReproFigure f;
  f.name = "jasny-fig25";
  f.title = "Jasny Fig. 25: latency of a 1 KiB tuple read and write, optimistic baseline vs switch (cx5-100g)";
  f.x_label = "1: read (latch semantics), 2: write";
  f.log_x = false;
  f.latency = true;
  const std::pair<const char*, const char*> series[] = {{"baseline (versioning)", "versioning"},
                                                        {"switch-assisted (§5.5)", "switch-optimistic"}};
  for (const auto& [name, scheme] : series)
    for (const auto& [x, read_percent] : {std::pair<double, uint32_t>{1, 100}, {2, 0}}) {
      TupleWorkloadOptions t;
      t.scheme = scheme;
      t.tuple_bytes = 1024;
      t.tuples = 1000;
      t.read_percent = read_percent;
      t.warmup_ns = 20'000;
      t.measure_ns = 500'000;
      f.points.push_back(ReproPoint::of_tuples(name, x, smart_cluster("cx5-100g", 1, 1), t));
    }
  f.notes =
      "Shape to check (§5.5, Table 2): the switch roughly halves both latencies. Baseline read: version "
      "READ, tuple READ, version READ (3 round trips); switch read: a verified tuple READ and a Read "
      "Version answered by the switch (1.5). Baseline write: CAS latch, WRITE, unlatch (3); switch "
      "write: Latch Tuple at the switch and a WRITE whose ACK unlatches (1.5).";
  return f;
}

ReproFigure jasny_fig26() {
  ReproFigure f;
  f.name = "jasny-fig26";
  f.title = "Jasny Fig. 26: scalability of switch-assisted vs corrected optimistic latching (cx5-100g, 4 + 1 nodes, 140k tuples)";
  f.x_label = "workers (4 compute nodes)";
  const std::pair<const char*, const char*> schemes[] = {{"baseline", "versioning"}, {"switch", "switch-optimistic"}};
  for (uint32_t bytes : {64u, 1024u})
    for (uint32_t read_percent : {100u, 50u, 0u})
      for (const auto& [name, scheme] : schemes)
        for (uint32_t w : {8u, 32u, 128u, 512u}) {
          TupleWorkloadOptions t;
          t.scheme = scheme;
          t.tuple_bytes = bytes;
          t.tuples = 140'000;  // §5.5 "Scalability": 140,000 tuples, uniform
          t.read_percent = read_percent;
          t.warmup_ns = 30'000;
          t.measure_ns = 120'000;
          ClusterConfig c = smart_cluster("cx5-100g", 4, w / 4);
          c.memory_node_bytes = 160ull << 20;
          const std::string panel = std::to_string(bytes) + " B, " + std::to_string(read_percent) + "% reads";
          f.points.push_back(ReproPoint::of_tuples(panel + " " + name, w, c, t));
          f.points.back().panel = panel;
        }
  f.notes =
      "Shape to check (§5.5): the switch-assisted scheme is ahead in every mix and size; read-only "
      "runs are bound by the single storage node's link and message rate. The paper's grey "
      "oversubscription region (more workers than cores) has no counterpart here: the model charges "
      "CPU time per thread, not scheduling. The paper does not name its four read ratios; these are "
      "100, 50 and 0 percent.";
  return f;
}

}  // namespace lw
