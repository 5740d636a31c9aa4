// Locks under exhaustive exploration (check/explore_locks.h): the correct
// ALock is proved mutually exclusive and free of deadlock within a scope,
// and each seeded bug is found with the property it breaks.
#include "latchwork/check/explore_locks.h"

#include <gtest/gtest.h>

#include "latchwork/check/builtin.h"

namespace lw::check {
namespace {

std::string describe(const explore::Result& r) {
  std::string s = r.violation + (r.complete ? " (complete, " : " (incomplete, ") + std::to_string(r.states) +
                  " states)\n";
  for (const std::string& l : r.trace) s += l + "\n";
  return s;
}

LockExploreOptions scope(uint32_t local, uint32_t remote, uint32_t acquisitions) {
  LockExploreOptions o;
  o.local_workers = local;
  o.remote_workers = remote;
  o.acquisitions = acquisitions;
  return o;
}

TEST(ExploreLocks, AlockIsMutuallyExclusiveAndLiveInSmallScope) {
  // One worker per cohort, two acquisitions, budget 1: leaders meet in
  // Peterson and every pass forces a reacquire.
  explore::Result r = explore_lock(scope(1, 1, 2));
  EXPECT_TRUE(r.violation.empty()) << describe(r);
  EXPECT_TRUE(r.complete) << describe(r);
  EXPECT_GT(r.terminal_states, 0u);
  // Deterministic: the same count on a second run.
  EXPECT_EQ(explore_lock(scope(1, 1, 2)).states, r.states);
}

TEST(ExploreLocks, AlockWithTwoInOneCohortPassesAndReacquires) {
  explore::Result r = explore_lock(scope(2, 1, 1));
  EXPECT_TRUE(r.violation.empty()) << describe(r);
  EXPECT_TRUE(r.complete) << describe(r);
}

TEST(ExploreLocks, VictimAfterCheckBreaksMutualExclusion) {
  LockExploreOptions o = scope(1, 1, 1);
  o.variant = locks::AlockVariant::kVictimAfterCheck;
  explore::Result r = explore_lock(o);
  EXPECT_NE(r.violation.find("mutual exclusion"), std::string::npos) << describe(r);
  EXPECT_FALSE(r.trace.empty());
}

TEST(ExploreLocks, NoVictimDeadlocks) {
  LockExploreOptions o = scope(1, 1, 2);
  o.variant = locks::AlockVariant::kNoVictim;
  explore::Result r = explore_lock(o);
  const bool stuck = r.violation.rfind("stuck", 0) == 0 || r.violation.rfind("deadlock", 0) == 0;
  EXPECT_TRUE(stuck) << describe(r);
}

TEST(ExploreLocks, SpinlockWithLocalCpuCasLosesMutualExclusion) {
  LockExploreOptions o = scope(1, 1, 1);
  o.kind = locks::LockKind::kSpinLocalCpu;
  explore::Result r = explore_lock(o);
  EXPECT_NE(r.violation.find("mutual exclusion"), std::string::npos) << describe(r);
  // Without atomic_loses_cpu the same lock is exclusive.
  o.semantics.atomic_loses_cpu = false;
  explore::Result fixed = explore_lock(o);
  EXPECT_TRUE(fixed.violation.empty()) << describe(fixed);
  EXPECT_TRUE(fixed.complete);
}

// The WRITE-released spinlock is proved where a failed CAS writes nothing
// back, and stuck under the semantics its scheme prepares (failed_cas_writes_back
// on, as `check --exhaustive --scheme spin-write-unlock` runs it).
TEST(ExploreLocks, WriteUnlockSpinlockIsStuckUnderItsPreparedSemantics) {
  LockExploreOptions o = scope(2, 2, 1);
  o.kind = locks::LockKind::kSpinWriteUnlock;
  explore::Result plain = explore_lock(o);
  EXPECT_TRUE(plain.violation.empty() && plain.complete) << describe(plain);
  lock_scheme_prepare_semantics("spin-write-unlock", &o.semantics);
  ASSERT_TRUE(o.semantics.failed_cas_writes_back);
  explore::Result r = explore_lock(o);
  EXPECT_EQ(r.violation.rfind("stuck", 0), 0u) << describe(r);
}

TEST(ExploreLocks, LoopbackSpinlockAndMcsAreCorrect) {
  for (locks::LockKind k : {locks::LockKind::kSpin, locks::LockKind::kMcs}) {
    LockExploreOptions o = scope(1, 1, 2);
    o.kind = k;
    explore::Result r = explore_lock(o);
    EXPECT_TRUE(r.violation.empty()) << locks::to_string(k) << ": " << describe(r);
    EXPECT_TRUE(r.complete) << locks::to_string(k);
  }
}

}  // namespace
}  // namespace lw::check
