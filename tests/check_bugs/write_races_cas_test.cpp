// 5. A WRITE racing a CAS on the same word.
//
// An exclusive latch word holds its holder's id; a waiter whose CAS(0 -> me)
// failed, seeing `seen`, marks the latch contended with
// CAS(seen -> seen | kContended), so the holder learns that someone waits. The holder releases
// with a plain WRITE(0): one verb, nothing to check. Under `sequential` the
// WRITE lands before the waiter's CAS (which then fails) or after it (and
// clears the mark with the rest). But the waiter's CAS reads the word, and
// writes back later: a WRITE(0) landing in between is lost, the word says
// "holder | contended" after the holder left, and nobody gets the latch again.
//
// Expected: {atomic_loses_write} (the CAS's window also exists with only
// atomic_loses_cpu on, but then the WRITE is not lost).
// Twin: release by CAS(me -> 0), and if a waiter marked it meanwhile,
// CAS(me | kContended -> 0): atomics on one word never overlap.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// The latch word (8 B):
//   bit 63       62                32 31                    0
//   +-----------+--------------------+-----------------------+
//   | contended | (zero)             | holder id (0 = free)  |
//   +-----------+--------------------+-----------------------+
// and the counter it protects in the next line.
constexpr uint64_t kContended = uint64_t{1} << 63;
struct Guarded {
  uint64_t latch;
  uint64_t unused[7];
  uint64_t counter;
};
static_assert(offsetof(Guarded, counter) == kCacheLine);

template <bool kCasRelease>
struct ContendedLatch : Workload {
  static constexpr uint32_t kAttempts = 400;
  RemoteAddr base;
  uint64_t contended_releases = 0;  // what the mark is for: the latch's heat

  void setup(SeedRun& run) override { base = run.backend().allocate(0, sizeof(Guarded), 64); }

  Task<bool> lock(Worker& w, uint64_t me) {
    for (uint32_t i = 0; i < kAttempts; ++i) {
      const uint64_t seen = value_of(co_await w.cas(base, 0, me));
      if (seen == 0) co_return true;
      (void)co_await w.cas(base, seen, seen | kContended);  // mark it (again: cheaper than asking)
      co_await w.sleep(100 + w.rng().below(400));
    }
    co_return false;
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint64_t me = run.worker_index(w) + 1;
    const RemoteAddr counter = base + offsetof(Guarded, counter);
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const Nanos start = w.now();
      if (!co_await lock(w, me)) {
        run.gave_up(w, "lock");
        continue;
      }
      const Nanos held = w.now();
      uint64_t v = 0;
      (void)co_await w.read(&v, counter, 8);
      ++v;
      (void)co_await w.write(counter, &v, 8);
      run.holds().exclusive(0, held, w.now(), w.placement());
      if (kCasRelease) {
        const uint64_t seen = value_of(co_await w.cas(base, me, 0));  // the fix
        if (seen != me) {
          ++contended_releases;
          (void)co_await w.cas(base, me | kContended, 0);
        }
      } else {
        const uint64_t zero = 0;  // the bug
        (void)co_await w.write(base, &zero, 8);
      }
      run.counters().add(0, 1, start, w.now(), w.placement());
      run.op_done(w);
    }
  }

  void check(SeedRun& run) override { run.counters().final_value(0, run.backend().host_load(base + 64)); }

  std::string still_held(SeedRun& run) override {
    const uint64_t word = run.backend().host_load(base);
    if (word == 0) return {};
    return "latch " + base.to_string() + " still names holder " + std::to_string(word & 0xffffffff) +
           ((word & kContended) ? " (contended)" : "");
  }
};

const Shape kShape{.compute_nodes = 2, .threads_per_node = 1, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 15};

TEST(CheckBugs, WriteRacesCas) {
  expect_found(factory<ContendedLatch<false>>(), kShape, Expect::needs({"atomic_loses_write"}),
               {"stuck-latch"}, "write-races-cas");
}
TEST(CheckBugs, WriteRacesCasTwinCasRelease) {
  expect_clean(factory<ContendedLatch<true>>(), kShape, "write-races-cas");
}

// Exhaustive at a small shape: 2 workers x 2 operations, program seeds 1..4.
const Shape kSmall{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 1,
                   .memory_node_threads = 0, .ops_per_worker = 2};

TEST(CheckBugsExhaustive, WriteRacesCas) {
  expect_violated(factory<ContendedLatch<false>>(), kSmall, 4, {"stuck", "stuck-latch"}, "write-races-cas");
}
TEST(CheckBugsExhaustive, WriteRacesCasTwinCasRelease) { expect_proved(factory<ContendedLatch<true>>(), kSmall, 4, "write-races-cas"); }

}  // namespace
}  // namespace lw::check::bugs
