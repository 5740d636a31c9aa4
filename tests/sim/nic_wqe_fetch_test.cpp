// A symmetric node's NIC fetches its own threads' WQEs over its PCIe (ALock
// §2): one DMA read per doorbell, however many WQEs the doorbell announced
// (DrTM+H §3.1: doorbell batching lets the NIC fetch several requests by DMA).
// Only PCIe queues here (every other mechanism off, no jitter), so the times
// below are sums of profile parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "nic_test_support.h"

namespace lw::sim {
namespace {

struct Fixture {
  ClusterConfig cluster;
  NicParams p;
  std::unique_ptr<NicModel> model;
  Rng rng{1};

  Fixture() {
    cluster.compute_nodes = 1;
    cluster.memory_nodes = 2;
    cluster.memory_node_threads = 4;
    test::quiet_mechanisms(&cluster.nic.mechanisms);
    cluster.nic.mechanisms.pcie = true;
    p = test::cx5_without_jitter();
    model = std::make_unique<NicModel>(cluster, p);
  }
  // Memory node 0's thread `t` reading from memory node 1.
  WrRoute route(uint32_t t) const { return WrRoute{cluster.compute_nodes + 0, 100 + t, t, 1}; }
  static WorkRequest read(uint64_t offset) { return test::verb8(Opcode::kRead, 1, offset); }
  Nanos slot() const { return static_cast<Nanos>(1000.0 / p.pcie_read_mops + 0.5); }
  Nanos fetch(uint32_t wqes) const {
    return std::max(slot(), static_cast<Nanos>(wqes * 64 * 8.0 / p.pcie_gbps + 0.5));
  }
  // Posts `n` READs of thread `t` at time 0, announced by one doorbell or
  // (batched = false) by one doorbell each; returns their arrivals.
  std::vector<Nanos> post(uint32_t t, uint32_t n, bool batched) {
    std::vector<WorkRequest> wrs;
    for (uint32_t i = 0; i < n; ++i) wrs.push_back(read(64 * i));
    std::vector<Nanos> arrive;
    if (batched) model->post_batch(route(t), wrs.data(), n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      if (!batched) model->post_batch(route(t), &wrs[i], 1, 0);
      arrive.push_back(model->request_path(route(t), wrs[i], 0, rng));
    }
    return arrive;
  }
};

TEST(NicWqeFetch, OneDoorbellsWqesComeInOneDmaRead) {
  Fixture batched, single;
  const std::vector<Nanos> b = batched.post(0, 8, true);
  const std::vector<Nanos> s = single.post(0, 8, false);
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(b[i], b[0]) << i;                      // one read brought them all
    EXPECT_EQ(s[i], s[0] + i * single.slot()) << i;  // a read slot each
  }
  EXPECT_EQ(b[0], s[0]);
}

TEST(NicWqeFetch, TheNextDoorbellWaitsForTheWholeBatchsTransfer) {
  Fixture f;
  ASSERT_GT(f.fetch(8), f.slot());  // 512 B take longer than a read slot
  const std::vector<Nanos> first = f.post(0, 8, true);
  const std::vector<Nanos> second = f.post(1, 8, true);
  EXPECT_EQ(second[0], first[0] + f.fetch(8));
}

TEST(NicWqeFetch, AnotherThreadsRequestIsNotTakenForTheBatch) {
  // Thread 1's request, not announced by thread 0's doorbell, fetches its
  // own WQE: it queues behind the batch's read.
  Fixture f;
  std::vector<WorkRequest> wrs(4, Fixture::read(0));
  f.model->post_batch(f.route(0), wrs.data(), 4, 0);
  const Nanos batch = f.model->request_path(f.route(0), wrs[0], 0, f.rng);
  const Nanos other = f.model->request_path(f.route(1), wrs[1], 0, f.rng);
  EXPECT_EQ(other, batch + f.fetch(4));
}

}  // namespace
}  // namespace lw::sim
