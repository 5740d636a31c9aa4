// The slicing-by-8 CRC-64/XZ against the published check value and against
// a bit-at-a-time CRC written from the polynomial alone (no tables), over
// every length and alignment a word loop can get wrong, and across chained
// updates.
#include "latchwork/base/crc64.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace lw {
namespace {

// CRC-64/XZ one bit at a time: reflected ECMA-182, init and xorout all ones.
uint64_t crc64_bitwise(const void* data, size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t crc = ~uint64_t{0};
  for (size_t i = 0; i < len; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0xC96C5795D7870F42ull : crc >> 1;
  }
  return ~crc;
}

TEST(Crc64, MatchesTheCatalogueCheckValue) {
  // CRC-64/XZ's check value: the CRC of the nine ASCII digits "123456789".
  const char digits[] = "123456789";
  EXPECT_EQ(crc64(digits, 9), 0x995DC9BBDF1939FAull);
  EXPECT_EQ(crc64_bitwise(digits, 9), 0x995DC9BBDF1939FAull);
  EXPECT_EQ(crc64(digits, 0), 0u);
}

TEST(Crc64, EqualsTheBitwiseCrcAtEveryLengthAndAlignment) {
  std::mt19937_64 rng(7);
  std::vector<unsigned char> buf(4096 + 16);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  for (size_t align = 0; align < 8; ++align) {
    for (size_t len = 0; len <= 200; ++len)
      ASSERT_EQ(crc64(buf.data() + align, len), crc64_bitwise(buf.data() + align, len))
          << "length " << len << ", offset " << align;
    ASSERT_EQ(crc64(buf.data() + align, 4096), crc64_bitwise(buf.data() + align, 4096));
  }
}

TEST(Crc64, ChainedUpdatesEqualOnePass) {
  std::mt19937_64 rng(11);
  std::vector<unsigned char> buf(1000);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  for (size_t cut = 0; cut <= buf.size(); cut += 37) {
    const uint64_t first = crc64_update(0, buf.data(), cut);
    EXPECT_EQ(crc64_update(first, buf.data() + cut, buf.size() - cut), crc64(buf.data(), buf.size())) << cut;
  }
}

}  // namespace
}  // namespace lw
