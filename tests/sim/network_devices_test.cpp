// Smart network hardware in the simulator (Jasny §5.2-5.5): the programmable
// switch's registers answer in half a round trip and never lose an update;
// its optimistic-latching program verifies reads, unlatches on a write's ACK,
// keeps PSNs consistent and suppresses duplicates; the SmartNIC serves
// requests by RPC.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/verbs/switch_program.h"

namespace lw {
namespace {

ClusterConfig cluster(uint32_t compute_nodes, uint32_t threads, uint32_t coroutines) {
  ClusterConfig c;
  c.compute_nodes = compute_nodes;
  c.threads_per_node = threads;
  c.coroutines_per_thread = coroutines;
  c.memory_node_bytes = 1 << 20;
  c.network.programmable_switch.enabled = true;
  return c;
}

ClusterConfig latching(uint32_t compute_nodes = 1, uint32_t threads = 1, uint32_t coroutines = 1) {
  ClusterConfig c = cluster(compute_nodes, threads, coroutines);
  c.network.programmable_switch.program = "optimistic-latching";
  return c;
}

// One tuple of 128 bytes on memory node 0, its version on the switch.
SwitchTupleMap install_one(SimBackend& sim, uint64_t count = 1) {
  SwitchTupleMap m{sim.allocate(0, count * 128, 128), 128, count, sim.allocate(sim.config().switch_node(), count * 8, 8)};
  EXPECT_EQ(sim.install_switch_tuples(m), Status::kOk);
  return m;
}

TEST(Switch, NodesAreNumberedAfterTheMemoryNodes) {
  ClusterConfig c = cluster(1, 1, 1);
  c.memory_nodes = 2;
  c.network.smartnic.enabled = true;
  EXPECT_EQ(c.switch_node(), 2);
  EXPECT_EQ(c.smartnic_node(), 3);
  SimBackend sim(c);
  EXPECT_TRUE(sim.capabilities().programmable_switch);
  EXPECT_TRUE(sim.capabilities().smartnic);
  EXPECT_FALSE(sim.capabilities().switch_optimistic_latching);
  EXPECT_FALSE(sim.allocate(2, 8, 8).is_null());
  EXPECT_FALSE(sim.allocate(3, 64).is_null());
}

TEST(Switch, RegisterFaaFromEveryWorkerIsExactAndNeedsNoLockTable) {
  ClusterConfig c = cluster(4, 4, 4);
  c.nic.profile = "cx5-100g";
  SimBackend sim(c);
  const RemoteAddr counter = sim.allocate(c.switch_node(), 8, 8);
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    for (int i = 0; i < 50; ++i) {
      Result<uint64_t> r = co_await w.faa(counter, 1);
      EXPECT_TRUE(r.ok());
    }
  });
  sim.run();
  EXPECT_EQ(sim.host_load(counter), 64u * 50);
}

TEST(Switch, AnswersInAboutHalfTheRoundTripOfAMemoryNode) {
  ClusterConfig c = cluster(1, 1, 1);
  c.nic.profile = "cx5-100g";
  SimBackend sim(c);
  const RemoteAddr on_switch = sim.allocate(c.switch_node(), 8, 8);
  const RemoteAddr on_memory = sim.allocate(0, 8, 8);
  Nanos to_switch = 0, to_memory = 0;
  sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    for (int i = 0; i < 20; ++i) {
      Nanos t = w.now();
      co_await w.cas(on_switch, 0, 0);
      to_switch += w.now() - t;
      t = w.now();
      co_await w.cas(on_memory, 0, 0);
      to_memory += w.now() - t;
    }
  });
  sim.run();
  // Virtual time: no responder NIC, no PCIe, half the wire.
  EXPECT_LT(to_switch * 10, to_memory * 7) << to_switch << " vs " << to_memory;
}

TEST(Switch, RegistersAreWords) {
  SimBackend sim(cluster(1, 1, 1));
  const RemoteAddr reg = sim.allocate(sim.config().switch_node(), 64, 8);
  Status wide = Status::kOk, narrow = Status::kOk, odd = Status::kOk, word = Status::kBadLength;
  sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    std::byte buf[16]{};
    wide = co_await w.read(buf, reg, 16);
    narrow = co_await w.write(reg, buf, 4);
    odd = co_await w.read(buf, reg + 4, 8);
    word = co_await w.write(reg + 8, buf, 8);
  });
  sim.run();
  EXPECT_EQ(wide, Status::kBadLength);
  EXPECT_EQ(narrow, Status::kBadLength);
  EXPECT_EQ(odd, Status::kMisaligned);
  EXPECT_EQ(word, Status::kOk);
}

