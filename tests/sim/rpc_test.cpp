// Two-sided RPC in the simulator: round trips, the modelled costs, the
// polling cores' queue and its bound, one-way messages, determinism, and
// handler CPU accesses racing NIC atomics.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw {
namespace {

// The simple timing model without jitter: every cost is exact.
ClusterConfig exact(uint32_t threads = 1) {
  ClusterConfig c;
  c.threads_per_node = threads;
  c.timing.jitter_ns = 0;
  c.semantics.read_lines_unordered = false;  // a READ fetches at one instant
  c.semantics.read_spread_ns = 0;
  return c;
}

Nanos core_cost(const ClusterConfig& c, HandlerId h) {
  return c.rpc.recv_cpu_ns + builtin_rpc_handlers()[h].cpu_ns + c.rpc.reply_cpu_ns;
}

TEST(SimRpc, EchoRoundTrip) {
  SimBackend sim(exact());
  EXPECT_TRUE(sim.capabilities().rpc);
  std::array<std::byte, 16> reply{};
  Result<uint32_t> got{Status::kUnsupported, 0};
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    const char msg[] = "hello, node 0!";
    got = co_await w.call(0, kEchoHandler, std::as_bytes(std::span(msg)), reply);
    EXPECT_EQ(w.counters().rpcs, 1u);
  });
  RunStats st = sim.run();
  ASSERT_EQ(got.status, Status::kOk);
  EXPECT_EQ(got.value, 15u);
  EXPECT_STREQ(reinterpret_cast<const char*>(reply.data()), "hello, node 0!");
  EXPECT_EQ(st.counters.at("rpc.calls"), 1);
  EXPECT_EQ(st.counters.at("rpc.served"), 1);
}

TEST(SimRpc, ErrorsUnknownHandlerShortReplyWrongNode) {
  SimBackend sim(exact());
  std::vector<Status> s;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    std::array<std::byte, 8> req{}, small{};
    std::array<std::byte, 4> tiny{};
    s.push_back((co_await w.call(0, 40, req, small)).status);           // not registered
    s.push_back((co_await w.call(0, kEchoHandler, req, tiny)).status);  // reply larger than the buffer
    s.push_back((co_await w.call(3, kEchoHandler, req, small)).status); // no such memory node
    s.push_back((co_await w.call(0, kEchoHandler, req, small)).status);
  });
  sim.run();
  EXPECT_EQ(s, (std::vector<Status>{Status::kUnsupported, Status::kBadLength, Status::kWrongNode, Status::kOk}));
}

TEST(SimRpc, RegisterHandlerBoundsAndNames) {
  SimBackend sim(exact());
  auto fn = [](RpcServer&, std::span<const std::byte>, std::span<std::byte>, uint32_t* n) {
    *n = 0;
    return Status::kOk;
  };
  EXPECT_EQ(sim.register_handler({"echo", fn, 1}).status, Status::kBadLength);  // a built-in's name
  EXPECT_EQ(sim.register_handler({"", fn, 1}).status, Status::kBadLength);
  for (HandlerId i = kBuiltinRpcHandlers; i < kMaxRpcHandlers; ++i) {
    std::string name = std::to_string(i);  // not "h" + ...: GCC 12 -O3 false -Wrestrict
    name.insert(name.begin(), 'h');
    Result<HandlerId> r = sim.register_handler({name, fn, 1});
    ASSERT_EQ(r.status, Status::kOk);
    EXPECT_EQ(r.value, i);
  }
  EXPECT_EQ(sim.register_handler({"one-too-many", fn, 1}).status, Status::kQueueFull);
}

// With exact costs an 8-byte echo costs the modelled amounts, well above a READ.
TEST(SimRpc, LatencyIsAReadPlusTheCoresCost) {
  const ClusterConfig c = exact();
  SimBackend sim(c);
  RemoteAddr a = sim.allocate(0, 64);
  Nanos read_ns = 0, rpc_ns = 0;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    uint64_t v = 0;
    std::array<std::byte, 8> req{}, reply{};
    Nanos t = w.now();
    EXPECT_EQ(co_await w.read(&v, a, 8), Status::kOk);
    read_ns = w.now() - t;
    t = w.now();
    EXPECT_EQ((co_await w.call(0, kEchoHandler, req, reply)).status, Status::kOk);
    rpc_ns = w.now() - t;
  });
  sim.run();
  // Post, the request SEND and its DMA into host memory, the core, the
  // reply SEND, the poll: the READ's path plus the core's time.
  const TimingConfig& t = c.timing;
  const Nanos wire = static_cast<Nanos>((40 + 8) / t.bytes_per_ns);
  EXPECT_EQ(rpc_ns, t.post_cpu_ns + 2 * (t.one_way_ns + wire) + t.pcie_ns + core_cost(c, kEchoHandler) +
                        t.poll_cpu_ns);
  EXPECT_EQ(rpc_ns - read_ns, core_cost(c, kEchoHandler));
}

