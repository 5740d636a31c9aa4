// `repro --scale paper` (repro/paper_scale.h): the same figures, series and
// paper values; only the rules of each paper change a point's set-up, and
// the notes say what changed.
#include <gtest/gtest.h>

#include "latchwork/config/smart_config.h"
#include "latchwork/structures/sherman/tree.h"
#include "repro/repro.h"
#include "repro/repro_session.h"

namespace lw {
namespace {

bool same_paper_value(const PaperValue& a, const PaperValue& b) {
  return a.series == b.series && a.x == b.x && a.value == b.value && a.source == b.source && a.fitted == b.fitted &&
         a.tolerance == b.tolerance && a.over_series == b.over_series;
}

TEST(ReproPaperScale, SameFiguresSeriesAndPaperValues) {
  const std::vector<ReproFigure>& def = repro_figures();
  const std::vector<ReproFigure>& paper = repro_figures(ReproScale::kPaper);
  ASSERT_EQ(def.size(), paper.size());
  for (size_t i = 0; i < def.size(); ++i) {
    const ReproFigure& d = def[i];
    const ReproFigure& p = paper[i];
    EXPECT_EQ(d.scale, ReproScale::kDefault);
    EXPECT_EQ(p.scale, ReproScale::kPaper);
    ASSERT_EQ(d.name, p.name);
    ASSERT_EQ(d.points.size(), p.points.size()) << d.name;
    for (size_t k = 0; k < d.points.size(); ++k) {
      EXPECT_EQ(d.points[k].series, p.points[k].series) << d.name;
      EXPECT_EQ(d.points[k].x, p.points[k].x) << d.name;
      EXPECT_EQ(d.points[k].panel, p.points[k].panel) << d.name;
      EXPECT_EQ(d.points[k].same_run_as, p.points[k].same_run_as) << d.name;
    }
    ASSERT_EQ(d.paper.size(), p.paper.size()) << d.name;
    for (size_t k = 0; k < d.paper.size(); ++k) EXPECT_TRUE(same_paper_value(d.paper[k], p.paper[k])) << d.name;
    // The notes keep the default's and say what the paper scale did.
    EXPECT_EQ(p.notes.rfind(d.notes, 0), 0u) << d.name;
    EXPECT_NE(p.notes.find("At --scale paper: "), std::string::npos) << d.name;
  }
  EXPECT_EQ(find_repro("smart-fig7", ReproScale::kPaper), &paper[&*find_repro("smart-fig7") - def.data()]);
}

TEST(ReproPaperScale, SmartHashPointsLoadMoreRecordsOnThePaperClocks) {
  const ReproFigure& d = *find_repro("smart-fig7");
  const ReproFigure& p = *find_repro("smart-fig7", ReproScale::kPaper);
  const SmartConfig paper_clocks;
  size_t hash_points = 0;
  for (size_t k = 0; k < d.points.size(); ++k) {
    if (!d.points[k].hash) continue;
    ++hash_points;
    const ReproPoint& a = d.points[k];
    const ReproPoint& b = p.points[k];
    EXPECT_EQ(b.hash->keys, uint64_t{1} << 24);
    EXPECT_GT(b.hash->keys, a.hash->keys);
    EXPECT_EQ(b.cluster.smart.delta_ns, paper_clocks.delta_ns);
    EXPECT_EQ(b.cluster.smart.retry_window_ns, paper_clocks.retry_window_ns);
    // The default divides the clocks by 16: the warm-up grows as much, so
    // that it holds Alg. 1's 40 ms update phase.
    ASSERT_EQ(paper_clocks.delta_ns / a.cluster.smart.delta_ns, 16);
    EXPECT_EQ(b.hash->warmup_ns, 16 * a.hash->warmup_ns);
    EXPECT_GE(b.hash->warmup_ns, 5 * paper_clocks.delta_ns);
    EXPECT_EQ(b.hash->measure_ns, a.hash->measure_ns);
    EXPECT_GE(b.cluster.memory_node_bytes, uint64_t{2} << 30);
    EXPECT_FALSE(same_run(a, b));
  }
  EXPECT_GT(hash_points, 0u);
  // One note for the figure, however its points' windows differ (Fig. 9's
  // grow with the think time).
  for (const char* name : {"smart-fig7", "smart-fig9"}) {
    const std::string& notes = find_repro(name, ReproScale::kPaper)->notes;
    const size_t first = notes.find("load 2^24 records");
    ASSERT_NE(first, std::string::npos) << name;
    EXPECT_EQ(notes.find("load 2^24 records", first + 1), std::string::npos) << name;
  }
}

TEST(ReproPaperScale, ThrottledBenchRunsThePaperEpochs) {
  const ReproFigure& d = *find_repro("smart-fig13");
  const ReproFigure& p = *find_repro("smart-fig13", ReproScale::kPaper);
  const SmartConfig paper_clocks;
  size_t throttled = 0;
  for (size_t k = 0; k < d.points.size(); ++k) {
    if (!d.points[k].cluster.smart.throttling) {
      EXPECT_TRUE(same_run(d.points[k], p.points[k])) << d.points[k].series;
      continue;
    }
    ++throttled;
    EXPECT_EQ(p.points[k].cluster.smart.delta_ns, paper_clocks.delta_ns);
    EXPECT_EQ(p.points[k].perf.warmup_ns, 6 * paper_clocks.delta_ns);  // 5 candidates' update phase + 1
    EXPECT_EQ(p.points[k].perf.measure_ns, 4 * paper_clocks.delta_ns);
  }
  EXPECT_GT(throttled, 0u);
}

TEST(ReproPaperScale, TreesLoadMoreKeysAndLocksRunLonger) {
  for (const char* name : {"sherman-fig10", "smart-fig12", "sherman-fig15"}) {
    const ReproFigure& d = *find_repro(name);
    const ReproFigure& p = *find_repro(name, ReproScale::kPaper);
    for (size_t k = 0; k < d.points.size(); ++k) {
      if (!d.points[k].sherman) continue;
      EXPECT_EQ(p.points[k].sherman->keys, 8 * d.points[k].sherman->keys) << name;
      EXPECT_LE(p.points[k].sherman->keys, uint64_t{1} << 23) << name;
      // Fig. 15(c)'s cache, sized by the keys, keeps its share of them.
      const double share_default = static_cast<double>(d.points[k].sherman->tree.cache_bytes) / d.points[k].sherman->keys;
      const double share_paper = static_cast<double>(p.points[k].sherman->tree.cache_bytes) / p.points[k].sherman->keys;
      if (d.points[k].sherman->tree.cache_bytes != sherman::TreeConfig{}.cache_bytes)
        EXPECT_DOUBLE_EQ(share_default, share_paper) << name;
      else
        EXPECT_EQ(p.points[k].sherman->tree.cache_bytes, d.points[k].sherman->tree.cache_bytes) << name;
      EXPECT_EQ(p.points[k].cluster.compute_nodes, d.points[k].cluster.compute_nodes) << name;
    }
  }
  const ReproFigure& d = *find_repro("alock-fig5");
  const ReproFigure& p = *find_repro("alock-fig5", ReproScale::kPaper);
  for (size_t k = 0; k < d.points.size(); ++k) {
    if (!d.points[k].lock_table) continue;
    EXPECT_EQ(p.points[k].lock_table->ops_per_worker, 10 * d.points[k].lock_table->ops_per_worker);
    EXPECT_EQ(p.points[k].lock_table->table.locks, d.points[k].lock_table->table.locks);
  }
}

TEST(ReproPaperScale, FiguresKeptScaledDownSayWhy) {
  // DrTM+H's and Jasny's points are the default's, and their notes say why.
  for (const char* name : {"drtmh-fig14", "jasny-fig4", "smart-table1"}) {
    const ReproFigure& d = *find_repro(name);
    const ReproFigure& p = *find_repro(name, ReproScale::kPaper);
    for (size_t k = 0; k < d.points.size(); ++k) {
      if (d.points[k].same_run_as < 0) {
        EXPECT_TRUE(same_run(d.points[k], p.points[k])) << name;
      }
    }
    EXPECT_EQ(p.notes.find("At --scale paper: the same set-up"), std::string::npos) << name;
  }
  EXPECT_NE(find_repro("drtmh-fig14", ReproScale::kPaper)->notes.find("24 threads"), std::string::npos);
  ReproScale s = ReproScale::kDefault;
  EXPECT_TRUE(parse_repro_scale("paper", &s));
  EXPECT_EQ(s, ReproScale::kPaper);
  EXPECT_FALSE(parse_repro_scale("huge", &s));
  EXPECT_STREQ(to_string(ReproScale::kDefault), "default");
}

}  // namespace
}  // namespace lw
