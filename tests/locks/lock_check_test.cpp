// The locks through the check driver (latchwork check --structure locks):
// the correct locks show no failure over seeds; each negative control is
// caught, and the broken spinlock is explained by atomic_loses_cpu.
#include <gtest/gtest.h>

#include <set>

#include "latchwork/check/builtin.h"

namespace lw::check {
namespace {

struct Swept {
  Report report;
  std::set<std::string> kinds, explanations;
};

Options options(const std::string& scheme, BuiltinOptions* out = nullptr) {
  BuiltinOptions b;
  b.structure = "locks";
  b.scheme = scheme;
  b.keys = 2;
  b.max_attempts = 200'000;
  Options o = builtin_check_options(b, Options::default_cluster());
  o.shape.ops_per_worker = 20;
  if (out) *out = b;
  return o;
}

Swept sweep(const std::string& scheme, uint64_t seeds, bool stop_at_first = false) {
  BuiltinOptions b;
  Options o = options(scheme, &b);
  o.seeds = seeds;
  o.stop_at_first = stop_at_first;
  EXPECT_EQ(b.validate(o), "");
  EXPECT_EQ(o.shape.memory_node_threads, 2u);
  EXPECT_GE(o.cluster.memory_nodes, 2u);
  Swept s;
  s.report = run(builtin_workload(b), o);
  for (const Finding& f : s.report.findings) {
    s.kinds.insert(f.kind);
    if (f.explained) s.explanations.insert(f.explanation());
  }
  return s;
}

TEST(LocksCheck, CorrectLocksShowNoFailure) {
  for (const char* scheme : {"alock", "spin", "mcs"}) {
    Swept s = sweep(scheme, 25);
    EXPECT_EQ(s.report.failing_seeds, 0u) << scheme << ": " << s.report.summary();
    EXPECT_GT(s.report.ops, 25u * 4 * 15) << scheme;
  }
}

TEST(LocksCheck, LocalCpuSpinlockIsCaughtAndNeedsAtomicLosesCpu) {
  Swept s = sweep("spin-local-cpu", 60);
  ASSERT_GT(s.report.failing_seeds, 0u);
  EXPECT_TRUE(s.kinds.count("overlapping-holds") || s.kinds.count("lost-increment")) << s.report.summary();
  bool named = false;
  for (const std::string& e : s.explanations) named |= e.find("atomic_loses_cpu") != std::string::npos;
  EXPECT_TRUE(named) << s.report.summary();
}

// A spinlock freed by a WRITE of 0 hangs where a waiter's failed CAS writes
// back the 1 it read over the release: tests/verbs/node_two_process.sh hung
// so on Soft-RoCE (Linux 6.1 rdma_rxe), 900 s, both processes killed. The
// simulator finds it as a hang that needs failed_cas_writes_back.
TEST(LocksCheck, WriteUnlockSpinlockHangsAndNeedsFailedCasWritesBack) {
  Swept s = sweep("spin-write-unlock", 20);
  ASSERT_GT(s.report.failing_seeds, 0u);
  EXPECT_TRUE(s.kinds.count(kind::kHang) || s.kinds.count(kind::kStuckLatch)) << s.report.summary();
  bool named = false;
  for (const std::string& e : s.explanations) named |= e.find("failed_cas_writes_back") != std::string::npos;
  EXPECT_TRUE(named) << s.report.summary();
}

// Pinned: seed 1 of the sweep above (2 nodes x 2 memory threads + 1 compute
// worker, 2 locks) hangs with the WRITE release; kSpin on the same seed and
// plan frees with a CAS (the simulator's capabilities say a failed CAS may
// write back) and finishes clean. Without the switch the WRITE release is
// clean too: the hang is that relaxation's, not the lock's protocol.
TEST(LocksCheck, SeedOneHangsWithTheWriteReleaseOnly) {
  BuiltinOptions bw, bs;
  const Options ow = options("spin-write-unlock", &bw), os = options("spin", &bs);
  const SeedPlan plan = plan_for(ow, 1);
  ASSERT_TRUE(plan.semantics.failed_cas_writes_back && plan.semantics.atomic_loses_write);
  const SeedResult broken = run_seed(builtin_workload(bw), ow, plan, ow.shape);
  EXPECT_TRUE(broken.failed());
  const SeedResult fixed = run_seed(builtin_workload(bs), os, plan, os.shape);
  EXPECT_FALSE(fixed.failed()) << (fixed.findings.empty() ? "" : fixed.findings[0].detail);
  SeedPlan without = plan;
  without.semantics.failed_cas_writes_back = false;
  EXPECT_FALSE(run_seed(builtin_workload(bw), ow, without, ow.shape).failed());
}

TEST(LocksCheck, VictimAfterCheckIsAProtocolBug) {
  Swept s = sweep("alock-victim-after-check", 30);
  ASSERT_GT(s.report.failing_seeds, 0u);
  EXPECT_TRUE(s.kinds.count("overlapping-holds")) << s.report.summary();
  bool protocol = false;
  for (const Finding& f : s.report.findings) protocol |= f.explained && f.protocol_bug;
  EXPECT_TRUE(protocol) << s.report.summary();
}

TEST(LocksCheck, NoVictimDeadlocks) {
  Swept s = sweep("alock-no-victim", 10, /*stop_at_first=*/true);
  ASSERT_GT(s.report.failing_seeds, 0u);
  EXPECT_TRUE(s.kinds.count(kind::kStuckLatch) || s.kinds.count(kind::kHang) || s.kinds.count(kind::kDeadlock))
      << s.report.summary();
}

TEST(LocksCheck, OptionsNeedSymmetricNodes) {
  BuiltinOptions b;
  b.structure = "locks";
  b.scheme = "alock";
  b.keys = 2;
  Options o = builtin_check_options(b, Options::default_cluster());
  o.shape.memory_node_threads = 1;
  EXPECT_NE(b.validate(o).find("memory-node threads"), std::string::npos);
  b.scheme = "versioning";
  EXPECT_NE(b.validate().find("locks structure takes"), std::string::npos);
  EXPECT_EQ(builtin_schemes("locks").size(), 7u);
  EXPECT_FALSE(find_builtin("locks", "alock-no-victim")->correct);
}

}  // namespace
}  // namespace lw::check
