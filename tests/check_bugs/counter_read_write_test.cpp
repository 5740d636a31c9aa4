// 10. A counter incremented by READ plus WRITE.
//
// Every worker counts its operations into one shared word: READ it, add one,
// WRITE it back. Two workers that READ the same value both WRITE value + 1:
// an increment is lost, and the final value is below the number of
// increments that completed (CounterModel: lost-update).
//
// Expected: a protocol bug (the READ-WRITE window is a round trip wide under
// `sequential` too).
// Twin: FAA(+1), one atomic verb.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// One 8-byte counter in a line of its own:
//   0         8                                      64
//   +---------+--------------------------------------+
//   | counter | (unused)                             |
//   +---------+--------------------------------------+
struct CounterLine {
  uint64_t value;
  uint64_t unused[7];
};
static_assert(sizeof(CounterLine) == kCacheLine);

template <bool kFaa>
struct Counter : Workload {
  RemoteAddr word;

  void setup(SeedRun& run) override { word = run.backend().allocate(0, sizeof(CounterLine), 64); }

  Task<void> run(SeedRun& run, Worker& w) override {
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const Nanos start = w.now();
      if (kFaa) {
        (void)co_await w.faa(word, 1);  // the fix
      } else {
        uint64_t v = 0;  // the bug
        (void)co_await w.read(&v, word, 8);
        ++v;
        (void)co_await w.write(word, &v, 8);
      }
      run.counters().add(0, 1, start, w.now(), w.placement());
      run.op_done(w);
    }
  }

  void check(SeedRun& run) override { run.counters().final_value(0, run.backend().host_load(word)); }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 10};

TEST(CheckBugs, CounterByReadPlusWrite) {
  expect_found(factory<Counter<false>>(), kShape, Expect::protocol(), {"lost-update"}, "counter-read-write");
}
TEST(CheckBugs, CounterTwinFaa) { expect_clean(factory<Counter<true>>(), kShape, "counter-read-write"); }

// Exhaustive at a small shape: 2 workers x 2 operations, program seeds 1..4.
const Shape kSmall{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 1,
                   .memory_node_threads = 0, .ops_per_worker = 2};

TEST(CheckBugsExhaustive, CounterByReadPlusWrite) {
  expect_violated(factory<Counter<false>>(), kSmall, 4, {"lost-update"}, "counter-read-write");
}
TEST(CheckBugsExhaustive, CounterTwinFaa) { expect_proved(factory<Counter<true>>(), kSmall, 4, "counter-read-write"); }

}  // namespace
}  // namespace lw::check::bugs
