// The relaxation log: each relaxation's weak behaviour, produced by a litmus
// scenario, is logged under its switch name and attributed to the right
// coroutine; nothing is logged without relaxations; a log changes no trace.
#include "latchwork/sim/relaxation_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

constexpr Nanos kSpread = 3000;
constexpr uint64_t kSeeds = 300;

constexpr Placement compute(uint32_t node, uint32_t coroutine = 0) {
  return {Placement::Kind::kCompute, node, 0, coroutine};
}
constexpr Placement memory_thread{Placement::Kind::kMemory, 0, 0, 0};

bool same(const Placement& a, const Placement& b) {
  return a.kind == b.kind && a.node == b.node && a.thread == b.thread && a.coroutine == b.coroutine;
}

// A scenario spawns its coroutines and returns how to read its outcome.
using Scenario = std::function<std::function<std::string()>(SimBackend&)>;

struct Outcome {
  std::string outcome;
  std::vector<RelaxationEvent> events;  // of the relaxation under test
  uint64_t hash = 0;
};

Outcome run(const Scenario& scenario, const std::string& profile, uint64_t seed, const char* relaxation,
        uint32_t compute_nodes, uint32_t memory_threads, bool with_log = true) {
  ClusterConfig c;
  EXPECT_EQ(c.set_profile(profile), "");
  // No profile turns it on: a run under spec turns it on by name, as a user would.
  if (profile == "spec" && std::string(relaxation) == "failed_cas_writes_back") c.semantics.failed_cas_writes_back = true;
  c.seed = seed;
  c.compute_nodes = compute_nodes;
  c.threads_per_node = 1;
  c.coroutines_per_thread = 1;
  c.memory_nodes = 1;
  c.memory_node_threads = memory_threads;
  c.memory_node_bytes = 1 << 16;
  SimBackend sim(c);
  RelaxationLog log;
  if (with_log) sim.set_relaxation_log(&log);
  auto outcome = scenario(sim);
  Outcome r;
  r.hash = sim.run().trace_hash;
  r.outcome = outcome();
  for (const RelaxationEvent& e : log.events())
    if (e.relaxation == relaxation) r.events.push_back(e);
  return r;
}

std::string bits(bool a, bool b) { return std::string(a ? "1" : "0") + (b ? "1" : "0"); }

// Writer: [WRITE line 1, WRITE line 0]; reader: one 2-line READ. "10": line 1 before line 0.
Scenario read_line_order() {
  return [](SimBackend& sim) {
    RemoteAddr x = sim.allocate(0, 128);
    auto out = std::make_shared<std::string>();
    sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
      co_await w.sleep(w.rng().below(kSpread));
      static const std::array<uint64_t, 8> one{1, 1, 1, 1, 1, 1, 1, 1};
      Batch b;
      b.write(x + 64, one.data(), 64);
      b.write(x, one.data(), 64);
      EXPECT_TRUE(ok(co_await w.execute(b)));
    });
    sim.spawn(compute(1), [x, out](Worker& w) -> Task<void> {
      co_await w.sleep(w.rng().below(kSpread));
      uint64_t lines[16];
      EXPECT_TRUE(ok(co_await w.read(lines, x, 128)));
      *out = bits(lines[0] == 1, lines[8] == 1);
    });
    return [out] { return *out; };
  };
}

// Writer: one 16-line WRITE; reader: [READ line 0, fenced READ line 15]. "10": a prefix.
Scenario write_prefix() {
  return [](SimBackend& sim) {
    RemoteAddr x = sim.allocate(0, 1024);
    auto out = std::make_shared<std::string>();
    sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
      co_await w.sleep(w.rng().below(kSpread));
      std::vector<uint64_t> all(128, 1);
      EXPECT_TRUE(ok(co_await w.write(x, all.data(), 1024)));
    });
    sim.spawn(compute(1), [x, out](Worker& w) -> Task<void> {
      co_await w.sleep(w.rng().below(kSpread));
      uint64_t a = 0, b = 0;
      Batch reads;
      reads.read(&a, x, 8);
      reads.read(&b, x + 15 * 64, 8).fence = true;
      EXPECT_TRUE(ok(co_await w.execute(reads)));
      *out = bits(a == 1, b == 1);
    });
    return [out] { return *out; };
  };
}

