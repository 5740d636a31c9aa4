// run_repro with several points at once: every point is its own seeded
// simulation, so the results must not depend on the number of threads.
#include <gtest/gtest.h>

#include <string>

#include "repro/repro.h"

namespace lw {
namespace {

void expect_same_results(const std::string& name) {
  const ReproFigure* f = find_repro(name);
  ASSERT_NE(f, nullptr) << name;
  size_t calls = 0, last = 0;
  const ReproResult one = run_repro(*f, {}, 1);
  const ReproResult three = run_repro(
      *f,
      [&](size_t done, size_t n) {
        EXPECT_EQ(n, f->points.size());
        EXPECT_GE(done, last);  // called one at a time, as points finish
        last = done;
        ++calls;
      },
      3);
  EXPECT_EQ(last, f->points.size());
  EXPECT_EQ(calls, f->points.size() + 1);  // once before the first, once per point
  ASSERT_EQ(one.results.size(), f->points.size());
  ASSERT_EQ(three.results.size(), f->points.size());
  for (size_t i = 0; i < f->points.size(); ++i) {
    const PerfResult& a = one.results[i];
    const PerfResult& b = three.results[i];
    EXPECT_TRUE(a.ok()) << name << " point " << i << ": " << a.error;
    EXPECT_EQ(a.ops, b.ops) << name << " point " << i;
    EXPECT_EQ(a.verbs, b.verbs) << name << " point " << i;
    EXPECT_EQ(a.mops, b.mops) << name << " point " << i;
    EXPECT_EQ(a.latency_ns_mean, b.latency_ns_mean) << name << " point " << i;
  }
  EXPECT_EQ(one.verbs, three.verbs);
  ASSERT_EQ(one.comparisons.size(), three.comparisons.size());
  for (size_t i = 0; i < one.comparisons.size(); ++i) EXPECT_EQ(one.comparisons[i].model, three.comparisons[i].model);
}

TEST(ReproJobs, PerfPointsDoNotDependOnTheThreadCount) { expect_same_results("jasny-fig4"); }

// drtmh-fig6 has points that show another point's run (same_run_as).
TEST(ReproJobs, SharedRunsAreCopiedAfterTheirRun) { expect_same_results("drtmh-fig6"); }

}  // namespace
}  // namespace lw
