// Spec::shortest_trace: the explorer keeps searching past a violation and
// reports the one nearest the start (a breadth-first pass over the recorded
// state graph), replayable step by step.
#include <gtest/gtest.h>

#include <string>

#include "latchwork/sim/explore.h"

namespace lw {
namespace {

// The number of the last step a trace shows ("[n] worker ...").
uint64_t last_step(const std::vector<std::string>& trace) {
  uint64_t n = 0;
  for (const std::string& l : trace)
    if (l.size() > 1 && l[0] == '[') n = std::stoull(l.substr(1));
  return n;
}

// A broken lock: READ the word, and if it is free WRITE 1 (not atomic).
// Two workers; each first READs a word of its own (a step that only
// lengthens executions). Mutual exclusion is broken in the fewest steps by
// both lock READs before either WRITE: 2 own READs + 2 READs + 2 WRITEs.
explore::Spec broken_lock(int* in_cs, RemoteAddr* lock, RemoteAddr* own) {
  explore::Spec s;
  s.semantics = Semantics::sequential();
  s.workers = {{Placement::Kind::kCompute, 0, 0, 0}, {Placement::Kind::kCompute, 1, 0, 0}};
  s.setup = [=](Backend& b) {
    *lock = b.allocate(0, 64);
    *own = b.allocate(0, 128);
    *in_cs = 0;
  };
  s.program = [=](Worker& w, uint32_t i) -> Task<void> {
    uint64_t v = 0;
    (void)co_await w.read(&v, *own + i * 64, 8);
    for (int tries = 0; tries < 1000; ++tries) {
      (void)co_await w.read(&v, *lock, 8);
      if (v == 0) break;
    }
    const uint64_t one = 1, zero = 0;
    (void)co_await w.write(*lock, &one, 8);
    ++*in_cs;
    co_await w.sleep(0);
    --*in_cs;
    (void)co_await w.write(*lock, &zero, 8);
  };
  s.invariant = [=] { return *in_cs > 1 ? std::string("mutual exclusion") : std::string(); };
  s.ghost_hash = [=] { return static_cast<uint64_t>(*in_cs); };
  return s;
}

TEST(ExploreShortest, ReportsTheViolationNearestTheStart) {
  int in_cs = 0;
  RemoteAddr lock, own;
  explore::Spec s = broken_lock(&in_cs, &lock, &own);
  const explore::Result first = explore::run(s);
  ASSERT_EQ(first.violation, "invariant: mutual exclusion");
  s.shortest_trace = true;
  const explore::Result shortest = explore::run(s);
  ASSERT_EQ(shortest.violation, "invariant: mutual exclusion");
  EXPECT_GT(shortest.violating_states, 0u);
  EXPECT_FALSE(shortest.complete);
  EXPECT_EQ(last_step(shortest.trace), 6u);
  EXPECT_LE(last_step(shortest.trace), last_step(first.trace));
  // The same search twice: the same state count and trace.
  const explore::Result again = explore::run(s);
  EXPECT_EQ(again.states, shortest.states);
  EXPECT_EQ(again.trace, shortest.trace);
}

TEST(ExploreShortest, ACorrectProgramIsStillProved) {
  int in_cs = 0;
  RemoteAddr lock, own;
  explore::Spec s = broken_lock(&in_cs, &lock, &own);
  s.workers.pop_back();  // alone, the broken lock is never contended
  s.shortest_trace = true;
  const explore::Result r = explore::run(s);
  EXPECT_EQ(r.violation, "");
  EXPECT_TRUE(r.complete) << r.bound;
  EXPECT_EQ(r.violating_states, 0u);
  EXPECT_GT(r.terminal_states, 0u);
}

}  // namespace
}  // namespace lw