// NIC FAA +1 races a WRITE of 100 (or a CPU FAA +1). Outcome: the final value.
Scenario atomic_vs_store(bool cpu) {
  return [cpu](SimBackend& sim) {
    RemoteAddr x = sim.allocate(0, 8, 8);
    sim.spawn(compute(0), [x, cpu](Worker& w) -> Task<void> {
      co_await w.sleep(w.rng().below(cpu ? kSpread / 2 : kSpread / 4));
      EXPECT_TRUE((co_await w.faa(x, 1)).ok());
    });
    if (cpu) {
      sim.spawn(memory_thread, [x](Worker& w) -> Task<void> {
        co_await w.sleep(1000 + w.rng().below(kSpread / 2));
        EXPECT_TRUE((co_await w.cpu_faa(x, 1)).ok());
      });
    } else {
      sim.spawn(compute(1), [x](Worker& w) -> Task<void> {
        co_await w.sleep(w.rng().below(kSpread / 4));
        uint64_t v = 100;
        EXPECT_TRUE(ok(co_await w.write(x, &v, 8)));
      });
    }
    return [&sim, x] { return std::to_string(sim.host_load(x)); };
  };
}

// A NIC CAS 5 -> 7 on x = 0 (it fails whatever lands first) races a WRITE of
// 100. "0": the failed CAS wrote back the 0 it read over the WRITE.
Scenario failed_cas_vs_write() {
  return [](SimBackend& sim) {
    RemoteAddr x = sim.allocate(0, 8, 8);
    sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
      co_await w.sleep(w.rng().below(kSpread / 4));
      Result<uint64_t> r = co_await w.cas(x, 5, 7);
      EXPECT_TRUE(r.ok() && r.value != 5);
    });
    sim.spawn(compute(1), [x](Worker& w) -> Task<void> {
      co_await w.sleep(w.rng().below(kSpread / 4));
      uint64_t v = 100;
      EXPECT_TRUE(ok(co_await w.write(x, &v, 8)));
    });
    return [&sim, x] { return std::to_string(sim.host_load(x)); };
  };
}

// One queue pair: [READ x, WRITE x := 1]. Outcome: what the READ saw.
Scenario read_then_write() {
  return [](SimBackend& sim) {
    RemoteAddr x = sim.allocate(0, 8, 8);
    auto out = std::make_shared<std::string>();
    sim.spawn(compute(0), [x, out](Worker& w) -> Task<void> {
      uint64_t seen = 0;
      static const uint64_t one = 1;
      Batch b;
      b.read(&seen, x, 8);
      b.write(x, &one, 8);
      EXPECT_TRUE(ok(co_await w.execute(b)));
      *out = std::to_string(seen);
    });
    return [out] { return *out; };
  };
}

// Writer: [x := 1, y := 1]; reader: [READ y, READ x] on one queue pair. "10": reordered.
Scenario reads_unordered() {
  return [](SimBackend& sim) {
    RemoteAddr x = sim.allocate(0, 64), y = sim.allocate(0, 64);
    auto out = std::make_shared<std::string>();
    sim.spawn(compute(0), [x, y](Worker& w) -> Task<void> {
      co_await w.sleep(w.rng().below(kSpread));
      static const uint64_t one = 1;
      Batch b;
      b.write(x, &one, 8);
      b.write(y, &one, 8);
      EXPECT_TRUE(ok(co_await w.execute(b)));
    });
    sim.spawn(compute(1), [x, y, out](Worker& w) -> Task<void> {
      co_await w.sleep(w.rng().below(kSpread));
      uint64_t vy = 0, vx = 0;
      Batch b;
      b.read(&vy, y, 8);
      b.read(&vx, x, 8);
      EXPECT_TRUE(ok(co_await w.execute(b)));
      *out = bits(vy == 1, vx == 1);
    });
    return [out] { return *out; };
  };
}

// Writer: posts WRITE x := v (v = 1) unsignaled, sets v := 2 a random while
// later, then completes it with a READ. Reader, later: READ x. "2": the NIC
// read the source after the change.
Scenario payload_late() {
  return [](SimBackend& sim) {
    RemoteAddr x = sim.allocate(0, 64);
    auto out = std::make_shared<std::string>();
    sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
      uint64_t v = 1, sink = 0;
      Batch b;
      b.write(x, &v, 8);
      EXPECT_TRUE(ok(w.post(b)));
      co_await w.sleep(w.rng().below(kSpread));
      v = 2;
      EXPECT_TRUE(ok(co_await w.read(&sink, x + 8, 8)));
    });
    sim.spawn(compute(1), [x, out](Worker& w) -> Task<void> {
      co_await w.sleep(10 * kSpread);
      uint64_t seen = 0;
      EXPECT_TRUE(ok(co_await w.read(&seen, x, 8)));
      *out = std::to_string(seen);
    });
    return [out] { return *out; };
  };
}

