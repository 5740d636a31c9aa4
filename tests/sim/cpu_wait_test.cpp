// Local spinning (Worker::cpu_wait_while, src/sim/sim_cpu_wait.cpp): the
// simulator does not resume the spinner between loads, and the run is the
// one the loop of cpu_load awaits it stands for makes, event for event.
#include <gtest/gtest.h>

#include <array>

#include <string>
#include <vector>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw {
namespace {

constexpr Placement kWaiter{Placement::Kind::kMemory, 0, 0, 0};
constexpr Placement kLocalWriter{Placement::Kind::kMemory, 0, 1, 0};
constexpr Placement kRemoteWriter{Placement::Kind::kCompute, 0, 0, 0};

// Who changes the waited word, and how.
enum class Source {
  kCpuStore,    // another thread of the node: a CPU store
  kWrite,       // a compute node: an 8-byte WRITE
  kWideWrite,   // a compute node: a 256-byte WRITE whose third line holds the word
  kCas,         // a compute node: a NIC CAS
  kFaa,         // a compute node: a NIC FAA
  kWriteBack,   // a compute node: WRITEs of 7 and 0 in one batch, later of 9 (the word changes back)
};

struct Outcome {
  Status status = Status::kOk;
  uint64_t value = 0;
  uint64_t polls = 0;
  Nanos resumed = 0;  // the waiter's clock after the wait
  RunStats stats;
};

ClusterConfig cluster(const std::string& nic, uint32_t coroutines = 1) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = nic;
  c.seed = 5;
  c.compute_nodes = 1;
  c.threads_per_node = 1;
  c.coroutines_per_thread = coroutines;
  c.memory_nodes = 1;
  c.memory_node_threads = 2;
  c.memory_node_bytes = 1 << 20;
  return c;
}

// The waiter spins on a word holding 0 while `source` changes it after
// `delay` ns; with `primitive` through cpu_wait_while, else as the loop.
Outcome spin(const ClusterConfig& c, bool primitive, Source source, Nanos delay, uint64_t max_polls = 100'000,
             bool nobody_writes = false) {
  SimBackend sim(c);
  const RemoteAddr block = sim.allocate(0, 256, 64);
  const RemoteAddr word = block + 128 + 16;  // in the third line
  Outcome out;
  sim.spawn(kWaiter, [&](Worker& w) -> Task<void> {
    if (primitive) {
      const Worker::CpuWaitResult r = co_await w.cpu_wait_while(word, 0, max_polls);
      out = {r.status, r.value, r.polls, w.now(), {}};
      co_return;
    }
    Result<uint64_t> v;
    do {
      v = co_await w.cpu_load(word);
      ++out.polls;
    } while (v.ok() && v.value == 0 && out.polls < max_polls);
    out.status = v.status;
    out.value = v.value;
    out.resumed = w.now();
  });
  if (!nobody_writes) {
    const bool local = source == Source::kCpuStore;
    sim.spawn(local ? kLocalWriter : kRemoteWriter, [=](Worker& w) -> Task<void> {
      co_await w.sleep(delay);
      std::vector<uint64_t> wide(32, 7);
      uint64_t seven = 7;
      switch (source) {
        case Source::kCpuStore: EXPECT_TRUE((co_await w.cpu_store(word, 7)).ok()); break;
        case Source::kWrite: EXPECT_EQ(co_await w.write(word, &seven, 8), Status::kOk); break;
        case Source::kWideWrite: EXPECT_EQ(co_await w.write(block, wide.data(), 256), Status::kOk); break;
        case Source::kCas: EXPECT_TRUE((co_await w.cas(word, 0, 7)).ok()); break;
        case Source::kFaa: EXPECT_TRUE((co_await w.faa(word, 7)).ok()); break;
        case Source::kWriteBack: {
          uint64_t zero = 0, nine = 9;
          Batch b;
          b.write(word, &seven, 8);
          b.write(word, &zero, 8);
          EXPECT_EQ(co_await w.execute(b), Status::kOk);
          co_await w.sleep(delay / 3);
          EXPECT_EQ(co_await w.write(word, &nine, 8), Status::kOk);
          break;
        }
      }
    });
  }
  out.stats = sim.run();
  return out;
}

const char* name(Source s) {
  switch (s) {
    case Source::kCpuStore: return "CPU store";
    case Source::kWrite: return "WRITE";
    case Source::kWideWrite: return "256-byte WRITE";
    case Source::kCas: return "CAS";
    case Source::kFaa: return "FAA";
    case Source::kWriteBack: return "WRITE and back, then WRITE";
  }
  return "?";
}

void expect_same_run(const Outcome& loop, const Outcome& wait) {
  ASSERT_EQ(loop.status, Status::kOk);
  EXPECT_EQ(wait.status, Status::kOk);
  EXPECT_EQ(wait.value, loop.value);
  EXPECT_EQ(wait.polls, loop.polls);
  EXPECT_EQ(wait.resumed, loop.resumed);
  EXPECT_EQ(wait.stats.elapsed_ns, loop.stats.elapsed_ns);
  EXPECT_EQ(wait.stats.events, loop.stats.events);
  EXPECT_EQ(wait.stats.trace_hash, loop.stats.trace_hash);
}

