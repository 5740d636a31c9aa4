// The verbs API behaves the same on every backend: results of each verb,
// atomics' return values, batches, unsignaled posts, and error statuses for
// misuse that leave memory untouched.
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "latchwork/backends.h"

namespace lw {
namespace {

struct BackendCase {
  const char* name;
  const char* backend;
  const char* profile;
  bool adversarial;
};

class VerbsConformance : public ::testing::TestWithParam<BackendCase> {
 protected:
  ClusterConfig config(uint32_t compute_nodes = 1, uint32_t coroutines = 1) const {
    ClusterConfig c;
    c.backend = GetParam().backend;
    EXPECT_EQ(c.set_profile(GetParam().profile), "");
    c.threads.adversarial = GetParam().adversarial;
    c.compute_nodes = compute_nodes;
    c.coroutines_per_thread = coroutines;
    c.memory_nodes = 2;
    c.memory_node_bytes = 1 << 20;
    c.device_memory_bytes = 4096;
    c.seed = 7;
    return c;
  }
  // Runs `body` as the only coroutine of a one-node cluster.
  template <typename Body>
  std::unique_ptr<Backend> run_one(Body body, RemoteAddr* a, uint32_t bytes = 4096) {
    std::string err;
    auto b = make_backend(config(), &err);
    EXPECT_TRUE(b) << err;
    *a = b->allocate(0, bytes);
    RemoteAddr addr = *a;
    b->spawn({Placement::Kind::kCompute, 0, 0, 0},
             [body, addr](Worker& w) -> Task<void> { co_await body(w, addr); });
    b->run();
    return b;
  }
};

TEST_P(VerbsConformance, WriteThenReadRoundTrips) {
  RemoteAddr a;
  std::array<uint8_t, 300> seen{};
  auto b = run_one(
      [&seen](Worker& w, RemoteAddr addr) -> Task<void> {
        std::array<uint8_t, 300> data;
        for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 1);
        EXPECT_EQ(co_await w.write(addr + 3, data.data(), data.size()), Status::kOk);
        EXPECT_EQ(co_await w.read(seen.data(), addr + 3, seen.size()), Status::kOk);
      },
      &a);
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], static_cast<uint8_t>(i * 7 + 1));
  uint8_t host[300];
  b->host_read(a + 3, host, sizeof host);
  EXPECT_EQ(std::memcmp(host, seen.data(), sizeof host), 0);
}

TEST_P(VerbsConformance, AtomicsReturnTheOldValue) {
  RemoteAddr a;
  auto b = run_one(
      [](Worker& w, RemoteAddr x) -> Task<void> {
        auto r = co_await w.faa(x, 5);
        EXPECT_TRUE(r.ok());
        EXPECT_EQ(r.value, 0u);
        r = co_await w.cas(x, 4, 9);  // fails: word is 5
        EXPECT_TRUE(r.ok());
        EXPECT_EQ(r.value, 5u);
        r = co_await w.cas(x, 5, 9);
        EXPECT_EQ(r.value, 5u);
        r = co_await w.faa(x, ~uint64_t{0});  // -1 wraps
        EXPECT_EQ(r.value, 9u);
      },
      &a);
  EXPECT_EQ(b->host_load(a), 8u);
}

TEST_P(VerbsConformance, MaskedAtomicsActOnTheirField) {
  RemoteAddr a;
  auto b = run_one(
      [](Worker& w, RemoteAddr x) -> Task<void> {
        uint64_t init = 0x000000AAFFFFFFFFull;
        EXPECT_EQ(co_await w.write(x, &init, 8), Status::kOk);
        const uint64_t fields = (uint64_t{1} << 31) | (uint64_t{1} << 63);
        auto r = co_await w.masked_faa(x, 1, fields);  // low field wraps, no carry
        EXPECT_EQ(r.value, init);
        const uint64_t high = 0xFFFFFFFF00000000ull;
        r = co_await w.masked_cas(x, uint64_t{0xAA} << 32, uint64_t{0xBB} << 32, high, high);
        EXPECT_EQ(r.value, 0x000000AA00000000ull);
      },
      &a);
  EXPECT_EQ(b->host_load(a), 0x000000BB00000000ull);
}

TEST_P(VerbsConformance, BatchRunsInOrderOnOneQueuePair) {
  RemoteAddr a;
  uint64_t after_faa = 0;
  auto b = run_one(
      [&after_faa](Worker& w, RemoteAddr x) -> Task<void> {
        uint64_t v = 40;
        Batch batch;
        batch.write(x, &v, 8);
        batch.faa(x, 2);  // WRITEs and atomics execute in order
        batch.read(&after_faa, x, 8);  // an atomic executes before later operations
        EXPECT_EQ(co_await w.execute(batch), Status::kOk);
        EXPECT_EQ(batch[1].old_value, 40u);
      },
      &a);
  EXPECT_EQ(after_faa, 42u);
  EXPECT_EQ(b->host_load(a), 42u);
}

TEST_P(VerbsConformance, UnsignaledPostIsCompletedByALaterSignaledOne) {
  RemoteAddr a;
  uint64_t seen = 0;
  auto b = run_one(
      [&seen](Worker& w, RemoteAddr x) -> Task<void> {
        static const uint64_t v = 77;  // static: alive until the NIC reads it
        Batch fire;
        fire.write(x, &v, 8);
        EXPECT_EQ(w.post(fire), Status::kOk);
        // Same queue pair: the later READ cannot overtake the WRITE.
        EXPECT_EQ(co_await w.read(&seen, x, 8), Status::kOk);
      },
      &a);
  EXPECT_EQ(seen, 77u);
}