struct Case {
  const char* relaxation;
  Scenario scenario;
  std::string weak;                 // the outcome only the relaxation allows
  std::vector<Placement> affected;  // who the events may name
  uint32_t compute_nodes = 2, memory_threads = 0;
};

std::vector<Case> cases() {
  return {
      {"read_lines_unordered", read_line_order(), "10", {compute(1)}},
      {"write_lines_staggered", write_prefix(), "10", {compute(1)}},
      {"atomic_loses_write", atomic_vs_store(false), "1", {compute(0), compute(1)}},
      {"atomic_loses_cpu", atomic_vs_store(true), "1", {compute(0), memory_thread}, 1, 1},
      {"failed_cas_writes_back", failed_cas_vs_write(), "0", {compute(0), compute(1)}},
      {"read_overtaken", read_then_write(), "1", {compute(0)}, 1},
      {"reads_unordered", reads_unordered(), "10", {compute(1)}},
      {"write_payload_late", payload_late(), "2", {compute(0)}},
  };
}

TEST(RelaxationLog, EachRelaxationIsLoggedUnderSpec) {
  for (const Case& c : cases()) {
    uint64_t with_events = 0, weak = 0;
    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
      Outcome r = run(c.scenario, "spec", seed, c.relaxation, c.compute_nodes, c.memory_threads);
      with_events += !r.events.empty();
      // The weak outcome never appears unexplained.
      if (r.outcome == c.weak) {
        ++weak;
        EXPECT_FALSE(r.events.empty()) << c.relaxation << " seed " << seed;
      }
      for (const RelaxationEvent& e : r.events) {
        EXPECT_LE(e.at, e.until) << e.what;
        EXPECT_FALSE(e.what.empty());
        EXPECT_TRUE(std::any_of(c.affected.begin(), c.affected.end(),
                                [&](const Placement& p) { return same(p, e.who); }))
            << c.relaxation << ": " << e.what;
      }
    }
    EXPECT_GT(with_events, 0u) << c.relaxation;
    EXPECT_GT(weak, 0u) << c.relaxation;
  }
}

TEST(RelaxationLog, NothingIsLoggedUnderSequential) {
  for (const Case& c : cases()) {
    for (uint64_t seed = 1; seed <= kSeeds / 3; ++seed) {
      Outcome r = run(c.scenario, "sequential", seed, c.relaxation, c.compute_nodes, c.memory_threads);
      EXPECT_TRUE(r.events.empty()) << c.relaxation << " seed " << seed << ": " << r.events[0].what;
    }
  }
}

TEST(RelaxationLog, QueuePairReorderingIsNotLoggedUnderConnectx) {
  for (const Case& c : cases()) {
    const std::string name = c.relaxation;
    if (name != "read_overtaken" && name != "reads_unordered") continue;
    for (uint64_t seed = 1; seed <= kSeeds / 3; ++seed)
      EXPECT_TRUE(run(c.scenario, "connectx", seed, c.relaxation, c.compute_nodes, c.memory_threads)
                      .events.empty())
          << name << " seed " << seed;
  }
}

TEST(RelaxationLog, LostStoresNameBothSides) {
  for (size_t i : {2, 3}) {
    const Case c = cases()[i];
    const std::string store = i == 2 ? "its WRITE of 8 B" : "its CPU FAA of 8 B";
    uint64_t lost = 0;
    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
      Outcome r = run(c.scenario, "spec", seed, c.relaxation, c.compute_nodes, c.memory_threads);
      // A lost store is exactly the final value 1: the FAA's result over it.
      EXPECT_EQ(r.outcome == "1", !r.events.empty()) << c.relaxation << " seed " << seed;
      if (r.events.empty()) continue;
      ++lost;
      ASSERT_EQ(r.events.size(), 2u);
      EXPECT_TRUE(same(r.events[0].who, compute(0))) << r.events[0].what;
      EXPECT_EQ(r.events[0].what.rfind("FAA at 0:", 0), 0u) << r.events[0].what;
      EXPECT_TRUE(same(r.events[1].who, c.affected[1])) << r.events[1].what;
      EXPECT_EQ(r.events[1].what.rfind(store, 0), 0u) << r.events[1].what;
      EXPECT_NE(r.events[1].what.find("overwritten by the FAA of compute 0/0/0"), std::string::npos)
          << r.events[1].what;
      EXPECT_LE(r.events[1].at, r.events[0].until);
    }
    EXPECT_GT(lost, 0u) << c.relaxation;
  }
}

