// 12. An unlatch overtaking an unfenced READ.
//
// A reader latches the record, then posts the data READ and the unlatch
// WRITE(0) together in one batch to save a round trip: "the unlatch is
// posted after the READ, so it executes after it". With read_overtaken it
// may execute first: a writer takes the latch and rewrites the record's two
// lines (one WRITE each, so a tear needs no line relaxation) while the READ
// has not fetched them yet, and the reader returns half of each.
//
// Expected: {read_overtaken}. (reads_unordered also delays READs, but lets
// only READs pass each other; writes stay behind the READ.)
// Twin: the unlatch WRITE carries the fence flag.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// One record, 192 B:
//   0       8                64               128              192
//   +-------+----------------+----------------+----------------+
//   | latch | (unused)       | data line 0    | data line 1    |
//   +-------+----------------+----------------+----------------+
struct Record {
  uint64_t latch;  // 0 = free, else holder id
  uint64_t unused[7];
  uint64_t data[2][8];
};
static_assert(sizeof(Record) == 192 && offsetof(Record, data) == kCacheLine);

template <bool kFence>
struct Latched : Workload {
  static constexpr uint32_t kKeys = 2;
  RemoteAddr base;
  RemoteAddr at(uint64_t key) const { return base + key * sizeof(Record); }

  void setup(SeedRun& run) override { base = run.backend().allocate(0, kKeys * sizeof(Record), 64); }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint64_t me = run.worker_index(w) + 1;
    const uint64_t zero = 0;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const uint64_t key = w.rng().below(kKeys);
      const RemoteAddr data = at(key) + offsetof(Record, data);
      const Nanos start = w.now();
      if (!co_await lock(w, at(key), me)) {
        run.gave_up(w, "lock");
        continue;
      }
      if (w.rng().below(2) == 0) {  // read: data and unlatch in one batch
        uint64_t copy[16];
        Batch b;
        b.read(copy, data, sizeof copy);
        b.write(at(key), &zero, 8).fence = kFence;  // the fix
        (void)co_await w.execute(b);
        record_read(run, w, key, start, copy, sizeof copy);
      } else {  // write both lines, then unlatch
        uint64_t line[8];
        fill(line, sizeof line, unique_value(me - 1, i));
        (void)co_await w.write(data, line, 64);
        (void)co_await w.write(data + 64, line, 64);
        (void)co_await w.write(at(key), &zero, 8);
        record_write(run, w, key, start, unique_value(me - 1, i));
      }
      run.op_done(w);
    }
  }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 20};

TEST(CheckBugs, UnlatchOvertakesUnfencedRead) {
  expect_found(factory<Latched<false>>(), kShape, Expect::needs({"read_overtaken"}), {"torn-read"},
               "unfenced-unlatch");
}
TEST(CheckBugs, UnlatchTwinFenced) { expect_clean(factory<Latched<true>>(), kShape, "unfenced-unlatch"); }

// Exhaustive at a small shape: 2 workers x 2 operations, program seeds 1..4.
const Shape kSmall{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 1,
                   .memory_node_threads = 0, .ops_per_worker = 2};

TEST(CheckBugsExhaustive, UnlatchOvertakesUnfencedRead) {
  expect_violated(factory<Latched<false>>(), kSmall, 4, {"torn-read"}, "unfenced-unlatch");
}
TEST(CheckBugsExhaustive, UnlatchTwinFenced) { expect_proved(factory<Latched<true>>(), kSmall, 4, "unfenced-unlatch"); }

}  // namespace
}  // namespace lw::check::bugs
