// Each figure declares how its paper draws it (ReproFigure::chart), and the
// set-up line says what the figure ran on.
#include <gtest/gtest.h>

#include <set>

#include "repro/repro.h"

namespace lw {
namespace {

TEST(ReproChart, FiguresOfOneXAreBars) {
  // A line through one x is a column of dots: such a figure is a breakdown.
  for (const ReproFigure& f : repro_figures()) {
    std::set<double> xs;
    for (const ReproPoint& p : f.points) xs.insert(p.x);
    if (xs.size() == 1) {
      EXPECT_EQ(f.chart, ReproChart::kBars) << f.name << " has one x but is drawn as " << to_string(f.chart);
    }
  }
}

TEST(ReproChart, PaperBreakdownsAreBarsAndDistributionsCdfs) {
  // The figures the papers draw as bars (issue 44) and as latency CDFs.
  for (const char* name : {"sherman-fig10", "sherman-fig16", "drtmh-fig7", "drtmh-fig8", "drtmh-fig9", "drtmh-fig10",
                           "drtmh-fig11", "drtmh-fig14", "drtmh-fig15", "alock-fig4", "sherman-fig11", "sherman-fig14"}) {
    const ReproFigure* f = find_repro(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->chart, ReproChart::kBars) << name;
  }
  EXPECT_EQ(find_repro("alock-fig6")->chart, ReproChart::kCdf);
  EXPECT_EQ(find_repro("jasny-fig4")->chart, ReproChart::kLines);
  EXPECT_STREQ(to_string(ReproChart::kBars), "bars");
}

TEST(ReproSetup, NamesNodesThreadsLocksAndNic) {
  const std::string s = repro_setup(*find_repro("sherman-fig16"));
  EXPECT_NE(s.find("8 compute + 1 memory nodes"), std::string::npos) << s;
  EXPECT_NE(s.find("22 threads per node"), std::string::npos) << s;
  EXPECT_NE(s.find("10,240 locks"), std::string::npos) << s;
  EXPECT_NE(s.find("cx5-100g"), std::string::npos) << s;
  // A sweep gives its range; transaction figures their own node counts.
  const std::string sweep = repro_setup(*find_repro("smart-fig3"));
  EXPECT_NE(sweep.find("1-96 threads per node"), std::string::npos) << sweep;
  const std::string txn = repro_setup(*find_repro("drtmh-fig7"));
  EXPECT_NE(txn.find("16 nodes"), std::string::npos) << txn;
}

}  // namespace
}  // namespace lw
