// Sherman Figs. 10 and 14 measure skewed writes, whose collapse under
// host-memory locks builds over milliseconds: their runs use the steady-state
// windows (sherman_repro::steady_state), and Fig. 14 shares Fig. 10's runs.
#include <gtest/gtest.h>

#include "repro/repro.h"
#include "repro/repro_session.h"
#include "repro/sherman/common.h"

namespace lw {
namespace {

// The points of `name` that run (not metrics of another point's run).
std::vector<const ReproPoint*> runs_of(const char* name) {
  const ReproFigure* f = find_repro(name);
  EXPECT_NE(f, nullptr) << name;
  std::vector<const ReproPoint*> runs;
  if (f == nullptr) return runs;
  for (const ReproPoint& p : f->points)
    if (p.same_run_as < 0) runs.push_back(&p);
  return runs;
}

TEST(ReproShermanWindows, SkewedWriteBreakdownsRunToTheSteadyState) {
  for (const char* name : {"sherman-fig10", "sherman-fig14"}) {
    const std::vector<const ReproPoint*> runs = runs_of(name);
    ASSERT_FALSE(runs.empty()) << name;
    for (const ReproPoint* p : runs) {
      ASSERT_TRUE(p->sherman.has_value()) << name << " " << p->series;
      EXPECT_EQ(p->sherman->warmup_ns, sherman_repro::kSteadyWindowNs) << name << " " << p->series;
      EXPECT_EQ(p->sherman->measure_ns, sherman_repro::kSteadyWindowNs) << name << " " << p->series;
    }
  }
  // The uniform breakdown (Fig. 11) keeps the short window.
  for (const ReproPoint* p : runs_of("sherman-fig11")) EXPECT_LT(p->sherman->measure_ns, sherman_repro::kSteadyWindowNs);
}

TEST(ReproShermanWindows, Fig14TakesFig10sWriteIntensiveRuns) {
  const std::vector<const ReproPoint*> fig10 = runs_of("sherman-fig10"), fig14 = runs_of("sherman-fig14");
  ASSERT_EQ(fig14.size(), 2u);
  for (const ReproPoint* p : fig14) {
    const std::string step = p->series == "fg+" ? "write-intensive FG+" : "write-intensive +2-Level Ver";
    bool shared = false;
    for (const ReproPoint* q : fig10) shared = shared || (q->series == step && same_run(*p, *q));
    EXPECT_TRUE(shared) << p->series << " runs apart from Fig. 10's " << step;
  }
}

// Skewed writes in Figs. 12 (range-write), 13 and 15 run to the steady state
// as well; uniform panels and read-only ranges keep the short window.
TEST(ReproShermanWindows, SkewedWritesOfFigs12To15RunToTheSteadyState) {
  for (const char* name : {"sherman-fig12", "sherman-fig13", "sherman-fig15"}) {
    const std::vector<const ReproPoint*> runs = runs_of(name);
    ASSERT_GE(runs.size(), 8u) << name;
    for (const ReproPoint* p : runs) {
      const bool skewed_writes = p->sherman->zipf > 0 && p->sherman->mix != TreeMix::kRangeOnly;
      EXPECT_EQ(p->sherman->measure_ns == sherman_repro::kSteadyWindowNs, skewed_writes) << name << " " << p->series;
    }
  }
}

}  // namespace
}  // namespace lw