// One core, N callers whose requests arrive together: they are served one
// after the other, the last waiting (N - 1) core times.
TEST(SimRpc, OneCoreServesQueuedCallsInOrder) {
  constexpr uint32_t kCallers = 8;
  ClusterConfig c = exact(kCallers);
  c.rpc.cores_per_node = 1;
  SimBackend sim(c);
  std::vector<Nanos> lat;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    std::array<std::byte, 8> req{}, reply{};
    const Nanos t = w.now();
    EXPECT_EQ((co_await w.call(0, kEchoHandler, req, reply)).status, Status::kOk);
    lat.push_back(w.now() - t);
  });
  RunStats st = sim.run();
  ASSERT_EQ(lat.size(), kCallers);
  const Nanos cost = core_cost(c, kEchoHandler);
  std::sort(lat.begin(), lat.end());
  for (uint32_t i = 1; i < kCallers; ++i) EXPECT_EQ(lat[i] - lat[i - 1], cost) << i;
  EXPECT_EQ(lat.back() - lat.front(), (kCallers - 1) * cost);
  EXPECT_EQ(st.counters.at("rpc.queue_wait_ns_total"), cost * (kCallers * (kCallers - 1) / 2));
  EXPECT_EQ(st.counters.at("rpc.queue_wait_ns_max"), cost * (kCallers - 1));
}

// Round-trip times of one 8-byte call to `a`, then one to `b`, repeated
// `rounds` times (the last round's: earlier ones may miss caches).
std::pair<Nanos, Nanos> call_pair_ns(SimBackend& sim, HandlerId a, HandlerId b, int rounds = 1) {
  Nanos a_ns = 0, b_ns = 0;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    std::array<std::byte, 8> req{}, reply{};
    for (int i = 0; i < rounds; ++i) {
      Nanos t = w.now();
      EXPECT_EQ((co_await w.call(0, a, req, reply)).status, Status::kOk);
      a_ns = w.now() - t;
      t = w.now();
      EXPECT_EQ((co_await w.call(0, b, req, reply)).status, Status::kOk);
      b_ns = w.now() - t;
    }
  });
  sim.run();
  return {a_ns, b_ns};
}

// A handler's time is its fixed cost plus what it does: each access to the
// node's memory as a memory-node thread's (cpu_access_ns), bytes read or
// written as copies, and its compute() work, all priced by the timing model.
TEST(SimRpc, HandlerAccessesAndWorkAreCharged) {
  constexpr uint32_t kLoads = 5;
  constexpr uint64_t kReadBytes = 256;
  constexpr uint64_t kLines = 10;
  ClusterConfig c = exact();
  c.timing.cpu_access_ns = 17;
  c.timing.farm_check_ns_per_line = 3;
  SimBackend sim(c);
  const RemoteAddr a = sim.allocate(0, 512);
  auto idle = [](RpcServer&, std::span<const std::byte>, std::span<std::byte>, uint32_t* n) {
    *n = 0;
    return Status::kOk;
  };
  const uint64_t off = a.offset();
  auto busy = [off](RpcServer& srv, std::span<const std::byte>, std::span<std::byte>, uint32_t* n) {
    std::array<std::byte, kReadBytes> buf;
    for (uint32_t i = 0; i < kLoads; ++i) (void)srv.load(off + 8 * i);
    (void)srv.read(off, buf.data(), kReadBytes);
    (void)srv.cas(off, 0, 1);
    (void)srv.load(off + (1ull << 40));  // out of bounds: touches nothing, costs nothing
    srv.compute(CpuWork::kFarmLine, kLines);
    *n = 0;
    return Status::kOk;
  };
  const HandlerId h_idle = sim.register_handler({"idle", idle, 100}).value;
  const HandlerId h_busy = sim.register_handler({"busy", busy, 100}).value;
  const auto [idle_ns, busy_ns] = call_pair_ns(sim, h_idle, h_busy);
  // The simple model prices checks only: the read's copy costs nothing here.
  EXPECT_EQ(busy_ns - idle_ns, (kLoads + 2) * 17 + kLines * 3);
}