TEST_P(VerbsConformance, MisuseFailsAndLeavesMemoryUntouched) {
  RemoteAddr a;
  auto b = run_one(
      [](Worker& w, RemoteAddr x) -> Task<void> {
        uint64_t v = 0xdead;
        const uint64_t node_bytes = 1 << 20;
        EXPECT_EQ((co_await w.cas(x + 4, 0, 1)).status, Status::kMisaligned);
        EXPECT_EQ((co_await w.faa(x + 1, 1)).status, Status::kMisaligned);
        EXPECT_EQ(co_await w.write(RemoteAddr(0, node_bytes - 4), &v, 8), Status::kOutOfBounds);
        EXPECT_EQ(co_await w.read(&v, RemoteAddr(0, 8), 8), Status::kUnregistered);
        EXPECT_EQ(co_await w.read(&v, RemoteAddr(0, node_bytes + 64), 8), Status::kUnregistered);
        EXPECT_EQ(co_await w.write(RemoteAddr(9, 4096), &v, 8), Status::kWrongNode);
        EXPECT_EQ(co_await w.read(&v, x, 0), Status::kBadLength);
        EXPECT_EQ((co_await w.cpu_load(x)).status, Status::kWrongNode);  // not on a memory node
        Batch mixed;
        mixed.read(&v, x, 8);
        mixed.read(&v, RemoteAddr(1, 4096), 8);
        EXPECT_EQ(co_await w.execute(mixed), Status::kWrongNode);
        // The queue pair still works after errors.
        EXPECT_EQ(co_await w.write(x, &v, 8), Status::kOk);
      },
      &a);
  EXPECT_EQ(b->host_load(a), 0xdeadu);
  EXPECT_EQ(b->host_load(a + 8), 0u);
}

TEST_P(VerbsConformance, DeviceMemoryServesAtomics) {
  std::string err;
  auto b = make_backend(config(), &err);
  ASSERT_TRUE(b) << err;
  RemoteAddr dm = b->allocate_device_memory(0, 64);
  ASSERT_FALSE(dm.is_null());
  EXPECT_TRUE(b->allocate_device_memory(0, 8192).is_null());  // only 4096 bytes
  b->spawn({Placement::Kind::kCompute, 0, 0, 0}, [dm](Worker& w) -> Task<void> {
    for (int i = 0; i < 10; ++i) EXPECT_TRUE((co_await w.faa(dm, 3)).ok());
    EXPECT_EQ((co_await w.cas(dm, 30, 1)).value, 30u);
  });
  b->run();
  EXPECT_EQ(b->host_load(dm), 1u);
}

TEST_P(VerbsConformance, MemoryNodeThreadsUseCpuAtomics) {
  ClusterConfig c = config();
  c.memory_node_threads = 1;
  std::string err;
  auto b = make_backend(c, &err);
  ASSERT_TRUE(b) << err;
  RemoteAddr x = b->allocate(0, 8, 8), other = b->allocate(1, 8, 8);
  b->spawn({Placement::Kind::kMemory, 0, 0, 0}, [x, other](Worker& w) -> Task<void> {
    EXPECT_EQ((co_await w.cpu_store(x, 10)).status, Status::kOk);
    EXPECT_EQ((co_await w.cpu_faa(x, 5)).value, 10u);
    EXPECT_EQ((co_await w.cpu_cas(x, 15, 20)).value, 15u);
    EXPECT_EQ((co_await w.cpu_load(x)).value, 20u);
    EXPECT_EQ((co_await w.cpu_load(other)).status, Status::kWrongNode);  // another node
  });
  b->run();
  EXPECT_EQ(b->host_load(x), 20u);
}

TEST_P(VerbsConformance, CountersAreExactUnderConcurrentAtomics) {
  ClusterConfig c = config(/*compute_nodes=*/3, /*coroutines=*/4);
  c.threads_per_node = 2;
  std::string err;
  auto b = make_backend(c, &err);
  ASSERT_TRUE(b) << err;
  RemoteAddr faa_ctr = b->allocate(0, 8, 8), cas_ctr = b->allocate(1, 8, 8);
  b->spawn_compute([faa_ctr, cas_ctr](Worker& w) -> Task<void> {
    for (int i = 0; i < 50; ++i) {
      EXPECT_TRUE((co_await w.faa(faa_ctr, 1)).ok());
      uint64_t expect = 0;
      for (int attempt = 0; attempt < 100000; ++attempt) {  // bounded CAS loop
        auto r = co_await w.cas(cas_ctr, expect, expect + 1);
        if (r.value == expect) break;
        expect = r.value;
      }
    }
  });
  b->run();
  EXPECT_EQ(b->host_load(faa_ctr), 3u * 2 * 4 * 50);
  EXPECT_EQ(b->host_load(cas_ctr), 3u * 2 * 4 * 50);
}

INSTANTIATE_TEST_SUITE_P(
    AllBackends, VerbsConformance,
    ::testing::Values(BackendCase{"sim_spec", "sim", "spec", false},
                      BackendCase{"sim_connectx", "sim", "connectx", false},
                      BackendCase{"sim_sequential", "sim", "sequential", false},
                      BackendCase{"threads", "threads", "spec", false},
                      BackendCase{"threads_adversarial", "threads", "spec", true}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace lw
