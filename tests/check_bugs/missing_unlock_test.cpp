// 8. A missing unlock on an error path.
//
// A fixed-capacity bucket (4 slots) behind an exclusive latch. insert()
// latches, READs the bucket, and when it is full returns kFull -- without
// releasing the latch. Every later insert into that bucket spins until it
// gives up; the latch word still names the worker that returned kFull.
//
// Expected: a protocol bug (a stuck latch under `sequential`).
// Twin: release the latch on the kFull path too.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// A bucket is one line:
//   0       8       16                          48       64
//   +-------+-------+---------------------------+--------+
//   | latch | count | slots: 4 keys             | unused |
//   +-------+-------+---------------------------+--------+
struct Bucket {
  uint64_t latch;  // 0 = free, else holder id
  uint64_t count;
  uint64_t slot[4];
  uint64_t unused[2];
};
static_assert(sizeof(Bucket) == kCacheLine);

enum class Insert { kOk, kFull, kGaveUp };

template <bool kUnlockWhenFull>
struct Buckets : Workload {
  static constexpr uint32_t kBuckets = 2;
  RemoteAddr base;
  RemoteAddr at(uint64_t b) const { return base + b * sizeof(Bucket); }

  void setup(SeedRun& run) override { base = run.backend().allocate(0, kBuckets * sizeof(Bucket), 64); }

  Task<Insert> insert(Worker& w, uint64_t me, uint64_t key) {
    const RemoteAddr b = at(key % kBuckets);
    if (!co_await lock(w, b, me, 200)) co_return Insert::kGaveUp;
    Bucket bucket;
    (void)co_await w.read(&bucket, b, sizeof bucket);
    const uint64_t zero = 0;
    if (bucket.count == 4) {
      if (kUnlockWhenFull) (void)co_await w.write(b, &zero, 8);  // the fix
      co_return Insert::kFull;
    }
    bucket.slot[bucket.count++] = key;
    (void)co_await w.write(b + 8, &bucket.count, 40);  // count and slots
    (void)co_await w.write(b, &zero, 8);               // unlatch
    co_return Insert::kOk;
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint64_t me = run.worker_index(w) + 1;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      if (co_await insert(w, me, unique_value(me, i)) == Insert::kGaveUp) {
        run.gave_up(w, "insert: the bucket latch was never free");
        continue;
      }
      run.op_done(w);
    }
  }

  std::string still_held(SeedRun& run) override {
    for (uint64_t b = 0; b < kBuckets; ++b)
      if (const uint64_t holder = run.backend().host_load(at(b)); holder != 0)
        return "bucket " + std::to_string(b) + "'s latch still names worker " + std::to_string(holder - 1);
    return {};
  }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 6};

TEST(CheckBugs, MissingUnlockOnFullPath) {
  expect_found(factory<Buckets<false>>(), kShape, Expect::protocol(), {"stuck-latch"}, "missing-unlock");
}
TEST(CheckBugs, MissingUnlockTwinUnlocksWhenFull) {
  expect_clean(factory<Buckets<true>>(), kShape, "missing-unlock");
}

}  // namespace
}  // namespace lw::check::bugs