TEST(RelaxationLog, LoggingChangesNoTrace) {
  for (const char* profile : {"spec", "connectx", "sequential"}) {
    for (const Case& c : cases()) {
      for (uint64_t seed = 1; seed <= 20; ++seed) {
        Outcome a = run(c.scenario, profile, seed, c.relaxation, c.compute_nodes, c.memory_threads, true);
        Outcome b = run(c.scenario, profile, seed, c.relaxation, c.compute_nodes, c.memory_threads, false);
        EXPECT_EQ(a.hash, b.hash) << profile << " " << c.relaxation << " seed " << seed;
        EXPECT_EQ(a.outcome, b.outcome);
      }
    }
  }
}

TEST(RelaxationLog, BoundedLogDropsAndCounts) {
  RelaxationLog log(3);
  for (Nanos t = 0; t < 10; ++t)
    log.add({t * 100, t * 100 + 50, compute(static_cast<uint32_t>(t % 2)), "reads_unordered", "x", RemoteAddr(), 0});
  EXPECT_EQ(log.events().size(), 3u);
  EXPECT_EQ(log.dropped(), 7u);
  EXPECT_EQ(log.count("reads_unordered"), 3u);
  // Kept: [0,50] by 0, [100,150] by 1, [200,250] by 0.
  EXPECT_EQ(log.overlapping(50, 100).size(), 2u);
  EXPECT_EQ(log.overlapping(151, 199).size(), 0u);
  EXPECT_EQ(log.of(compute(0), 0, 1000).size(), 2u);
  EXPECT_EQ(log.of(compute(1), 0, 99).size(), 0u);
  EXPECT_EQ(log.of(compute(0, 1), 0, 1000).size(), 0u);
}

TEST(RelaxationLog, BusySimulationFillsABoundedLog) {
  ClusterConfig c;
  ASSERT_EQ(c.set_profile("spec"), "");
  c.compute_nodes = 2;
  c.coroutines_per_thread = 2;
  SimBackend sim(c);
  RelaxationLog log(5);
  sim.set_relaxation_log(&log);
  RemoteAddr x = sim.allocate(0, 512);
  sim.spawn_compute([x](Worker& w) -> Task<void> {
    std::vector<std::byte> buf(512);
    for (int i = 0; i < 50; ++i) {
      Batch b;
      b.read(buf.data(), x, 512);
      b.read(buf.data(), x, 256);
      EXPECT_TRUE(ok(co_await w.execute(b)));
      EXPECT_TRUE(ok(co_await w.write(x, buf.data(), 512)));
    }
  });
  sim.run();
  EXPECT_EQ(log.events().size(), 5u);
  EXPECT_GT(log.dropped(), 0u);
}

}  // namespace
}  // namespace lw

namespace lw {
namespace {

// [READ data, WRITE latch] on one queue pair: the unlatch never touches the
// READ's bytes, yet overtaking the READ is what lets a writer in before the
// data is fetched (issue 12: such a READ is logged whatever bytes the later
// request touches, and the event names the READ's own bytes).
TEST(RelaxationLog, AReadOvertakenByARequestOnOtherBytesIsLogged) {
  Scenario unlatch_after_read = [](SimBackend& sim) {
    RemoteAddr data = sim.allocate(0, 256), latch = sim.allocate(0, 8, 8);
    sim.spawn(compute(0), [data, latch](Worker& w) -> Task<void> {
      static std::array<uint64_t, 32> buf{};
      static const uint64_t zero = 0;
      Batch b;
      b.read(buf.data(), data, sizeof buf);
      b.write(latch, &zero, 8);
      EXPECT_TRUE(ok(co_await w.execute(b)));
    });
    return [] { return std::string(); };
  };
  uint64_t logged = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Outcome r = run(unlatch_after_read, "spec", seed, "read_overtaken", 1, 0);
    for (const RelaxationEvent& e : r.events) {
      ++logged;
      EXPECT_EQ(e.length, 256u) << e.what;  // the READ's bytes, not the latch's
      EXPECT_NE(e.what.find("READ of 256 B"), std::string::npos) << e.what;
    }
    EXPECT_TRUE(run(unlatch_after_read, "sequential", seed, "read_overtaken", 1, 0).events.empty());
  }
  EXPECT_GT(logged, 0u);
}

}  // namespace
}  // namespace lw
