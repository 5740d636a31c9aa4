// 6. Two batched READs assumed ordered.
//
// Each worker publishes into its own slot: it WRITEs the data line, then the
// flag line naming the sequence number it just published (one batch: WRITEs
// on one queue pair land in posting order). A consumer READs the flag and the
// data in one batch, flag first, and trusts that data is at least as new as
// the flag says. With reads_unordered the data READ may execute first: it
// sees the old data, the publisher's two WRITEs land, and the flag READ sees
// the new flag.
//
// Expected: {reads_unordered}. (read_overtaken lets later WRITEs and atomics
// pass a READ, not a later READ; both lines are single lines.)
// Twin: the data READ carries the fence flag, so it starts after the flag READ.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// One slot per publisher, 128 B:
//   0               64                                   128
//   +------+--------+------------------------------------+
//   | flag | unused | data: 8 words, the sequence number |
//   +------+--------+------------------------------------+
struct Slot {
  uint64_t flag;
  uint64_t unused[7];
  uint64_t data[8];
};
static_assert(sizeof(Slot) == 2 * kCacheLine && offsetof(Slot, data) == kCacheLine);

template <bool kFence>
struct Publish : Workload {
  RemoteAddr base;
  RemoteAddr at(uint64_t slot) const { return base + slot * sizeof(Slot); }

  void setup(SeedRun& run) override { base = run.backend().allocate(0, run.workers() * sizeof(Slot), 64); }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    uint64_t seq = 0;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      if (w.rng().below(3) == 0) {  // publish: data, then flag
        ++seq;
        uint64_t data[8], flag = seq;
        fill(data, sizeof data, seq);
        Batch b;
        b.write(at(me) + offsetof(Slot, data), data, sizeof data);
        b.write(at(me), &flag, 8);
        (void)co_await w.execute(b);
      } else {  // consume someone's: flag, then data, in one batch
        const uint64_t slot = w.rng().below(run.workers());
        uint64_t flag = 0, data[8];
        Batch b;
        b.read(&flag, at(slot), 8);
        b.read(data, at(slot) + offsetof(Slot, data), sizeof data).fence = kFence;  // the fix
        (void)co_await w.execute(b);
        if (data[0] < flag)
          run.fail("flag-ahead-of-data", "slot " + std::to_string(slot) + ": flag says " +
                                             std::to_string(flag) + " published, data shows " +
                                             std::to_string(data[0]));
      }
      run.op_done(w);
    }
  }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 20};

TEST(CheckBugs, BatchedReadsAssumedOrdered) {
  expect_found(factory<Publish<false>>(), kShape, Expect::needs({"reads_unordered"}),
               {"flag-ahead-of-data"}, "batched-reads-ordered");
}
TEST(CheckBugs, BatchedReadsTwinFence) { expect_clean(factory<Publish<true>>(), kShape, "batched-reads-ordered"); }

}  // namespace
}  // namespace lw::check::bugs
