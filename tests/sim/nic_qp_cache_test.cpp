// The NIC model's QP-context cache (nic.mechanisms.qp_cache) against its
// analytic expectation. A miss reads the context over the requester NIC's
// PCIe, holding neither an engine nor a processing unit while it waits, so
// misses of different QPs overlap: only their DMA read slots queue, and
// installing each context takes qp_miss_ns of processing-unit time. The
// link, message rate, WQE cache, doorbells and CPU costs are off and the
// network has no jitter, so each time below is a sum of profile parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "nic_test_support.h"

namespace lw::sim {
namespace {

constexpr uint32_t kThreads = 64;

struct Fixture {
  ClusterConfig cluster;
  NicParams p;
  std::unique_ptr<NicModel> model;
  Rng rng{1};

  explicit Fixture(bool qp_cache = true, bool engines = false, uint32_t entries = 100) {
    cluster.compute_nodes = 1;
    cluster.memory_nodes = 1;
    cluster.threads_per_node = kThreads;
    NicMechanisms& m = cluster.nic.mechanisms;
    test::quiet_mechanisms(&m);
    m.pcie = true;
    m.qp_cache = qp_cache;
    m.engines = engines;
    p = test::cx5_without_jitter();
    p.qp_cache_entries = entries;
    model = std::make_unique<NicModel>(cluster, p);
  }
  static WrRoute route(uint32_t thread) { return WrRoute{0, thread, thread, 0}; }
  static WorkRequest read(uint64_t offset) { return test::verb8(Opcode::kRead, 0, offset); }
  // A context read's turn on the DMA engine: a read slot, or the context's
  // transfer if longer.
  Nanos fetch_slot() const {
    const auto transfer = static_cast<Nanos>(p.qp_context_bytes * 8.0 / p.pcie_gbps + 0.5);
    return std::max(static_cast<Nanos>(1000.0 / p.pcie_read_mops + 0.5), transfer);
  }
  // Post to arrival at the responder with the context cached: two NIC
  // pipelines, the cable, and the READ request's 16 B RETH + headers
  // arriving (the link's queues are off, its serialization is not).
  Nanos hit_path() const {
    const auto arrival = static_cast<Nanos>((16.0 + p.header_bytes) * 8.0 / p.link_gbps + 0.5);
    return 2 * p.nic_latency_ns + p.propagation_ns + arrival;
  }
  uint64_t misses() const {
    std::map<std::string, double> out;
    model->report(&out);
    return static_cast<uint64_t>(out.at("nic.qp_cache_misses"));
  }
};

TEST(NicQpCache, MissesOfDifferentQpsOverlapTheirContextReads) {
  Fixture f;
  ASSERT_GT(f.p.qp_miss_ns, f.fetch_slot());  // installing, not reading, is what serializes
  const uint32_t n = 16;
  for (uint32_t k = 0; k < n; ++k) {
    // All posted at 1000 on cold QPs: the reads start a slot apart and wait
    // their round trips together; each install then takes the processing
    // units qp_miss_ns, one after another.
    const Nanos arrive = f.model->request_path(f.route(k), f.read(64 * k), 1000, f.rng);
    EXPECT_EQ(arrive, 1000 + f.hit_path() + f.p.pcie_read_ns + (k + 1) * f.p.qp_miss_ns) << "request " << k;
  }
  // Sixteen misses one after another would take 16 round trips.
  EXPECT_LT(f.p.pcie_read_ns + n * f.p.qp_miss_ns, n * (f.p.pcie_read_ns + f.p.qp_miss_ns));
  EXPECT_EQ(f.misses(), n);
}

TEST(NicQpCache, ContextReadsQueueOnlyForTheDmaEngine) {
  // No install time: what is left of a miss is its DMA read, and n reads
  // posted together finish a read slot apart.
  Fixture f;
  f.p.qp_miss_ns = 0;
  f.model = std::make_unique<NicModel>(f.cluster, f.p);
  for (uint32_t k = 0; k < 8; ++k) {
    const Nanos arrive = f.model->request_path(f.route(k), f.read(64 * k), 1000, f.rng);
    EXPECT_EQ(arrive, 1000 + f.hit_path() + k * f.fetch_slot() + f.p.pcie_read_ns) << "request " << k;
  }
}

TEST(NicQpCache, AHitCostsNothingAndTheSwitchTurnsMissesOff) {
  Fixture f;
  (void)f.model->request_path(f.route(3), f.read(0), 1000, f.rng);  // cold
  EXPECT_EQ(f.model->request_path(f.route(3), f.read(0), 10'000, f.rng), 10'000 + f.hit_path());
  EXPECT_EQ(f.misses(), 1u);
  Fixture off(/*qp_cache=*/false);
  EXPECT_EQ(off.model->request_path(off.route(3), off.read(0), 1000, off.rng), 1000 + off.hit_path());
  EXPECT_EQ(off.misses(), 0u);
}

TEST(NicQpCache, AContextReadHoldsNoEngine) {
  // Threads 0 and 32 share an engine (32 engines). Thread 32's context is
  // warm, thread 0's is not; posted together, thread 32's READ goes through
  // the engine while thread 0 still waits for its context.
  Fixture f(/*qp_cache=*/true, /*engines=*/true);
  const uint32_t e = f.p.processing_engines;
  ASSERT_LT(e, kThreads);
  (void)f.model->request_path(f.route(e), f.read(0), 0, f.rng);
  const Nanos cold = f.model->request_path(f.route(0), f.read(64), 10'000, f.rng);
  const Nanos warm = f.model->request_path(f.route(e), f.read(128), 10'000, f.rng);
  Fixture idle(/*qp_cache=*/false, /*engines=*/true);
  const Nanos alone = idle.model->request_path(idle.route(e), idle.read(128), 10'000, idle.rng);
  EXPECT_EQ(warm, alone);
  EXPECT_GE(cold, alone + f.p.pcie_read_ns + f.p.qp_miss_ns);
}

TEST(NicQpCache, ACyclicSweepOverMoreQpsThanEntriesMissesEveryTime) {
  // LRU under round-robin traffic: as many QPs as entries miss only on the
  // first round, one more misses every time (Jasny Fig. 4: QP thrashing
  // once a client NIC's active QPs outgrow its cache).
  for (uint32_t qps : {8u, 9u}) {
    Fixture f(/*qp_cache=*/true, /*engines=*/false, /*entries=*/8);
    Nanos t = 0;
    for (uint32_t round = 0; round < 4; ++round)
      for (uint32_t k = 0; k < qps; ++k) t = f.model->request_path(f.route(k), f.read(64 * k), t, f.rng);
    EXPECT_EQ(f.misses(), qps == 8 ? 8u : 4u * qps) << qps << " QPs";
  }
}

}  // namespace
}  // namespace lw::sim
