// Symmetric nodes (ALock §4): a memory-node thread's verbs leave from its own
// node's NIC; to its own node they are loopback (ALock §2, Fig. 1): no wire,
// but the NIC's processing twice and its PCIe for every DMA.
#include <gtest/gtest.h>

#include <vector>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

ClusterConfig symmetric(const std::string& nic, uint32_t nodes, uint32_t threads) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = nic;
  c.compute_nodes = 1;
  c.threads_per_node = 1;
  c.memory_nodes = nodes;
  c.memory_node_threads = threads;
  c.memory_node_bytes = 1 << 20;
  return c;
}

// Mean latency of `n` back-to-back 8-byte READs by thread 0 of node 0 to
// node `target`, nothing else running.
Nanos read_latency(const std::string& nic, NodeId target) {
  SimBackend sim(symmetric(nic, 2, 1));
  const RemoteAddr a = sim.allocate(target, 64);
  Nanos total = 0;
  constexpr int kReads = 20;
  sim.spawn({Placement::Kind::kMemory, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    uint64_t v = 0;
    for (int i = 0; i < kReads; ++i) {
      const Nanos t0 = w.now();
      EXPECT_EQ(co_await w.read(&v, a, 8), Status::kOk);
      total += w.now() - t0;
    }
  });
  sim.run();
  return total / kReads;
}

TEST(Loopback, UnloadedReadIsFasterThanRemoteOnEveryModel) {
  for (const char* nic : {"simple", "cx3-56g", "cx5-100g"}) {
    const Nanos loop = read_latency(nic, 0), remote = read_latency(nic, 1);
    EXPECT_LT(loop, remote) << nic;
    EXPECT_GT(loop, 0) << nic;
  }
}

TEST(Loopback, SimpleModelSkipsTheWireButKeepsPcie) {
  ClusterConfig c = symmetric("simple", 2, 1);
  SimpleTimingModel m(c.timing, c.compute_nodes);
  WrRoute loop{c.compute_nodes + 0, 0, 0, 0}, remote{c.compute_nodes + 0, 0, 0, 1};
  EXPECT_TRUE(m.loopback(loop));
  EXPECT_FALSE(m.loopback(remote));
  // A compute node's route is never loopback, whatever node it targets.
  EXPECT_FALSE(m.loopback(WrRoute{0, 0, 0, 0}));
  c.timing.jitter_ns = 0;
  SimpleTimingModel q(c.timing, c.compute_nodes);
  Rng rng(1);
  WorkRequest wr;
  wr.opcode = Opcode::kCas;
  EXPECT_EQ(q.request_path(loop, wr, 1000, rng), 1000 + c.timing.pcie_ns);
  EXPECT_EQ(q.response_path(loop, wr, 1000, rng), 1000 + c.timing.pcie_ns);
  EXPECT_GT(q.request_path(remote, wr, 1000, rng), 1000 + c.timing.one_way_ns);
}

// Throughput of loopback CASes (distinct lines, no logical contention) by
// `threads` threads of one node, one outstanding each, for a fixed virtual
// window.
double loopback_cas_mops(uint32_t threads, bool engines = false) {
  ClusterConfig c = symmetric("cx3-56g", 1, threads);
  c.nic.mechanisms.engines = engines;
  SimBackend sim(c);
  const RemoteAddr base = sim.allocate(0, uint64_t{threads} * 64);
  constexpr Nanos kWindow = 200'000;
  uint64_t done = 0;
  for (uint32_t t = 0; t < threads; ++t) {
    sim.spawn({Placement::Kind::kMemory, 0, t, 0}, [&, t](Worker& w) -> Task<void> {
      const RemoteAddr a = base + uint64_t{t} * 64;
      for (int i = 0; i < 100'000 && w.now() < kWindow; ++i) {
        const Result<uint64_t> r = co_await w.cas(a, i, i + 1);
        EXPECT_EQ(r.status, Status::kOk);
        ++done;
      }
    });
  }
  const RunStats s = sim.run();
  EXPECT_GT(s.counters.at("nic.loopback_verbs"), 0);
  EXPECT_EQ(s.counters.at("nic.loopback_verbs"), s.counters.at("nic.symmetric_verbs"));
  return static_cast<double>(done) * 1e3 / static_cast<double>(kWindow);
}