TEST(SwitchProgram, InstallingNeedsTheProgramAndAValidMap) {
  SimBackend plain(cluster(1, 1, 1));
  SwitchTupleMap m{plain.allocate(0, 128), 128, 1, plain.allocate(plain.config().switch_node(), 8, 8)};
  EXPECT_EQ(plain.install_switch_tuples(m), Status::kUnsupported);

  SimBackend sim(latching());
  const RemoteAddr tuples = sim.allocate(0, 4 * 128, 128);
  const RemoteAddr versions = sim.allocate(sim.config().switch_node(), 4 * 8, 8);
  EXPECT_EQ(sim.install_switch_tuples({tuples, 100, 4, versions}), Status::kBadLength);
  EXPECT_EQ(sim.install_switch_tuples({versions, 128, 4, versions}), Status::kWrongNode);
  EXPECT_EQ(sim.install_switch_tuples({tuples, 128, 1u << 20, versions}), Status::kUnregistered);  // past the node
  EXPECT_EQ(sim.install_switch_tuples({tuples, 128, 4, versions}), Status::kOk);
}

TEST(SwitchProgram, LatchWriteAndReadFollowTable2) {
  SimBackend sim(latching());
  const SwitchTupleMap m = install_one(sim);
  uint64_t first_latch = 9, second_latch = 9, verdict_latched = 0, verdict_after = 0, version_read = 9;
  sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    first_latch = (co_await w.cas(m.version(0), 123, 456)).value;   // operands ignored
    second_latch = (co_await w.cas(m.version(0), 1, 2)).value;      // already latched
    std::vector<std::byte> image(128, std::byte{0x11});
    co_await w.read(image.data(), m.tuple(0), 128);
    std::memcpy(&verdict_latched, image.data(), 8);
    std::vector<std::byte> data(128, std::byte{0x42});
    EXPECT_EQ(co_await w.write(m.tuple(0), data.data(), 128), Status::kOk);
    co_await w.read(image.data(), m.tuple(0), 128);
    std::memcpy(&verdict_after, image.data(), 8);
    EXPECT_EQ(image[127], std::byte{0x42});
    co_await w.read(&version_read, m.version(0), 8);
  });
  RunStats st = sim.run();
  EXPECT_EQ(first_latch, 0u);   // was free: now latched (1)
  EXPECT_EQ(second_latch, 1u);  // odd: the latch is taken
  EXPECT_EQ(verdict_latched, kSwitchReadInconsistent);
  EXPECT_EQ(verdict_after, 2u);  // the ACK unlatched: 1 -> 2
  EXPECT_EQ(version_read, 2u);
  // The write carried the version it leaves behind (for switch recovery).
  EXPECT_EQ(sim.host_load(m.tuple(0)), 2u);
  EXPECT_EQ(st.counters["switch.latches"], 1);
  EXPECT_EQ(st.counters["switch.latch_conflicts"], 1);
  EXPECT_EQ(st.counters["switch.unlatches"], 1);
  EXPECT_EQ(st.counters["switch.reads_inconsistent"], 1);
  EXPECT_EQ(st.counters["switch.reads_verified"], 1);
  EXPECT_EQ(st.counters["switch.version_reads"], 1);
  // Latches and version reads rode the storage QP: forwarded PSNs were shifted.
  EXPECT_GT(st.counters["switch.psn_adjusted"], 0);
}