// Whoever changes the word, whenever: the same loads at the same instants,
// and every other event in the same order (the trace hash mixes each event's
// time, push order and kind).
TEST(CpuWait, IsTheLoopEventForEvent) {
  for (const char* nic : {"simple", "cx3-56g", "cx6-200g"}) {
    const ClusterConfig c = cluster(nic);
    for (Source s : {Source::kCpuStore, Source::kWrite, Source::kWideWrite, Source::kCas, Source::kFaa,
                     Source::kWriteBack}) {
      for (Nanos delay = 0; delay < 2000; delay += 37) {
        SCOPED_TRACE(std::string(nic) + ", " + name(s) + " after " + std::to_string(delay) + " ns");
        const Outcome loop = spin(c, false, s, delay), wait = spin(c, true, s, delay);
        expect_same_run(loop, wait);
        EXPECT_NE(wait.value, 0u);
        EXPECT_GE(wait.polls, 1u);
      }
    }
  }
}

TEST(CpuWait, RunsOutOfLoadsWhereTheLoopDoes) {
  for (const char* nic : {"simple", "cx3-56g"}) {
    const ClusterConfig c = cluster(nic);
    const Outcome loop = spin(c, false, Source::kWrite, 0, 50, true);
    const Outcome wait = spin(c, true, Source::kWrite, 0, 50, true);
    SCOPED_TRACE(nic);
    expect_same_run(loop, wait);
    EXPECT_EQ(wait.value, 0u);
    EXPECT_EQ(wait.polls, 50u);
  }
}

// With two coroutines per thread another one may take the CPU between
// loads: the Worker runs the loop itself, event for event.
TEST(CpuWait, TwoCoroutinesPerThreadRunTheLoop) {
  const ClusterConfig c = cluster("cx3-56g", 2);
  for (Nanos delay : {0, 100, 555}) {
    const Outcome loop = spin(c, false, Source::kCpuStore, delay), wait = spin(c, true, Source::kCpuStore, delay);
    expect_same_run(loop, wait);
  }
}

TEST(CpuWait, RejectsWordsOffItsNodeWithoutWaiting) {
  ClusterConfig c = cluster("simple");
  c.memory_nodes = 2;
  SimBackend sim(c);
  const RemoteAddr other = sim.allocate(1, 64, 64);
  Worker::CpuWaitResult off_node, past_end, compute;
  sim.spawn(kWaiter, [&](Worker& w) -> Task<void> {
    off_node = co_await w.cpu_wait_while(other, 0, 10);
    past_end = co_await w.cpu_wait_while(RemoteAddr(0, c.memory_node_bytes), 0, 10);
  });
  sim.spawn(kRemoteWriter, [&](Worker& w) -> Task<void> {
    compute = co_await w.cpu_wait_while(other, 0, 10);
  });
  sim.run();
  EXPECT_EQ(off_node.status, Status::kWrongNode);
  EXPECT_EQ(off_node.polls, 1u);
  EXPECT_NE(past_end.status, Status::kOk);
  EXPECT_EQ(compute.status, Status::kWrongNode);
}

TEST(CpuWait, ADeadlockedWaiterSaysWhatItSpinsOn) {
  const ClusterConfig c = cluster("cx3-56g");
  SimBackend sim(c);
  const RemoteAddr word = sim.allocate(0, 64, 64);
  sim.set_report_stalls(true);
  sim.spawn(kWaiter, [&](Worker& w) -> Task<void> {
    (void)co_await w.cpu_wait_while(word, 0, 1'000'000);
    co_await w.sleep(1);
  });
  // A small event budget stops the run while the wait is in progress.
  sim.set_event_limit(10);
  const RunStats stats = sim.run();
  ASSERT_FALSE(stats.budget_exhausted.empty());
  const auto blocked = sim.blocked();
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_NE(blocked[0].waiting_on.find("spinning on " + word.to_string() + " while it holds 0 (9 loads so far)"), std::string::npos)
      << blocked[0].waiting_on;
}

// A memory-node thread spinning in cpu_wait_while also serves RPCs when
// worker threads serve them (RpcServers::kWorkers): a call arriving while it
// spins takes its CPU, and it polls again once the call is served.
TEST(CpuWait, ASpinningWorkerServesACallAndSpinsOn) {
  ClusterConfig c = cluster("cx3-56g");
  c.memory_node_threads = 1;
  c.rpc.servers = RpcServers::kWorkers;
  ASSERT_EQ(c.validate(), "");
  SimBackend sim(c);
  const RemoteAddr word = sim.allocate(0, 64, 64);
  Worker::CpuWaitResult waited;
  Result<uint32_t> called{Status::kUnsupported, 0};
  sim.spawn(kWaiter, [&](Worker& w) -> Task<void> { waited = co_await w.cpu_wait_while(word, 0, 1'000'000); });
  sim.spawn(kRemoteWriter, [&](Worker& w) -> Task<void> {
    std::array<std::byte, 8> req{}, reply{};
    called = co_await w.call(0, kEchoHandler, req, reply);
    const uint64_t one = 1;
    EXPECT_EQ(co_await w.write(word, &one, 8), Status::kOk);
  });
  const RunStats st = sim.run();
  EXPECT_EQ(called.status, Status::kOk);
  EXPECT_EQ(st.counters.at("rpc.served"), 1);
  EXPECT_EQ(waited.status, Status::kOk);
  EXPECT_EQ(waited.value, 1u);
}

}  // namespace
}  // namespace lw
