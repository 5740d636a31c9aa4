// PCIe's two directions (nic.mechanisms.pcie_duplex): a memory node's NIC
// serving READs takes DMA reads (data to the NIC) while WRITEs it serves are
// posted DMA writes (data to the host). A PCI Express link is dual-simplex,
// so the two flows do not queue behind each other; with the switch off they
// share one queue, as the model had them until 2026-11-30.
#include <gtest/gtest.h>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

struct Rates {
  double reads = 0, writes = 0;  // M/s at memory node 0
};

// Compute threads 0 .. readers-1 READ 8 bytes from node 0, the next
// `writers` threads WRITE 4 KB to it, 8 in flight each, for a window; only
// PCIe is modelled (no link, processing units, engines or CPU costs), so
// that the node's DMA is the limit.
Rates serve(uint32_t readers, uint32_t writers, bool duplex) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = "cx5-100g";
  c.nic.overrides["jitter_ns"] = 0;
  c.nic.mechanisms = NicMechanisms{};
  c.nic.mechanisms.link = c.nic.mechanisms.message_rate = c.nic.mechanisms.engines = false;
  c.nic.mechanisms.cpu_costs = c.nic.mechanisms.qp_cache = c.nic.mechanisms.wqe_cache = false;
  c.nic.mechanisms.doorbells = false;
  c.nic.mechanisms.pcie_duplex = duplex;
  c.threads_per_node = readers + writers;
  c.coroutines_per_thread = 8;
  c.memory_nodes = 1;
  c.memory_node_bytes = 64 << 20;
  SimBackend sim(c);
  constexpr uint64_t kWrite = 4096;
  const RemoteAddr base = sim.allocate(0, uint64_t{c.threads_per_node} * 8 * kWrite);
  constexpr Nanos kWarm = 20'000, kEnd = 120'000;
  uint64_t reads = 0, writes = 0;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    const Placement& p = w.placement();
    const RemoteAddr mine = base + (uint64_t{p.thread} * 8 + p.coroutine) * kWrite;
    std::vector<std::byte> buf(kWrite);
    while (w.now() < kEnd) {
      const bool reader = p.thread < readers;
      const Status s = reader ? co_await w.read(buf.data(), mine, 8) : co_await w.write(mine, buf.data(), kWrite);
      EXPECT_EQ(s, Status::kOk);
      if (w.now() >= kWarm && w.now() < kEnd) ++(reader ? reads : writes);
    }
  });
  sim.run();
  const double us = static_cast<double>(kEnd - kWarm) / 1000.0;
  return {static_cast<double>(reads) / us, static_cast<double>(writes) / us};
}

TEST(PcieDuplex, WritesServedDoNotSlowReadsServed) {
  const Rates alone = serve(8, 0, true), both = serve(8, 4, true);
  ASSERT_GT(alone.reads, 30.0);  // near the read direction's 53 M DMA reads/s
  EXPECT_GT(both.writes, 1.0);
  EXPECT_GT(both.reads, 0.95 * alone.reads);
}

TEST(PcieDuplex, OneSharedQueueWithTheSwitchOff) {
  const Rates alone = serve(8, 0, false), both = serve(8, 4, false);
  // The same READs alone, whichever way PCIe is modelled.
  EXPECT_NEAR(alone.reads, serve(8, 0, true).reads, 1e-9);
  EXPECT_GT(both.writes, 1.0);
  EXPECT_LT(both.reads, 0.8 * alone.reads);
}

}  // namespace
}  // namespace lw