// A reader racing writers over many seeds on the spec profile (lines fetched
// in any order, at different instants) never gets a verified torn tuple.
TEST(SwitchProgram, VerifiedReadsAreNeverTornUnderTheSpecProfile) {
  uint64_t inconsistent = 0, verified = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    ClusterConfig c = latching(2, 1, 2);
    c.seed = seed;
    c.semantics.read_spread_ns = 3000;
    SimBackend sim(c);
    const SwitchTupleMap m = install_one(sim);
    sim.spawn_compute([&](Worker& w) -> Task<void> {
      const bool writer = w.placement().node == 0;
      std::vector<std::byte> image(128);
      for (int i = 0; i < 40; ++i) {
        if (writer) {
          if (((co_await w.cas(m.version(0), 0, 0)).value & 1) != 0) continue;
          std::memset(image.data(), static_cast<int>(w.rng().below(250) + 1), 128);
          co_await w.write(m.tuple(0), image.data(), 128);
        } else {
          co_await w.read(image.data(), m.tuple(0), 128);
          uint64_t verdict;
          std::memcpy(&verdict, image.data(), 8);
          if (verdict == kSwitchReadInconsistent) continue;
          for (size_t b = 9; b < 128; ++b) EXPECT_EQ(image[b], image[8]) << "seed " << seed;
        }
      }
    });
    RunStats st = sim.run();
    inconsistent += static_cast<uint64_t>(st.counters["switch.reads_inconsistent"]);
    verified += static_cast<uint64_t>(st.counters["switch.reads_verified"]);
  }
  EXPECT_GT(inconsistent, 0u);  // the races happened
  EXPECT_GT(verified, 0u);
}

uint64_t faa_total_with_duplicates(bool suppress, double* executed, double* suppressed) {
  ClusterConfig c = cluster(2, 2, 2);
  c.network.programmable_switch.duplicate_percent = 30;
  c.network.programmable_switch.suppress_duplicates = suppress;
  SimBackend sim(c);
  const RemoteAddr counter = sim.allocate(c.switch_node(), 8, 8);
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    for (int i = 0; i < 40; ++i) co_await w.faa(counter, 1);
  });
  RunStats st = sim.run();
  *executed = st.counters["switch.duplicates_executed"];
  *suppressed = st.counters["switch.duplicates_suppressed"];
  return sim.host_load(counter);
}

TEST(SwitchProgram, DuplicateSuppressionByPsnKeepsRetransmissionsFromActingTwice) {
  double executed, suppressed;
  EXPECT_EQ(faa_total_with_duplicates(true, &executed, &suppressed), 8u * 40);
  EXPECT_EQ(executed, 0);
  EXPECT_GT(suppressed, 0);
  const uint64_t doubled = faa_total_with_duplicates(false, &executed, &suppressed);
  EXPECT_GT(executed, 0);
  EXPECT_EQ(doubled, 8u * 40 + static_cast<uint64_t>(executed));
}

TEST(SmartNic, ServesAtomicsByRpcExactlyAndWithoutTheLockTable) {
  ClusterConfig c = cluster(4, 8, 1);
  c.network.programmable_switch.enabled = false;
  c.network.smartnic.enabled = true;
  c.nic.profile = "cx5-100g";
  SimBackend sim(c);
  EXPECT_EQ(c.smartnic_node(), 1);
  const RemoteAddr latch = sim.allocate(c.smartnic_node(), 8, 8);
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    for (int i = 0; i < 30; ++i) co_await w.faa(latch, 1);
  });
  RunStats st = sim.run();
  EXPECT_EQ(sim.host_load(latch), 32u * 30);
  EXPECT_EQ(st.counters["smartnic.rpcs"], 32 * 30);
}

TEST(NetworkConfig, RoundTripsAndRejectsBadValues) {
  ClusterConfig c = latching();
  c.network.programmable_switch.duplicate_percent = 7;
  c.network.smartnic.enabled = true;
  ClusterConfig back;
  ASSERT_EQ(ClusterConfig::from_json(c.to_json(), &back), "");
  EXPECT_TRUE(back.network.programmable_switch.optimistic_latching());
  EXPECT_EQ(back.network.programmable_switch.duplicate_percent, 7u);
  EXPECT_TRUE(back.network.smartnic.enabled);

  ClusterConfig bad;
  EXPECT_NE(ClusterConfig::from_json(R"({"network": {"switch": {"program": "magic"}}})", &bad).find("program"),
            std::string::npos);
  EXPECT_NE(ClusterConfig::from_json(R"({"network": {"switch": {"enable": true}}})", &bad).find("enable"),
            std::string::npos);
  EXPECT_NE(ClusterConfig::from_json(R"({"backend": "threads", "network": {"smartnic": {"enabled": true}}})", &bad)
                .find("simulator"),
            std::string::npos);
}

}  // namespace
}  // namespace lw
