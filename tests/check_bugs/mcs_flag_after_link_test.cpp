// 13. An MCS waiter that sets its flag after linking itself (a timing race).
//
// The lock of program 9 with a correct release (it waits for a successor
// that has swapped itself in but not linked yet). The bug is in acquire: a
// waiter WRITEs itself into its predecessor's `next` and only then WRITEs
// its own `locked` = 1. A predecessor releasing in between READs the fresh
// `next` and WRITEs `locked` = 0 -- and the waiter's late `locked` = 1 lands
// on top of the hand-over. It spins forever; the watchdog reports the hang.
//
// Expected: a timing-dependent protocol race. No relaxation is needed, but
// the predecessor's READ and WRITE take as long as the waiter's two WRITEs,
// so they fit in between only when message delays vary: under `sequential`
// it never hangs without jitter (0 of 300 seeds) and does with the swarm's
// jitter (18 of 300 at 5 us) or wider (32 of 300 at 100 us).
// Twin: reset the node (locked = 1, next = 0) before swapping into the tail.
#include "mcs_layout.h"

namespace lw::check::bugs {
namespace {

template <bool kFlagFirst>
struct Mcs : Workload, McsLayout {
  void setup(SeedRun& run) override { allocate(run); }

  Task<void> acquire(Worker& w, uint64_t me) {
    const QNode fresh{1, 0, {}};
    const uint64_t none = 0, locked = 1;
    if (kFlagFirst) {
      (void)co_await w.write(node(me), &fresh, 16);
    } else {
      (void)co_await w.write(node(me) + offsetof(QNode, next), &none, 8);
    }
    uint64_t prev = 0;
    (void)co_await w.read(&prev, tail, 8);
    for (;;) {  // swap me into the tail
      const uint64_t seen = value_of(co_await w.cas(tail, prev, me));
      if (seen == prev) break;
      prev = seen;
    }
    if (prev == 0) co_return;  // the lock was free
    (void)co_await w.write(node(prev) + offsetof(QNode, next), &me, 8);
    if (!kFlagFirst) (void)co_await w.write(node(me) + offsetof(QNode, locked), &locked, 8);  // the bug: too late
    (void)co_await spin(w, node(me), [](uint64_t l) { return l == 0; });
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint64_t me = run.worker_index(w) + 1;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const Nanos start = w.now();
      co_await acquire(w, me);
      uint64_t v = 0;
      (void)co_await w.read(&v, counter, 8);
      ++v;
      (void)co_await w.write(counter, &v, 8);
      co_await release(w, me, true);
      run.counters().add(0, 1, start, w.now(), w.placement());
      run.op_done(w);
    }
  }

  void check(SeedRun& run) override { run.counters().final_value(0, run.backend().host_load(counter)); }
};

const Shape kShape{.compute_nodes = 2, .threads_per_node = 2, .coroutines_per_thread = 1,
                   .memory_node_threads = 0, .ops_per_worker = 20};

TEST(CheckBugs, McsFlagAfterLink) {
  expect_found(factory<Mcs<false>>(), kShape, Expect::race(), {"hang", "deadlock"}, "mcs-flag-after-link");
}
TEST(CheckBugs, McsTwinFlagFirst) { expect_clean(factory<Mcs<true>>(), kShape, "mcs-flag-after-link"); }

}  // namespace
}  // namespace lw::check::bugs
