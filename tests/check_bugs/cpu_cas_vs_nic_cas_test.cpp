// 7. A memory-node CPU CAS racing a NIC CAS on one lock word.
//
// Compute workers take a lock with RDMA CAS(0 -> me); a thread running on
// the memory node itself takes the same lock with a local CPU CAS, because
// "it is local, why go through the NIC?". NIC atomics are atomic with each
// other, not with the CPU (IBV_ATOMIC_HCA): a NIC CAS reads 0, the CPU CAS
// also sees 0 and takes the lock, and the NIC writes back the compute
// worker's id over it. Both hold the lock; the counter they guard loses
// increments.
//
// Expected: {atomic_loses_cpu} (with only atomic_loses_write on the NIC
// atomic's window exists but the CPU's store is not lost).
// Twin: the memory-node thread takes and releases the lock through its NIC
// too (loopback verbs), like everyone else.
#include "bug_suite.h"

namespace lw::check::bugs {
namespace {

// The lock word and the counter it guards, one line each:
//   0       8                64        72
//   +-------+----------------+---------+
//   | lock  | (unused)       | counter |
//   +-------+----------------+---------+
struct Guarded {
  uint64_t lock;  // 0 = free, else holder id
  uint64_t unused[7];
  uint64_t counter;
};
static_assert(offsetof(Guarded, counter) == kCacheLine);

template <bool kLoopback>
struct MixedLock : Workload {
  RemoteAddr base;
  RemoteAddr counter() const { return base + offsetof(Guarded, counter); }

  void setup(SeedRun& run) override { base = run.backend().allocate(0, sizeof(Guarded), 64); }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint64_t me = run.worker_index(w) + 1;
    const bool local = w.placement().on_memory_node() && !kLoopback;  // the bug: CPU access
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const Nanos start = w.now();
      for (;;) {  // lock
        const uint64_t seen =
            local ? value_of(co_await w.cpu_cas(base, 0, me)) : value_of(co_await w.cas(base, 0, me));
        if (seen == 0) break;
        co_await w.sleep(200 + w.rng().below(600));
      }
      const Nanos held = w.now();
      uint64_t v = 0;  // counter += 1, in a critical section that takes a while
      if (local) {
        v = value_of(co_await w.cpu_load(counter()));
        co_await w.sleep(1000);
        (void)co_await w.cpu_store(counter(), v + 1);
      } else {
        (void)co_await w.read(&v, counter(), 8);
        co_await w.sleep(1000);
        ++v;
        (void)co_await w.write(counter(), &v, 8);
      }
      run.holds().exclusive(0, held, w.now(), w.placement());
      const uint64_t zero = 0;  // unlock
      if (local) (void)co_await w.cpu_store(base, 0);
      else (void)co_await w.write(base, &zero, 8);
      run.counters().add(0, 1, start, w.now(), w.placement());
      run.op_done(w);
    }
  }

  void check(SeedRun& run) override { run.counters().final_value(0, run.backend().host_load(counter())); }
};

const Shape kShape{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 1,
                   .memory_node_threads = 1, .ops_per_worker = 15};

TEST(CheckBugs, CpuCasRacesNicCas) {
  expect_found(factory<MixedLock<false>>(), kShape, Expect::needs({"atomic_loses_cpu"}),
               {"overlapping-holds", "lost-update"}, "cpu-cas-vs-nic-cas");
}
TEST(CheckBugs, CpuCasRacesNicCasTwinLoopback) {
  expect_clean(factory<MixedLock<true>>(), kShape, "cpu-cas-vs-nic-cas");
}

}  // namespace
}  // namespace lw::check::bugs
