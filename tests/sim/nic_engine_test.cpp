// The NIC model's processing engines (nic.mechanisms.engines) against their
// analytic expectation: every other mechanism that queues is off and the
// network has no jitter, so each time below is a sum of profile parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "nic_test_support.h"

namespace lw::sim {
namespace {

constexpr uint32_t kThreads = 64;

struct Fixture {
  ClusterConfig cluster;
  NicParams p;
  std::unique_ptr<NicModel> model;
  Rng rng{1};

  explicit Fixture(bool engines = true) {
    cluster.compute_nodes = 1;
    cluster.memory_nodes = 1;
    cluster.threads_per_node = kThreads;
    test::quiet_mechanisms(&cluster.nic.mechanisms);
    cluster.nic.mechanisms.engines = engines;
    p = test::cx5_without_jitter();
    model = std::make_unique<NicModel>(cluster, p);
  }
  // A thread's route: threads `t` and `t + processing_engines` share an engine.
  static WrRoute route(uint32_t thread) { return WrRoute{0, thread, thread, 0}; }
  static WorkRequest verb(Opcode op, uint64_t offset) { return test::verb8(op, 0, offset); }
  Nanos hold() const { return p.pcie_read_ns + p.atomic_write_back_ns; }
};

TEST(NicEngines, AtomicsOnOneEngineRunOneAfterAnother) {
  Fixture f;
  const uint32_t e = f.p.processing_engines;
  // Different lock-table slots: only the shared engine orders them.
  const AccessTimes a = f.model->atomic(f.route(0), f.verb(Opcode::kCas, 0), false, 1000);
  const AccessTimes b = f.model->atomic(f.route(e), f.verb(Opcode::kCas, 8), false, 1000);
  EXPECT_EQ(a.begin, 1000 + f.p.pcie_read_ns);
  EXPECT_EQ(a.end, 1000 + f.hold());
  EXPECT_EQ(b.begin, a.end + f.p.pcie_read_ns);  // took the engine when `a` wrote back
  // Another engine: no wait.
  const AccessTimes c = f.model->atomic(f.route(1), f.verb(Opcode::kCas, 16), false, 1000);
  EXPECT_EQ(c.begin, 1000 + f.p.pcie_read_ns);
}

TEST(NicEngines, AReadWaitsBehindAnAtomicWaitingForItsSlotOnTheSameEngine) {
  Fixture f;
  const uint32_t e = f.p.processing_engines;
  const Nanos arrive = f.model->request_path(f.route(2), f.verb(Opcode::kCas, 0), 0, f.rng);
  // Thread 2's CAS holds the slot of offset 0 first...
  const AccessTimes first = f.model->atomic(f.route(2), f.verb(Opcode::kCas, 0), false, arrive);
  // ...so thread 0's CAS on the same slot waits for it, holding its engine.
  const AccessTimes waiting = f.model->atomic(f.route(0), f.verb(Opcode::kCas, 4096), false, arrive);
  EXPECT_EQ(waiting.begin, first.end + f.p.pcie_read_ns);
  // A READ on thread 0's engine (thread e's QP), arriving while that CAS
  // waits, is taken after it wrote back.
  const Nanos behind = f.model->request_path(f.route(e), f.verb(Opcode::kRead, 64), 100, f.rng);
  EXPECT_EQ(behind, waiting.end);
  // A READ on another engine passes it: it arrives when an idle path says.
  Fixture idle;
  const Nanos alone = idle.model->request_path(idle.route(1), idle.verb(Opcode::kRead, 64), 100, idle.rng);
  EXPECT_GT(alone, arrive);
  EXPECT_EQ(f.model->request_path(f.route(1), f.verb(Opcode::kRead, 64), 100, f.rng), alone);
  EXPECT_LT(alone, waiting.end);
}

TEST(NicEngines, AFailedCasGivesBackItsEngineWithItsWriteBack) {
  Fixture f;
  const uint32_t e = f.p.processing_engines;
  const WorkRequest cas = f.verb(Opcode::kCas, 0);
  const AccessTimes a = f.model->atomic(f.route(0), cas, false, 1000);
  f.model->skip_write_back(f.route(0), cas, false, a);
  const AccessTimes b = f.model->atomic(f.route(e), f.verb(Opcode::kCas, 8), false, 1000);
  EXPECT_EQ(b.begin, a.begin + f.p.pcie_read_ns);  // the engine was free from a's read on
}

TEST(NicEngines, SwitchedOffNothingQueuesForAnEngine) {
  Fixture f(/*engines=*/false);
  const uint32_t e = f.p.processing_engines;
  const AccessTimes a = f.model->atomic(f.route(0), f.verb(Opcode::kCas, 0), false, 1000);
  const AccessTimes b = f.model->atomic(f.route(e), f.verb(Opcode::kCas, 8), false, 1000);
  EXPECT_EQ(b.begin, a.begin);
}

TEST(NicEngines, IndependentAtomicsAreCappedByEnginesOverTheirHold) {
  // More atomics at once than engines, each on its own slot: the engines
  // let through `processing_engines` per hold.
  Fixture f;
  const uint32_t e = f.p.processing_engines;
  Nanos last = 0;
  std::vector<uint32_t> dealt(e, 0);  // atomics per engine (thread t's QP is on engine t mod e)
  for (uint32_t i = 0; i < 4 * e; ++i) {
    const uint32_t thread = i % kThreads;
    ++dealt[thread % e];
    const AccessTimes t = f.model->atomic(f.route(thread), f.verb(Opcode::kCas, 8 * i), false, 1000);
    last = std::max(last, t.end);
  }
  // The busiest engine runs its atomics back to back.
  const uint32_t busiest = *std::max_element(dealt.begin(), dealt.end());
  EXPECT_EQ(last, 1000 + busiest * f.hold());
}

}  // namespace
}  // namespace lw::sim
