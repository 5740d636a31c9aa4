// 14. ABA on a remote Treiber free list (a timing race).
//
// Nodes of a remote pool sit on a free list whose head word names the first
// free node (id, 0 = empty); a node's `next` names the one after it. Pop:
// READ the head (X), READ X's next (Y), check X (a short local step),
// CAS(head, X -> Y). Push: READ the
// head, WRITE it into the node's next, CAS(head, old -> node). Each worker
// pops two nodes, uses them, and pushes them back. The bug: the head holds
// the id alone. While a pop is between its READ of X's next and its CAS,
// others may pop X, pop Y and push X back: the head is X again, the CAS
// succeeds, and the head becomes Y -- a node someone holds. Two workers then
// own one node ("double-allocation", told by the workload's own book of who
// holds what, kept host-side: the simulator runs on one OS thread).
//
// Expected: a timing-dependent protocol race -- no relaxation is needed, but
// the others' three operations must fit between the READs and the CAS of one
// pop. Under the swarm it is first found at seed 284, whose plan's READ lag
// (reads_unordered, spread 30 us) delays answers on the pops' queue pairs
// long enough. Under `sequential` with
// uniform jitter it is rare (none of 256 seeds at 1 ms: every message slows
// alike), but with that lag held as a delay, the READs fetched in order, it
// double-allocates: ablation's held timing finds it. Before timing was held,
// it was explained as "needs reads_unordered".
// Twin: the head carries a count of its changes beside the id (a tagged
// pointer), so the CAS of a pop fails once anything changed the head.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// Line 0: the head, {count << 32 | id}; then node i (1-based) at line i:
// {next id, unused...}. Count stays 0 in the buggy program.
constexpr uint64_t kIdMask = 0xffff'ffffull;

template <bool kTagged>
struct FreeList : Workload {
  RemoteAddr head;
  uint32_t nodes = 0;
  std::vector<uint32_t> owner;  // node id -> worker index + 1 (0 = on the list)
  RemoteAddr next_of(uint64_t id) const { return head + id * kCacheLine; }

  void setup(SeedRun& run) override {
    nodes = 2 * run.workers() + 2;  // nobody ever finds the list empty
    head = run.backend().allocate(0, (nodes + 1) * kCacheLine, kCacheLine);
    owner.assign(nodes + 1, 0);
    run.backend().host_store(head, 1);
    for (uint64_t id = 1; id <= nodes; ++id) run.backend().host_store(next_of(id), id < nodes ? id + 1 : 0);
  }

  uint64_t swapped(uint64_t old_head, uint64_t id) const {
    return (kTagged ? ((old_head >> 32) + 1) << 32 : 0) | id;
  }

  // 0: gave up (the list was empty or the CAS kept failing).
  Task<uint64_t> pop(Worker& w) {
    for (uint32_t attempt = 0; attempt < 1000; ++attempt) {
      uint64_t h = 0, next = 0;
      (void)co_await w.read(&h, head, 8);
      if ((h & kIdMask) == 0) {
        co_await w.sleep(1000);
        continue;
      }
      (void)co_await w.read(&next, next_of(h & kIdMask), 8);
      co_await w.sleep(w.rng().below(1000));  // checks the node before taking it (local work)
      if (value_of(co_await w.cas(head, h, swapped(h, next))) == h) co_return h & kIdMask;
    }
    co_return 0;
  }

  Task<bool> push(Worker& w, uint64_t id) {
    for (uint32_t attempt = 0; attempt < 1000; ++attempt) {
      uint64_t h = 0;
      (void)co_await w.read(&h, head, 8);
      const uint64_t next = h & kIdMask;
      (void)co_await w.write(next_of(id), &next, 8);
      if (value_of(co_await w.cas(head, h, swapped(h, id))) == h) co_return true;
    }
    co_return false;
  }

  // The workload's book: a popped node must be on the list.
  void take(SeedRun& run, const Worker& w, uint64_t id) {
    const uint32_t me = run.worker_index(w) + 1;
    if (id > nodes || owner[id] != 0) {
      run.fail("double-allocation", describe(w.placement()) + " popped node " + std::to_string(id) + " at " +
                                        std::to_string(w.now()) + " ns, held by worker " +
                                        std::to_string(id > nodes ? 0 : owner[id] - 1));
      return;
    }
    owner[id] = me;
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const uint64_t a = co_await pop(w);
      if (a != 0) take(run, w, a);
      const uint64_t b = co_await pop(w);
      if (b != 0) take(run, w, b);
      if (a == 0 || b == 0) {
        run.gave_up(w, "pop found no node");
        co_return;
      }
      co_await w.sleep(w.rng().below(2000));  // use them
      for (uint64_t id : {a, b}) {
        if (owner[id] == run.worker_index(w) + 1) owner[id] = 0;  // back on the list from here on
        if (!co_await push(w, id)) {
          run.gave_up(w, "push kept failing");
          co_return;
        }
      }
      run.op_done(w);
    }
  }
};

const Shape kShape{.compute_nodes = 2, .threads_per_node = 2, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 30};

TEST(CheckBugs, TreiberAba) {
  expect_found(factory<FreeList<false>>(), kShape, Expect::race(), {"double-allocation"}, "treiber-aba");
}
TEST(CheckBugs, TreiberTwinTaggedHead) { expect_clean(factory<FreeList<true>>(), kShape, "treiber-aba"); }

}  // namespace
}  // namespace lw::check::bugs
