// 4. A shared-exclusive latch whose writer unlatches by WRITE, next to
//    readers counting themselves in with FAA.
//
// Readers FAA(+1) the low half (their count); if the writer half is set they
// FAA(-1) and retry. A writer CASes the whole word from 0 (no readers) to
// its flag and, to release, WRITEs 0 over just its own 4-byte half: "a WRITE
// of the writer half cannot touch the reader count". Between the two FAAs of
// a backing-out reader that is true, in any order, so the protocol is fine
// under `sequential`. But a NIC FAA reads the word and writes it back later:
// the writer's WRITE landing in between is lost, the FAA writes back the old
// writer flag, and the latch stays write-locked with no writer (stuck-latch).
//
// Expected: {atomic_loses_write}. (A WRITE(0) of the whole word would erase
// the count of a reader between its FAAs even under `sequential`: that
// variant is a protocol bug, so the unlatch here writes only its own half.)
// Twin: unlatch with an FAA that subtracts the writer flag (atomic, so no
// atomic overwrites it).
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// The latch word (8 B, little endian) and the data it protects, one line each:
//   byte 0          4            8               64               128
//   +---------------+------------+---------------+----------------+
//   | readers (u32) | writer u32 | (unused)      | data: 8 words  |
//   +---------------+------------+---------------+----------------+
struct Protected {
  uint32_t readers;
  uint32_t writer;
  uint64_t unused[7];
  uint64_t data[8];
};
static_assert(sizeof(Protected) == 2 * kCacheLine && offsetof(Protected, writer) == 4);
constexpr uint64_t kWriter = uint64_t{1} << 32;  // the writer half's flag in the word

template <bool kFaaUnlatch>
struct RwLatch : Workload {
  static constexpr uint32_t kAttempts = 300;
  RemoteAddr base;

  void setup(SeedRun& run) override { base = run.backend().allocate(0, sizeof(Protected), 64); }

  Task<bool> lock_shared(Worker& w) {
    for (uint32_t i = 0; i < kAttempts; ++i) {
      if ((value_of(co_await w.faa(base, 1)) & ~uint64_t{0xffffffff}) == 0) co_return true;
      (void)co_await w.faa(base, ~uint64_t{0});  // -1: back out
      co_await w.sleep(200 + w.rng().below(800));
    }
    co_return false;
  }
  Task<bool> lock_exclusive(Worker& w) {
    for (uint32_t i = 0; i < kAttempts; ++i) {
      if (value_of(co_await w.cas(base, 0, kWriter)) == 0) co_return true;
      co_await w.sleep(200 + w.rng().below(800));
    }
    co_return false;
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    uint64_t data[8];
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const Nanos start = w.now();
      if (w.rng().below(2) == 0) {
        if (!co_await lock_shared(w)) {
          run.gave_up(w, "lock_shared");
          continue;
        }
        const Nanos held = w.now();
        (void)co_await w.read(data, base + offsetof(Protected, data), sizeof data);
        run.holds().shared(0, held, w.now(), w.placement());
        (void)co_await w.faa(base, ~uint64_t{0});
        record_read(run, w, 0, start, data, sizeof data);
      } else {
        if (!co_await lock_exclusive(w)) {
          run.gave_up(w, "lock_exclusive");
          continue;
        }
        const Nanos held = w.now();
        fill(data, sizeof data, unique_value(me, i));
        (void)co_await w.write(base + offsetof(Protected, data), data, sizeof data);
        run.holds().exclusive(0, held, w.now(), w.placement());
        if (kFaaUnlatch) {
          (void)co_await w.faa(base, ~kWriter + 1);  // the fix: -kWriter, atomically
        } else {
          const uint32_t zero = 0;  // the bug: clear my half by WRITE
          (void)co_await w.write(base + offsetof(Protected, writer), &zero, 4);
        }
        record_write(run, w, 0, start, unique_value(me, i));
      }
      run.op_done(w);
    }
  }

  std::string still_held(SeedRun& run) override {
    const uint64_t word = run.backend().host_load(base);
    if (word == 0) return {};
    return "latch word " + base.to_string() + " = " + std::to_string(word >> 32) + " writer, " +
           std::to_string(word & 0xffffffff) + " readers after every worker ended";
  }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 15};

TEST(CheckBugs, WriteUnlatchBesideFaaReaders) {
  expect_found(factory<RwLatch<false>>(), kShape, Expect::needs({"atomic_loses_write"}),
               {"stuck-latch"}, "write-unlatch-faa-readers");
}
TEST(CheckBugs, WriteUnlatchBesideFaaReadersTwinFaaUnlatch) {
  expect_clean(factory<RwLatch<true>>(), kShape, "write-unlatch-faa-readers");
}

}  // namespace
}  // namespace lw::check::bugs
