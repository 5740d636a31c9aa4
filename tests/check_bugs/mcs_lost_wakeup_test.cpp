// 9. An MCS lock's lost wake-up.
//
// Each worker has a queue node {locked, next} in remote memory; the lock is
// the tail word. Acquire: reset my node, swap myself into the tail (READ +
// CAS loop: RDMA has no swap), link into my predecessor's `next`, spin on my
// `locked`. Release: READ my `next`; if none, CAS(tail, me -> 0). The bug:
// when that CAS fails -- a successor swapped itself in after I read `next`
// and has not linked yet -- release returns anyway. The successor links into
// a node nobody looks at again and spins forever; everyone queued behind it
// too. The driver's watchdog reports the hang.
//
// Expected: a protocol bug (the successor's CAS lands between my READ of
// `next` and my CAS under `sequential` too). Ablation agrees: no relaxation
// is needed; with the swarm bounded by `sequential`, 999 of 1000 seeds hang.
// Workers think between operations: with the lock always contended every
// holder finds its successor linked and the window never opens.
// Twin: when the CAS fails, wait until the successor has linked, then wake it.
#include "mcs_layout.h"

namespace lw::check::bugs {
namespace {

template <bool kWaitForLink>
struct Mcs : Workload, McsLayout {
  void setup(SeedRun& run) override { allocate(run); }

  Task<void> acquire(Worker& w, uint64_t me) {
    const QNode fresh{1, 0, {}};
    (void)co_await w.write(node(me), &fresh, 16);
    uint64_t prev = 0;
    (void)co_await w.read(&prev, tail, 8);
    for (;;) {  // swap me into the tail
      const uint64_t seen = value_of(co_await w.cas(tail, prev, me));
      if (seen == prev) break;
      prev = seen;
    }
    if (prev == 0) co_return;  // the lock was free
    (void)co_await w.write(node(prev) + offsetof(QNode, next), &me, 8);
    (void)co_await spin(w, node(me), [](uint64_t locked) { return locked == 0; });
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint64_t me = run.worker_index(w) + 1;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const Nanos start = w.now();
      co_await acquire(w, me);
      const Nanos held = w.now();
      uint64_t v = 0;
      (void)co_await w.read(&v, counter, 8);
      ++v;
      (void)co_await w.write(counter, &v, 8);
      run.holds().exclusive(0, held, w.now(), w.placement());
      co_await release(w, me, kWaitForLink);
      run.counters().add(0, 1, start, w.now(), w.placement());
      run.op_done(w);
      co_await w.sleep(w.rng().below(30'000));  // work outside the lock
    }
  }

  void check(SeedRun& run) override { run.counters().final_value(0, run.backend().host_load(counter)); }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 3, .coroutines_per_thread = 1,
                   .memory_node_threads = 0, .ops_per_worker = 10};

TEST(CheckBugs, McsLostWakeup) {
  expect_found(factory<Mcs<false>>(), kShape, Expect::protocol(), {"hang", "deadlock"}, "mcs-lost-wakeup");
}
TEST(CheckBugs, McsTwinWaitsForLink) { expect_clean(factory<Mcs<true>>(), kShape, "mcs-lost-wakeup"); }

}  // namespace
}  // namespace lw::check::bugs
