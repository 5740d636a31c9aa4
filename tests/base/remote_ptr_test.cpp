#include <gtest/gtest.h>

#include "latchwork/base/random.h"
#include "latchwork/base/remote_ptr.h"
#include "latchwork/verbs/work_request.h"

namespace lw {
namespace {

TEST(RemotePtr, PacksNodeAndOffset) {
  RemoteAddr a(0xBEEF, 0x123456789ABCull);
  EXPECT_EQ(a.node(), 0xBEEF);
  EXPECT_EQ(a.offset(), 0x123456789ABCull);
  EXPECT_EQ(RemoteAddr::from_raw(a.raw()), a);
  EXPECT_TRUE(RemoteAddr().is_null());
  EXPECT_FALSE(a.is_null());
  EXPECT_EQ((a + 4).offset(), 0x123456789AC0ull);
  EXPECT_EQ((a + 4).node(), 0xBEEF);
}

TEST(RemotePtr, TypedArithmeticMovesByElements) {
  struct Twelve {
    char b[12];
  };
  RemotePtr<Twelve> p(3, 1000);
  EXPECT_EQ((p + 2).offset(), 1024u);
  EXPECT_EQ((p - 1).offset(), 988u);
  EXPECT_EQ(p.cast<uint64_t>().offset(), 1000u);
  EXPECT_EQ((p + 2).node(), 3);
}

TEST(Rng, SameSeedSameStreamAndBounded) {
  Rng a(5), b(5), c(6);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs = differs || x != c.next();
  }
  EXPECT_TRUE(differs);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(a.below(7), 7u);
  EXPECT_EQ(a.below(0), 0u);
}

TEST(MaskedAdd, CarriesStopAtFieldBoundaries) {
  const uint64_t halves = (uint64_t{1} << 31) | (uint64_t{1} << 63);
  EXPECT_EQ(masked_add(0x00000001FFFFFFFFull, 1, halves), 0x0000000100000000ull);
  EXPECT_EQ(masked_add(0x00000001FFFFFFFFull, 1, 0), 0x0000000200000000ull);
  const uint64_t bytes = 0x8080808080808080ull;
  EXPECT_EQ(masked_add(0x00FF00FF00FF00FFull, 0x0101010101010101ull, bytes), 0x0100010001000100ull);
}

}  // namespace
}  // namespace lw
