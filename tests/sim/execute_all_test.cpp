// Worker::execute_all and Worker::call_all on the simulator: batches (calls)
// to several memory nodes go out together, so the await takes about one
// round trip where awaiting them one after another takes one per node, and
// it counts as one round trip.
#include <gtest/gtest.h>

#include <vector>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw {
namespace {

ClusterConfig four_nodes() {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = "cx6-200g";
  c.memory_nodes = 4;
  c.memory_node_bytes = 1 << 20;
  return c;
}

TEST(ExecuteAll, BatchesToFourNodesTakeOneRoundTrip) {
  SimBackend sim(four_nodes());
  std::vector<RemoteAddr> at;
  for (NodeId n = 0; n < 4; ++n) at.push_back(sim.allocate(n, 256));
  Nanos together = 0, apart = 0;
  uint64_t round_trips = 0;
  sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    std::vector<std::vector<std::byte>> seen(4, std::vector<std::byte>(256));
    Batch b[4];
    Batch* all[4];
    for (NodeId n = 0; n < 4; ++n) {
      b[n].read(seen[n].data(), at[n], 256);
      all[n] = &b[n];
    }
    Nanos t0 = w.now();
    for (NodeId n = 0; n < 4; ++n) EXPECT_EQ(co_await w.execute(b[n]), Status::kOk);
    apart = w.now() - t0;
    const uint64_t before = w.counters().round_trips;
    t0 = w.now();
    EXPECT_EQ(co_await w.execute_all(all), Status::kOk);
    together = w.now() - t0;
    round_trips = w.counters().round_trips - before;
  });
  sim.run();
  EXPECT_EQ(round_trips, 1u);
  // Four round trips against one plus the three extra posts' CPU time.
  EXPECT_LT(together, apart / 2) << together << " ns together, " << apart << " ns apart";
}

TEST(CallAll, CallsToFourNodesTakeOneRoundTrip) {
  SimBackend sim(four_nodes());
  Nanos together = 0, apart = 0;
  uint64_t round_trips = 0, rpcs = 0;
  sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    std::vector<std::vector<std::byte>> req(4, std::vector<std::byte>(64)), rep(4, std::vector<std::byte>(64));
    RpcCall calls[4];
    RpcCall* all[4];
    for (NodeId n = 0; n < 4; ++n) {
      req[n][0] = static_cast<std::byte>(n + 1);
      calls[n] = RpcCall{.node = n, .handler = kEchoHandler, .request = req[n], .reply = rep[n]};
      all[n] = &calls[n];
    }
    Nanos t0 = w.now();
    for (NodeId n = 0; n < 4; ++n) EXPECT_EQ((co_await w.call(n, kEchoHandler, req[n], rep[n])).status, Status::kOk);
    apart = w.now() - t0;
    for (auto& r : rep) r.assign(64, std::byte{0});
    const OpCounters before = w.counters();
    t0 = w.now();
    EXPECT_EQ(co_await w.call_all(all), Status::kOk);
    together = w.now() - t0;
    round_trips = w.counters().round_trips - before.round_trips;
    rpcs = w.counters().rpcs - before.rpcs;
    for (NodeId n = 0; n < 4; ++n) {
      EXPECT_EQ(calls[n].reply_bytes, 64u);
      EXPECT_EQ(rep[n][0], static_cast<std::byte>(n + 1)) << "node " << n;
    }
  });
  sim.run();
  EXPECT_EQ(round_trips, 1u);
  EXPECT_EQ(rpcs, 4u);
  EXPECT_LT(together, apart / 2) << together << " ns together, " << apart << " ns apart";
}

}  // namespace
}  // namespace lw