// In the calibrated NIC model the bytes a handler reads are copies priced by
// the profile's measured copy_ns_per_byte (the same for writes).
TEST(SimRpc, HandlerCopiesCostTheProfilesPerByte) {
  ClusterConfig c = exact();
  c.nic.profile = "cx5-100g";
  c.nic.overrides["jitter_ns"] = 0;
  c.nic.overrides["copy_ns_per_byte"] = 0.5;
  SimBackend sim(c);
  const RemoteAddr a = sim.allocate(0, 1024);
  const uint64_t off = a.offset();
  auto reader = [off](uint64_t bytes) {
    return [off, bytes](RpcServer& srv, std::span<const std::byte>, std::span<std::byte>, uint32_t* n) {
      std::array<std::byte, 1024> buf;
      (void)srv.read(off, buf.data(), bytes);
      (void)srv.write(off, buf.data(), bytes);
      *n = 0;
      return Status::kOk;
    };
  };
  const HandlerId h_small = sim.register_handler({"small", reader(8), 100}).value;
  const HandlerId h_large = sim.register_handler({"large", reader(1024), 100}).value;
  // The second pair: the QP's context is cached.
  const auto [small_ns, large_ns] = call_pair_ns(sim, h_small, h_large, 2);
  EXPECT_EQ(large_ns - small_ns, 2 * (1024 - 8) / 2);
}

TEST(SimRpc, TwoCoresHalveTheWait) {
  constexpr uint32_t kCallers = 8;
  ClusterConfig c = exact(kCallers);
  c.rpc.cores_per_node = 2;
  SimBackend sim(c);
  Nanos worst = 0, best = ~Nanos{0};
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    std::array<std::byte, 8> req{}, reply{};
    const Nanos t = w.now();
    EXPECT_EQ((co_await w.call(0, kEchoHandler, req, reply)).status, Status::kOk);
    worst = std::max(worst, w.now() - t);
    best = std::min(best, w.now() - t);
  });
  sim.run();
  EXPECT_EQ(worst - best, (kCallers / 2 - 1) * core_cost(c, kEchoHandler));
}

TEST(SimRpc, QueueFullBeyondTheBound) {
  constexpr uint32_t kCallers = 6;
  ClusterConfig c = exact(kCallers);
  c.rpc.cores_per_node = 1;
  c.rpc.queue_capacity = 2;
  SimBackend sim(c);
  uint32_t ok_calls = 0, full = 0;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    std::array<std::byte, 8> req{}, reply{};
    const Status s = (co_await w.call(0, kEchoHandler, req, reply)).status;
    if (s == Status::kOk) ++ok_calls;
    if (s == Status::kQueueFull) ++full;
  });
  RunStats st = sim.run();
  EXPECT_EQ(ok_calls, 3u);  // one served at once, two queued
  EXPECT_EQ(full, 3u);
  EXPECT_EQ(st.counters.at("rpc.rejected"), 3);
}

// A handler that adds its request's 8-byte value to the word at `offset`.
RpcHandler adder(uint64_t offset) {
  return {"add", [offset](RpcServer& s, std::span<const std::byte> req, std::span<std::byte>, uint32_t* n) {
            uint64_t v = 0;
            if (req.size() != 8) return Status::kBadLength;
            std::memcpy(&v, req.data(), 8);
            *n = 0;
            return s.faa(offset, v).status;
          },
          150};
}

TEST(SimRpc, OneWayMessagesAreServed) {
  ClusterConfig c = exact(2);
  c.coroutines_per_thread = 3;
  SimBackend sim(c);
  RemoteAddr word = sim.allocate(0, 8, 8);
  const HandlerId add = sim.register_handler(adder(word.offset())).value;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    const uint64_t one = 1;
    for (int i = 0; i < 10; ++i) {
      EXPECT_EQ(w.send(0, add, std::as_bytes(std::span(&one, 1))), Status::kOk);
      co_await w.sleep(50);
    }
  });
  RunStats st = sim.run();
  EXPECT_EQ(sim.host_load(word), 60u);
  EXPECT_EQ(st.counters.at("rpc.one_way"), 60);
  EXPECT_EQ(st.counters.at("rpc.served"), 60);
}

uint64_t hash_of(uint64_t seed) {
  ClusterConfig c;
  c.threads_per_node = 3;
  c.coroutines_per_thread = 2;
  c.seed = seed;
  c.nic.profile = "cx5-100g";
  c.rpc.cores_per_node = 1;
  SimBackend sim(c);
  sim.spawn_compute([](Worker& w) -> Task<void> {
    std::array<std::byte, 32> req{}, reply{};
    for (int i = 0; i < 20; ++i) {
      req[0] = static_cast<std::byte>(w.rng().below(256));
      Result<uint32_t> r = co_await w.call(0, kEchoHandler, req, reply);
      EXPECT_EQ(r.status, Status::kOk);
      EXPECT_EQ(reply[0], req[0]);
    }
  });
  return sim.run().trace_hash;
}

TEST(SimRpc, SameSeedSameTrace) {
  EXPECT_EQ(hash_of(7), hash_of(7));
  EXPECT_NE(hash_of(7), hash_of(8));
}

