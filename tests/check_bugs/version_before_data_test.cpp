// 1. Validating the version before the data READ.
//
// An optimistic reader READs the record's version, waits until it is even
// (no writer), then READs the data -- the head line, then the tail line, as
// it parses the value -- and trusts it: it never looks at the version again.
// A writer that latches the record just after the version READ lands its
// one two-line WRITE between the reader's two data READs.
//
// Expected: a protocol bug. Nothing about RDMA is needed: every verb acts at
// one instant under `sequential` and the interleaving is still there (the
// writer's latch needs only to fall in the round trip after the version READ).
// Twin: READ the version again after the data and retry unless it is unchanged.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// One record, 192 B:
//   0         8                 64                               192
//   +---------+-----------------+--------------------------------+
//   | version | (unused)        | data: head line, tail line     |
//   +---------+-----------------+--------------------------------+
//   version: even = free, odd = a writer holds the record.
struct Record {
  uint64_t version;
  uint64_t unused[7];
  uint64_t data[16];
};
static_assert(sizeof(Record) == 192);
static_assert(offsetof(Record, data) == kCacheLine);

template <bool kRecheck>
struct VersionedRecords : Workload {
  static constexpr uint32_t kKeys = 2;
  RemoteAddr base;
  RemoteAddr at(uint64_t key) const { return base + key * sizeof(Record); }

  void setup(SeedRun& run) override { base = run.backend().allocate(0, kKeys * sizeof(Record), 64); }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const uint64_t key = w.rng().below(kKeys);
      const Nanos start = w.now();
      if (w.rng().below(2) == 0) {  // read
        uint64_t data[16];
        for (;;) {
          uint64_t v1 = 1;
          while (v1 % 2 == 1) (void)co_await w.read(&v1, at(key), 8);
          (void)co_await w.read(data, at(key) + 64, 64);       // head line
          (void)co_await w.read(data + 8, at(key) + 128, 64);  // tail line
          if (!kRecheck) break;  // the bug: the data is trusted as it came
          uint64_t v2 = 0;       // the fix: validate after the data, too
          (void)co_await w.read(&v2, at(key), 8);
          if (v2 == v1) break;
        }
        record_read(run, w, key, start, data, sizeof data);
      } else {  // write: latch by CAS on an even version, one WRITE of the data
        uint64_t v = 1;
        for (;;) {
          (void)co_await w.read(&v, at(key), 8);
          if (v % 2 == 0 && value_of(co_await w.cas(at(key), v, v + 1)) == v) break;
          co_await w.sleep(300 + w.rng().below(300));
        }
        uint64_t data[16];
        fill(data, sizeof data, unique_value(me, i));
        (void)co_await w.write(at(key) + offsetof(Record, data), data, sizeof data);
        const uint64_t next = v + 2;
        (void)co_await w.write(at(key), &next, 8);  // unlatch: the new even version
        record_write(run, w, key, start, unique_value(me, i));
      }
      run.op_done(w);
    }
  }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 20};

TEST(CheckBugs, VersionBeforeData) {
  expect_found(factory<VersionedRecords<false>>(), kShape, Expect::protocol(), {"torn-read"},
               "version-before-data");
}
TEST(CheckBugs, VersionBeforeDataTwinRechecks) {
  expect_clean(factory<VersionedRecords<true>>(), kShape, "version-before-data");
}

// Exhaustive at a small shape: 2 workers x 2 operations, program seeds 1..4.
const Shape kSmall{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 1,
                   .memory_node_threads = 0, .ops_per_worker = 2};

TEST(CheckBugsExhaustive, VersionBeforeData) {
  expect_violated(factory<VersionedRecords<false>>(), kSmall, 4, {"torn-read"}, "version-before-data");
}
TEST(CheckBugsExhaustive, VersionBeforeDataTwinRechecks) { expect_proved(factory<VersionedRecords<true>>(), kSmall, 4, "version-before-data"); }

}  // namespace
}  // namespace lw::check::bugs
