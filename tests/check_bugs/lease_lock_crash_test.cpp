// Issue 43, item 5 "Must show": the crash-tolerant lease lock (lease_lock.h)
// clean over 1,000 seeds that each plan a crash; its broken twins caught by
// a sweep and at the seed that finds them; the twins clean without crashes
// (the bug is the crash's).
#include "lease_lock.h"

namespace lw::check::bugs {
namespace {

const Shape kShape{.compute_nodes = 2, .threads_per_node = 2, .coroutines_per_thread = 2,
                   .memory_node_threads = 0, .ops_per_worker = 10};

// Every seed plans a crash: a worker (a quarter of them its whole node) at
// one of its first 60 submissions, about 6 per operation.
Options crash_options() {
  Options o = options(kShape);
  o.stop_at_first = false;
  o.crashes.percent = 100;
  o.crashes.node_percent = 25;
  o.crashes.max_submission = 60;
  return o;
}

// The seeds the sweep below finds first (pinned: replay must find them again).
constexpr uint64_t kNoExpirySeed = 2;
constexpr uint64_t kInPlaceSeed = 249;

const Finding* first_failure(const Report& r) {
  for (const Finding& f : r.findings)
    if (f.failure) return &f;
  return nullptr;
}

TEST(LeaseLockCrash, TolerantIsCleanOver1000CrashingSeeds) {
  const Options o = crash_options();
  ASSERT_EQ(o.validate(), "");
  const Report r = run(factory<LeaseCounter<LeaseVariant::kTolerant>>(), o);
  EXPECT_EQ(r.seeds_run, kSeeds);
  EXPECT_TRUE(r.clean()) << r.summary();
  // The crashes hit what they must for the claim to mean anything: most
  // seeds crash, some inside the critical section (the workload reports
  // it: its lease outlived it), some halfway through a slot.
  EXPECT_GT(r.crashed_seeds, kSeeds / 2) << r.summary();
  EXPECT_GT(r.crash_left.count("reported by the workload") ? r.crash_left.at("reported by the workload") : 0,
            kSeeds / 10)
      << r.summary();
  EXPECT_GT(r.crash_left.count("half-written range") ? r.crash_left.at("half-written range") : 0, 0u)
      << r.summary();
  std::printf("[crash] lease lock: %llu seeds clean=%d, %llu crashed, %.3f s\n%s",
              static_cast<unsigned long long>(r.seeds_run), r.clean() ? 1 : 0,
              static_cast<unsigned long long>(r.crashed_seeds), r.wall_seconds, r.summary().c_str());
}

TEST(LeaseLockCrash, NoExpiryTwinFoundBySweepAsCrashLiveness) {
  Options o = crash_options();
  o.stop_at_first = true;
  const Report r = run(factory<LeaseCounter<LeaseVariant::kNoExpiry>>(), o);
  ASSERT_GT(r.failing_seeds, 0u) << r.summary();
  const Finding* f = first_failure(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind, kind::kCrashLiveness) << f->summary();
  EXPECT_NE(f->crash.find("latch held forever"), std::string::npos) << f->crash;
  EXPECT_TRUE(f->explained);
  EXPECT_EQ(f->explanation().rfind("the crash alone", 0), 0u) << f->summary();
  std::printf("[crash] no-expiry twin: first hit seed %llu: %s\n  crash: %s\n",
              static_cast<unsigned long long>(r.first_failing_seed), f->summary().c_str(), f->crash.c_str());
  if (kNoExpirySeed != 0) {
    EXPECT_EQ(r.first_failing_seed, kNoExpirySeed);
  }
}

TEST(LeaseLockCrash, NoExpiryTwinCaughtAtItsSeed) {
  const SeedResult r = run_seed(factory<LeaseCounter<LeaseVariant::kNoExpiry>>(), crash_options(), kNoExpirySeed);
  ASSERT_TRUE(r.crashed);
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.findings.front().kind, kind::kCrashLiveness) << r.findings.front().summary();
  // The same seed without its crash is clean: the crash is the cause.
  SeedPlan plan = plan_for(crash_options(), kNoExpirySeed);
  plan.crash.on = false;
  EXPECT_FALSE(run_seed(factory<LeaseCounter<LeaseVariant::kNoExpiry>>(), crash_options(), plan, kShape).failed());
}

TEST(LeaseLockCrash, InPlaceTwinFoundBySweepAsTornRecord) {
  Options o = crash_options();
  o.stop_at_first = true;
  const Report r = run(factory<LeaseCounter<LeaseVariant::kInPlace>>(), o);
  ASSERT_GT(r.failing_seeds, 0u) << r.summary();
  const Finding* f = first_failure(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind, "torn-record") << f->summary();
  EXPECT_NE(f->crash.find("half-written range"), std::string::npos) << f->crash;
  EXPECT_EQ(f->explanation().rfind("none but the crash", 0), 0u) << f->summary();
  std::printf("[crash] in-place twin: first hit seed %llu: %s\n  crash: %s\n",
              static_cast<unsigned long long>(r.first_failing_seed), f->summary().c_str(), f->crash.c_str());
  if (kInPlaceSeed != 0) {
    EXPECT_EQ(r.first_failing_seed, kInPlaceSeed);
  }
}

TEST(LeaseLockCrash, InPlaceTwinCaughtAtItsSeed) {
  const SeedResult r = run_seed(factory<LeaseCounter<LeaseVariant::kInPlace>>(), crash_options(), kInPlaceSeed);
  ASSERT_TRUE(r.crashed);
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.findings.front().kind, "torn-record") << r.findings.front().summary();
  SeedPlan plan = plan_for(crash_options(), kInPlaceSeed);
  plan.crash.on = false;
  EXPECT_FALSE(run_seed(factory<LeaseCounter<LeaseVariant::kInPlace>>(), crash_options(), plan, kShape).failed());
}

// Without crashes both twins are correct: what the sweeps above find is the crash's.
TEST(LeaseLockCrash, TwinsAreCleanWithoutCrashes) {
  expect_clean(factory<LeaseCounter<LeaseVariant::kNoExpiry>>(), kShape, "lease-no-expiry");
  expect_clean(factory<LeaseCounter<LeaseVariant::kInPlace>>(), kShape, "lease-in-place");
}

}  // namespace
}  // namespace lw::check::bugs
