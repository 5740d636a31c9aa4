// 3. A seqlock without the odd mark.
//
// Each worker owns one record and updates its two data lines in place, one
// WRITE each, then bumps the version by 2. Readers READ the version, the
// data, the version again, and accept when the two versions agree. While the
// data is being rewritten the version still shows the old, even value, so a
// reader whose data READ falls between the two line WRITEs sees them mixed
// with the same version on both sides.
//
// Expected: a protocol bug. The two WRITEs are a round trip apart, so the
// interleaving needs no relaxation and happens under `sequential`.
// Twin: the writer first WRITEs version + 1 (odd: "being written"), then the
// data, then version + 2; readers retry on an odd version.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// One record, 192 B:
//   0         8                 64               128              192
//   +---------+-----------------+----------------+----------------+
//   | version | (unused)        | data line 0    | data line 1    |
//   +---------+-----------------+----------------+----------------+
struct Record {
  uint64_t version;
  uint64_t unused[7];
  uint64_t data[2][8];
};
static_assert(sizeof(Record) == 192 && offsetof(Record, data) == kCacheLine);

template <bool kOddMark>
struct Seqlock : Workload {
  RemoteAddr base;
  RemoteAddr at(uint64_t key) const { return base + key * sizeof(Record); }

  void setup(SeedRun& run) override { base = run.backend().allocate(0, run.workers() * sizeof(Record), 64); }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    uint64_t version = 0;  // my record's, kept locally: I am its only writer
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const Nanos start = w.now();
      if (w.rng().below(3) == 0) {  // update my record
        if (kOddMark) {
          const uint64_t odd = version + 1;  // the fix
          (void)co_await w.write(at(me), &odd, 8);
        }
        uint64_t line[8];
        fill(line, sizeof line, unique_value(me, i));
        (void)co_await w.write(at(me) + offsetof(Record, data), line, 64);
        (void)co_await w.write(at(me) + offsetof(Record, data) + 64, line, 64);
        version += 2;
        (void)co_await w.write(at(me), &version, 8);
        record_write(run, w, me, start, unique_value(me, i));
      } else {  // read anyone's
        const uint64_t key = w.rng().below(run.workers());
        uint64_t v1 = 0, v2 = 0, data[16];
        do {
          (void)co_await w.read(&v1, at(key), 8);
          if (v1 % 2 == 1) continue;
          (void)co_await w.read(data, at(key) + offsetof(Record, data), sizeof data);
          (void)co_await w.read(&v2, at(key), 8);
        } while (v1 % 2 == 1 || v1 != v2);
        record_read(run, w, key, start, data, sizeof data);
      }
      run.op_done(w);
    }
  }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 20};

TEST(CheckBugs, SeqlockWithoutOddMark) {
  expect_found(factory<Seqlock<false>>(), kShape, Expect::protocol(), {"torn-read"},
               "seqlock-no-odd-mark");
}
TEST(CheckBugs, SeqlockTwinOddMark) { expect_clean(factory<Seqlock<true>>(), kShape, "seqlock-no-odd-mark"); }

// Exhaustive at a small shape: 2 workers x 2 operations, program seeds 1..4.
const Shape kSmall{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 1,
                   .memory_node_threads = 0, .ops_per_worker = 2};

TEST(CheckBugsExhaustive, SeqlockWithoutOddMark) {
  expect_violated(factory<Seqlock<false>>(), kSmall, 4, {"torn-read"}, "seqlock-no-odd-mark");
}
TEST(CheckBugsExhaustive, SeqlockTwinOddMark) { expect_proved(factory<Seqlock<true>>(), kSmall, 4, "seqlock-no-odd-mark"); }

}  // namespace
}  // namespace lw::check::bugs
