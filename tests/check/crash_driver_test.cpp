// Options::crashes in the check driver: plans without crashes are as they
// were, a crashed seed replays exactly (in process and isolated), a latch
// the dead worker held becomes crash-liveness with the crash's report, and
// bad options are named.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "latchwork/check/driver.h"

namespace lw::check {
namespace {

// A counter behind a CAS spinlock without expiry: a holder that dies leaves
// the lock taken, and the others give up on it.
struct SpinCounter : Workload {
  RemoteAddr lock, counter;
  void setup(SeedRun& run) override {
    lock = run.backend().allocate(0, 64, 64);
    counter = run.backend().allocate(0, 64, 64);
  }
  Task<void> run(SeedRun& run, Worker& w) override {
    const uint64_t me = run.worker_index(w) + 1;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      bool got = false;
      for (uint32_t a = 0; a < 300 && !got; ++a) {
        Result<uint64_t> r = co_await w.cas(lock, 0, me);
        got = r.ok() && r.value == 0;
        if (!got) co_await w.sleep(1000);
      }
      if (!got) {
        run.gave_up(w, "the lock was never free");
        continue;
      }
      uint64_t v = 0;
      co_await w.read(&v, counter, 8);
      ++v;
      co_await w.write(counter, &v, 8);
      co_await w.cas(lock, me, 0);
      run.op_done(w);
    }
  }
  std::string still_held(SeedRun& run) override {
    const uint64_t v = run.backend().host_load(lock);
    return v == 0 ? "" : "the lock names worker " + std::to_string(v - 1);
  }
};

WorkloadFactory spin() {
  return [] { return std::make_unique<SpinCounter>(); };
}

Options crashing() {
  Options o;
  o.shape = {1, 2, 1, 0, 8};
  o.seeds = 60;
  o.crashes.percent = 100;
  o.crashes.max_submission = 20;
  o.explain = false;
  return o;
}

TEST(CrashDriver, CrashesOffLeaveEveryPlanAsItWas) {
  Options off;
  Options on = off;
  on.crashes.percent = 100;
  uint64_t planned = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const SeedPlan a = plan_for(off, seed), b = plan_for(on, seed);
    EXPECT_FALSE(a.crash.on);
    EXPECT_TRUE(b.crash.on);
    planned += b.crash.on;
    EXPECT_TRUE(a.semantics == b.semantics) << seed;
    EXPECT_EQ(a.jitter_ns, b.jitter_ns) << seed;
    EXPECT_EQ(a.describe().find("crash"), std::string::npos);
    EXPECT_NE(b.describe().find("crash: "), std::string::npos);
    EXPECT_LT(b.crash.worker, on.shape.compute_workers());
    EXPECT_GE(b.crash.at_submission, 1u);
    EXPECT_LE(b.crash.at_submission, on.crashes.max_submission);
  }
  EXPECT_EQ(planned, 300u);
  Options some = off;
  some.crashes.percent = 30;
  uint64_t n = 0;
  for (uint64_t seed = 1; seed <= 1000; ++seed) n += plan_for(some, seed).crash.on;
  EXPECT_GT(n, 200u);
  EXPECT_LT(n, 400u);
}

TEST(CrashDriver, ADeadHolderIsCrashLivenessWithTheCrashReport) {
  const Report r = run(spin(), crashing());
  EXPECT_GT(r.crashed_seeds, 0u) << r.summary();
  ASSERT_GT(r.failing_seeds, 0u) << r.summary();
  const Finding* f = nullptr;
  for (const Finding& x : r.findings)
    if (x.failure && f == nullptr) f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind, kind::kCrashLiveness) << f->summary();
  EXPECT_NE(f->crash.find("latch held forever (the lock names worker"), std::string::npos) << f->crash;
  EXPECT_GT(r.crash_left.count("latch held forever"), 0u);
  // Without crashes the same workload is clean: the failures are the crash's.
  Options o = crashing();
  o.crashes.percent = 0;
  EXPECT_TRUE(run(spin(), o).clean());
}

TEST(CrashDriver, ACrashedSeedReplaysExactlyInProcessAndIsolated) {
  Options o = crashing();
  const Report r = run(spin(), o);
  ASSERT_GT(r.failing_seeds, 0u);
  const uint64_t seed = r.first_failing_seed;
  const SeedResult a = run_seed(spin(), o, seed), b = run_seed(spin(), o, seed);
  ASSERT_TRUE(a.crashed);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.crash, b.crash);
  o.isolate = true;
  const SeedResult c = run_seed(spin(), o, seed);
  EXPECT_TRUE(c.crashed);
  EXPECT_EQ(c.crash, a.crash);
  EXPECT_EQ(c.crash_left, a.crash_left);
  ASSERT_FALSE(c.findings.empty());
  EXPECT_EQ(c.findings.front().kind, a.findings.front().kind);
  EXPECT_EQ(c.findings.front().crash, a.crash);
}

TEST(CrashDriver, BadCrashOptionsAreNamed) {
  Options o;
  o.crashes.percent = 101;
  EXPECT_NE(o.validate().find("crashes.percent"), std::string::npos);
  o.crashes.percent = 50;
  o.crashes.max_submission = 0;
  EXPECT_NE(o.validate().find("crashes.max_submission"), std::string::npos);
  o.crashes.max_submission = 10;
  EXPECT_EQ(o.validate(), "");
}

}  // namespace
}  // namespace lw::check
