// The NAM-DB figures of Jasny et al. (Figs. 10 and 16) are well-formed: every
// point is a valid tuple workload whose tuples fit its memory nodes, the
// sweeps have the paper's shape, and every stated value names a point. The
// figures themselves take minutes (`latchwork repro jasny-fig10`), so this
// test does not run them.
#include <gtest/gtest.h>

#include <set>

#include "repro/repro.h"

namespace lw {
namespace {

void expect_well_formed(const ReproFigure& f, size_t points, std::set<uint32_t> workers,
                        std::set<uint32_t> tuple_bytes) {
  EXPECT_EQ(f.points.size(), points);
  std::set<uint32_t> seen_workers, seen_bytes;
  std::set<double> xs;
  for (const ReproPoint& p : f.points) {
    ASSERT_TRUE(p.tuples.has_value()) << p.series;
    const TupleWorkloadOptions& t = *p.tuples;
    EXPECT_EQ(t.validate(), "") << p.series;
    EXPECT_EQ(t.zipf, p.x) << p.series;
    EXPECT_EQ(p.cluster.compute_nodes, 4u);
    EXPECT_EQ(p.cluster.memory_nodes, 4u);
    // Padded tuples take 8 B more per stride; all of a node's tuples must fit.
    EXPECT_GE(p.cluster.memory_node_bytes, (t.tuples + 3) / 4 * (t.tuple_bytes + 8)) << p.series;
    seen_workers.insert(p.cluster.compute_nodes * p.cluster.threads_per_node * p.cluster.coroutines_per_thread);
    seen_bytes.insert(t.tuple_bytes);
    xs.insert(p.x);
  }
  EXPECT_EQ(seen_workers, workers);
  EXPECT_EQ(seen_bytes, tuple_bytes);
  EXPECT_EQ(xs, (std::set<double>{0, 1, 1.5, 2}));
  for (const PaperValue& pv : f.paper) {
    int matches = 0;
    for (const ReproPoint& p : f.points) matches += p.series == pv.series && p.x == pv.x;
    EXPECT_EQ(matches, 1) << pv.series << " at " << pv.x;
    EXPECT_FALSE(pv.fitted);
  }
}

TEST(ReproNamDb, Fig10IsWellFormed) {
  const ReproFigure* f = find_repro("jasny-fig10");
  ASSERT_NE(f, nullptr);
  // 2 tuple sizes x 3 workloads x 3 systems x 4 skews.
  expect_well_formed(*f, 72, {112}, {256, 512});
  EXPECT_EQ(f->paper.size(), 4u);
  std::set<std::string> schemes;
  for (const ReproPoint& p : f->points) schemes.insert(p.tuples->scheme + "/" + to_string(p.tuples->layout));
  EXPECT_EQ(schemes, (std::set<std::string>{std::string("pessimistic-basic/") + to_string(LatchLayout::kHeader),
                                            std::string("pessimistic-async/") + to_string(LatchLayout::kHeader),
                                            std::string("pessimistic-async/") + to_string(LatchLayout::kPadded)}));
}

TEST(ReproNamDb, Fig16IsWellFormed) {
  const ReproFigure* f = find_repro("jasny-fig16");
  ASSERT_NE(f, nullptr);
  // 2 worker counts x 3 workloads x 5 systems x 4 skews.
  expect_well_formed(*f, 120, {112, 224}, {512});
  EXPECT_EQ(f->paper.size(), 8u);
  std::set<std::string> schemes;
  for (const ReproPoint& p : f->points) schemes.insert(p.tuples->scheme);
  EXPECT_EQ(schemes, (std::set<std::string>{"reversed-write-unlatch", "crc64", "farm", "pessimistic-async"}));
}

}  // namespace
}  // namespace lw
