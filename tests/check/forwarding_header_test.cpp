// A program written against a moved public header still compiles: the old
// path forwards to the new one (and prints where it went).
#include "latchwork/checkers/history.h"

#include <gtest/gtest.h>

namespace lw {
namespace {

TEST(ForwardingHeaders, TheOldHistoryPathStillDeclaresTheHistory) {
  History h;
  HistoryOp op;
  op.kind = HistoryOp::Kind::kWrite;
  op.value = 7;
  h.record(op);
  EXPECT_EQ(h.size(), 1u);
}

}  // namespace
}  // namespace lw