TEST(Loopback, ManyLoopbackCasSaturateTheNodesPcie) {
  // Without the processing engines (below), so that PCIe is the limit.
  const double t1 = loopback_cas_mops(1), t8 = loopback_cas_mops(8), t64 = loopback_cas_mops(64),
               t128 = loopback_cas_mops(128);
  // Few threads scale; past the read direction of the node's PCIe (a WQE
  // fetch and an atomic read slot per CAS, cx3-56g's 26 M DMA reads/s; the
  // completion writes go the other way) adding threads adds little.
  // 2 DMA reads per CAS at 26 M/s: at most 13 M CAS/s (+ the window's edge);
  // 64 threads already come within 15% of it.
  EXPECT_GT(t8, 6 * t1);
  EXPECT_GT(t64, 0.85 * 13.0);
  EXPECT_LT(t128, 1.15 * t64);
  EXPECT_LT(t128, 13.5);
}

TEST(Loopback, ConnectX3RunsOneAtomicAtATime) {
  // cx3-56g has one processing engine (efficient/rdma_bench: about 2.7 M
  // atomics/s in all, even on independent counters): each CAS holds it for
  // its 370 ns slot (the count includes CASes posted before the window's end
  // and completed after it: up to 64 / 200 us = 0.32 M/s more).
  const double t64 = loopback_cas_mops(64, true);
  EXPECT_GE(t64, 1000.0 / 370.0 - 0.1);
  EXPECT_LE(t64, 1000.0 / 370.0 + 0.35);
  EXPECT_GT(loopback_cas_mops(64), 3 * t64);  // without engines, PCIe is the limit
}

TEST(Loopback, LoopbackSharesThePcieWithRemoteRequests) {
  // Node 0's threads hammer their own node through loopback while compute
  // threads READ node 0 remotely: the remote READs slow down, as they share
  // node 0's NIC (processing units and PCIe) with its own threads' verbs.
  auto remote_read_latency = [](uint32_t local_threads) {
    ClusterConfig c = symmetric("cx3-56g", 1, std::max<uint32_t>(1, local_threads));
    c.threads_per_node = 4;
    SimBackend sim(c);
    const RemoteAddr a = sim.allocate(0, 64 * 256);
    constexpr Nanos kWindow = 100'000;
    Nanos total = 0;
    uint64_t reads = 0;
    for (uint32_t t = 0; t < local_threads; ++t)
      sim.spawn({Placement::Kind::kMemory, 0, t, 0}, [&, t](Worker& w) -> Task<void> {
        for (int i = 0; i < 100'000 && w.now() < kWindow; ++i)
          (void)co_await w.cas(a + 64 * (t + 8), i, i + 1);
      });
    sim.spawn_compute([&](Worker& w) -> Task<void> {
      uint64_t v = 0;
      for (int i = 0; i < 100'000 && w.now() < kWindow; ++i) {
        const Nanos t0 = w.now();
        (void)co_await w.read(&v, a, 8);
        total += w.now() - t0;
        ++reads;
      }
    });
    sim.run();
    return static_cast<double>(total) / static_cast<double>(reads);
  };
  EXPECT_GT(remote_read_latency(64), 1.3 * remote_read_latency(0));
}

TEST(Loopback, MemoryNodeThreadsUseTheirNodesQpCache) {
  // Each of a node's threads has a QP to every node (loopback included), all
  // in that node's NIC cache: 4 threads x 3 nodes = 12 QPs fit a 16-entry
  // cache, 8 x 3 = 24 do not.
  auto misses = [](uint32_t threads) {
    ClusterConfig c = symmetric("cx3-56g", 3, threads);
    c.nic.overrides["qp_cache_entries"] = 16;
    SimBackend sim(c);
    std::vector<RemoteAddr> a;
    for (NodeId n = 0; n < 3; ++n) a.push_back(sim.allocate(n, 64));
    for (uint32_t t = 0; t < threads; ++t)
      sim.spawn({Placement::Kind::kMemory, 0, t, 0}, [&](Worker& w) -> Task<void> {
        uint64_t v = 0;
        for (int round = 0; round < 20; ++round)
          for (NodeId n = 0; n < 3; ++n) (void)co_await w.read(&v, a[n], 8);
      });
    return sim.run().counters.at("nic.qp_cache_misses");
  };
  EXPECT_EQ(misses(4), 12);  // cold misses only
  EXPECT_GT(misses(8), 24 * 5);
}

}  // namespace
}  // namespace lw
