// The flip table on the NIC model (virtual time): the orderings Jasny et al.
// §4.4-4.5 report for 256-byte tuples hold in the model.
#include "repro/jasny/flip_table.h"

#include <gtest/gtest.h>

namespace lw {
namespace {

TEST(FlipTable, SmallTuplesFlipFromPessimisticToOptimisticWithWorkers) {
  const std::vector<FlipRow> rows = run_flip_table("cx5-100g");
  ASSERT_EQ(rows.size(), 5u);
  for (const FlipRow& r : rows) {
    EXPECT_GT(r.pessimistic_mops, 0);
    EXPECT_GT(r.farm_mops, 0);
    if (r.tuple_bytes != 256) continue;
    EXPECT_TRUE(r.agrees) << r.workers << " workers: model says " << r.ahead << ", paper " << r.paper_ahead;
  }
  EXPECT_EQ(rows[2].workers, 128u);
  EXPECT_GT(rows[2].ratio, 1.3);  // "almost twice" in the paper
}

}  // namespace
}  // namespace lw