// Handler CPU FAAs race compute workers' NIC FAAs on one word. NIC atomics
// are not atomic with the CPU: with atomic_loses_cpu a CPU update landing in
// an atomic's window is lost; without it every update counts, every seed.
uint64_t lost_updates(bool loses, uint64_t seed) {
  ClusterConfig c;
  c.threads_per_node = 4;
  c.seed = seed;
  c.semantics.atomic_loses_cpu = loses;
  SimBackend sim(c);
  RemoteAddr word = sim.allocate(0, 8, 8);
  const HandlerId add = sim.register_handler(adder(word.offset())).value;
  constexpr int kOps = 40;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    for (int i = 0; i < kOps; ++i) {
      if (w.placement().thread == 0) {
        const uint64_t k = 1000;
        std::array<std::byte, 0> none{};
        EXPECT_EQ((co_await w.call(0, add, std::as_bytes(std::span(&k, 1)), none)).status, Status::kOk);
      } else {
        EXPECT_EQ((co_await w.faa(word, 1)).status, Status::kOk);
      }
    }
  });
  sim.run();
  const uint64_t expected = kOps * 1000 + 3 * kOps;
  const uint64_t got = sim.host_load(word);
  EXPECT_LE(got, expected);
  return expected - got;
}

TEST(SimRpc, HandlerCpuAtomicsRaceNicAtomicsAsTheContractSays) {
  uint64_t lost_with = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    EXPECT_EQ(lost_updates(false, seed), 0u) << "seed " << seed;
    lost_with += lost_updates(true, seed);
  }
  EXPECT_GT(lost_with, 0u) << "no handler update ever landed in a NIC atomic's window";
}

TEST(SimRpc, BlockedWorkerSaysItAwaitsAnRpc) {
  ClusterConfig c = exact();
  SimBackend sim(c);
  sim.set_event_limit(3);  // stop while the call is in flight
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    std::array<std::byte, 8> req{}, reply{};
    (void)co_await w.call(0, kEchoHandler, req, reply);
  });
  RunStats st = sim.run();
  ASSERT_FALSE(st.budget_exhausted.empty());
  ASSERT_EQ(sim.blocked().size(), 1u);
  EXPECT_NE(sim.blocked()[0].waiting_on.find("awaits RPC 'echo'"), std::string::npos)
      << sim.blocked()[0].waiting_on;
}

// RpcServers::kWorkers (DrTM+H's event loops): the memory node's worker
// thread serves the call once its current step's CPU is spent, and its own
// coroutine waits while it serves. With dedicated cores neither waits.
TEST(SimRpc, WorkerThreadsServeCallsBetweenTheirSteps) {
  constexpr Nanos kStep = 5'000;  // the worker's step, longer than the call's way there
  auto run = [](RpcServers servers, Nanos* call_ns, Nanos* resumed_at) {
    ClusterConfig c = exact();
    c.memory_node_threads = 1;
    c.rpc.servers = servers;
    ASSERT_EQ(c.validate(), "");
    SimBackend sim(c);
    sim.spawn_compute([&](Worker& w) -> Task<void> {
      std::array<std::byte, 8> req{}, reply{};
      const Nanos t = w.now();
      EXPECT_EQ((co_await w.call(0, kEchoHandler, req, reply)).status, Status::kOk);
      *call_ns = w.now() - t;
    });
    sim.spawn({Placement::Kind::kMemory, 0, 0, 0}, [&](Worker& w) -> Task<void> {
      w.charge_cpu(kStep);
      co_await w.sleep(100);
      *resumed_at = w.now();
    });
    const RunStats st = sim.run();
    EXPECT_EQ(st.counters.at("rpc.served"), 1);
  };
  Nanos cores_call = 0, cores_resumed = 0, workers_call = 0, workers_resumed = 0;
  run(RpcServers::kCores, &cores_call, &cores_resumed);
  run(RpcServers::kWorkers, &workers_call, &workers_resumed);
  const ClusterConfig c = exact();
  const Nanos cost = core_cost(c, kEchoHandler);
  // The call waited for the worker's step to end, then was served.
  EXPECT_GE(workers_call, cores_call + 3'000);
  // The worker resumed its coroutine only after serving the call.
  EXPECT_GE(workers_resumed, kStep + cost);
  EXPECT_LT(cores_resumed, kStep + cost);
}

TEST(SimRpc, WorkerServersNeedMemoryNodeThreadsAndTheSimulator) {
  ClusterConfig c = exact();
  c.rpc.servers = RpcServers::kWorkers;
  EXPECT_NE(c.validate().find("memory_node_threads"), std::string::npos);
  c.memory_node_threads = 2;
  EXPECT_EQ(c.validate(), "");
  c.backend = "threads";
  EXPECT_NE(c.validate().find("only in the simulator"), std::string::npos);
  RpcServers r = RpcServers::kCores;
  EXPECT_TRUE(parse_rpc_servers("workers", &r) && r == RpcServers::kWorkers);
  EXPECT_FALSE(parse_rpc_servers("threads", &r));
}

}  // namespace
}  // namespace lw
