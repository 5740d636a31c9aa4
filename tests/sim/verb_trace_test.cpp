// The verb trace (verb_trace.h): every request with its times and the value
// it saw, bounded, filtered by address, and without changing the run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/sim/verb_trace.h"

namespace lw {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

ClusterConfig contended_config() {
  ClusterConfig c;
  c.seed = 7;
  c.compute_nodes = 3;
  c.threads_per_node = 2;
  c.coroutines_per_thread = 3;
  return c;
}

struct Traced {
  RunStats stats;
  RemoteAddr x, y;
};

// CAS increments of x; READs and WRITEs of y (its own line), some unsignaled.
Traced contended_run(VerbTrace* trace) {
  SimBackend sim(contended_config());
  Traced t;
  t.x = sim.allocate(0, 8, 8);
  t.y = sim.allocate(0, 64, 64);
  if (trace) sim.set_verb_trace(trace);
  const RemoteAddr x = t.x, y = t.y;
  sim.spawn_compute([=](Worker& w) -> Task<void> {
    for (int i = 0; i < 10; ++i) {
      uint64_t seen = 0;
      for (;;) {
        auto r = co_await w.cas(x, seen, seen + 1);
        if (r.value == seen) break;
        seen = r.value;
      }
      uint64_t v = 0x1000 + seen;
      if (i % 3 == 0) {
        Batch b;
        b.write(y, &v, 8);
        EXPECT_EQ(w.post(b), Status::kOk);
      } else {
        co_await w.write(y, &v, 8, /*fence=*/i % 2 == 0);
      }
      co_await w.read(&v, y, 16);
      co_await w.sleep(w.rng().below(300));
    }
  });
  t.stats = sim.run();
  return t;
}

TEST(VerbTrace, RecordingChangesNoDecision) {
  VerbTrace trace(1 << 20);
  const Traced on = contended_run(&trace);
  const Traced off = contended_run(nullptr);
  EXPECT_EQ(on.stats.trace_hash, off.stats.trace_hash);
  EXPECT_EQ(on.stats.events, off.stats.events);
  EXPECT_EQ(on.stats.elapsed_ns, off.stats.elapsed_ns);
  EXPECT_EQ(trace.records().size(), on.stats.verbs);
  EXPECT_EQ(trace.dropped(), 0u);
}

TEST(VerbTrace, RecordsTimesAndValues) {
  VerbTrace trace(1 << 20);
  const Traced t = contended_run(&trace);
  uint64_t cas_ok = 0, unsignaled = 0, fenced = 0;
  for (const VerbRecord& r : trace.records()) {
    ASSERT_NE(r.completed, VerbRecord::kNever);
    EXPECT_EQ(r.status, Status::kOk);
    EXPECT_LE(r.posted, r.first_access);
    EXPECT_LE(r.first_access, r.last_access);
    EXPECT_LE(r.last_access, r.completed);
    if (r.opcode == Opcode::kCas) {
      EXPECT_EQ(r.remote, t.x);
      EXPECT_EQ(r.length, 8u);
      EXPECT_LT(r.value, 3u * 2 * 3 * 10);
      ++cas_ok;
    } else {
      EXPECT_EQ(r.remote, t.y);
      // Every WRITE and every READ after the first WRITE shows 0x1000 + n.
      if (r.opcode == Opcode::kWrite || r.value != 0) {
        EXPECT_EQ(r.value & ~uint64_t{0xff}, 0x1000u);
      }
    }
    unsignaled += !r.signaled;
    fenced += r.fence;
  }
  EXPECT_GE(cas_ok, 3u * 2 * 3 * 10);
  EXPECT_EQ(unsignaled, 3u * 2 * 3 * 4);  // i = 0, 3, 6, 9
  EXPECT_GT(fenced, 0u);
}

TEST(VerbTrace, FormatFiltersByAddressAndSortsByPostingTime) {
  VerbTrace trace(1 << 20);
  const Traced t = contended_run(&trace);
  const std::string on_x = trace.format(t.x, 8);
  std::istringstream lines(on_x);
  std::string line;
  size_t n = 0;
  Nanos last_posted = 0;
  while (std::getline(lines, line)) {
    ++n;
    ASSERT_EQ(line[0], '@') << line;
    const Nanos posted = std::strtoull(line.c_str() + 1, nullptr, 10);
    EXPECT_GE(posted, last_posted) << line;
    last_posted = posted;
    EXPECT_TRUE(contains(line, "CAS of 8 B at " + t.x.to_string())) << line;
    EXPECT_TRUE(contains(line, "completed ")) << line;
    EXPECT_TRUE(contains(line, " ok, old 0x")) << line;
  }
  size_t cas = 0;
  for (const VerbRecord& r : trace.records()) cas += r.opcode == Opcode::kCas;
  EXPECT_EQ(n, cas);
  // The second word of y's line: the 16-byte READs touch it, the WRITEs don't.
  const std::string second = trace.format(t.y + 8, 8);
  EXPECT_TRUE(contains(second, "READ of 16 B")) << second.substr(0, 400);
  EXPECT_FALSE(contains(second, "WRITE")) << second.substr(0, 400);
  EXPECT_FALSE(contains(second, "CAS")) << second.substr(0, 400);
  // Another node, or bytes = 0 for everything.
  EXPECT_EQ(trace.format(RemoteAddr(1, t.x.offset()), 8), "");
  size_t all = 0;
  for (char c : trace.format({}, 0)) all += c == '\n';
  EXPECT_EQ(all, trace.records().size());
}

TEST(VerbTrace, IsBounded) {
  VerbTrace trace(25);
  const Traced t = contended_run(&trace);
  EXPECT_EQ(trace.records().size(), 25u);
  EXPECT_EQ(trace.dropped(), t.stats.verbs - 25);
  const std::string all = trace.format({}, 0);
  EXPECT_TRUE(contains(all, std::to_string(t.stats.verbs - 25) + " later requests not recorded")) << all;
}

TEST(VerbTrace, RequestsInFlightWhenARunStopsAreRecorded) {
  ClusterConfig c = contended_config();
  c.budget.max_events = 200;
  SimBackend sim(c);
  const RemoteAddr x = sim.allocate(0, 8, 8);
  VerbTrace trace(1 << 16);
  sim.set_verb_trace(&trace);
  sim.spawn_compute([=](Worker& w) -> Task<void> {
    for (int i = 0; i < 100; ++i) co_await w.faa(x, 1);
  });
  const RunStats s = sim.run();
  ASSERT_FALSE(s.budget_exhausted.empty());
  EXPECT_EQ(trace.records().size(), s.verbs);
  size_t in_flight = 0;
  for (const VerbRecord& r : trace.records()) in_flight += r.completed == VerbRecord::kNever;
  EXPECT_GT(in_flight, 0u);
  EXPECT_TRUE(contains(trace.format(x, 8), "in flight when the run stopped"));
}

}  // namespace
}  // namespace lw
