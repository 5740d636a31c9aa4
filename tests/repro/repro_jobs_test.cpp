// run_repro with several points at once: every point is its own seeded
// simulation, so the results must not depend on the number of threads.
#include <gtest/gtest.h>

#include <algorithm>
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

// A paper ratio over a series' peak (PaperValue::over_peak) divides by that
// series' highest point over the sweep, not by its point at x.
TEST(ReproJobs, RatioOverAPeakTakesTheSeriesHighestPoint) {
  ReproFigure f = *find_repro("jasny-fig4");
  const std::string series = f.points.front().series;
  const double x0 = f.points.front().x;
  PaperValue at_x;
  at_x.series = at_x.over_series = series;
  at_x.x = x0;
  at_x.value = 1;
  PaperValue over_peak = at_x;
  over_peak.over_peak = true;
  f.paper = {at_x, over_peak};
  const ReproResult r = run_repro(f, {}, 2);
  double y0 = 0, peak = 0;
  size_t n = 0;
  for (size_t i = 0; i < f.points.size(); ++i) {
    if (f.points[i].series != series) continue;
    const double y = repro_y(f, f.points[i], r.results[i]);
    if (f.points[i].x == x0) y0 = y;
    peak = std::max(peak, y);
    ++n;
  }
  ASSERT_GT(n, 1u);
  ASSERT_GT(peak, y0) << "the first point is the series' peak: the test checks nothing";
  ASSERT_EQ(r.comparisons.size(), 2u);
  EXPECT_DOUBLE_EQ(r.comparisons[0].model, 1.0);
  EXPECT_DOUBLE_EQ(r.comparisons[1].model, y0 / peak);
}

}  // namespace
}  // namespace lw
