// Block layouts of the optimistic schemes: encode/decode round trips, and each
// check rejects the corruption it is meant to catch.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "latchwork/sync/optimistic.h"

namespace lw {
namespace {

std::vector<std::byte> payload_of(uint32_t n, uint8_t seed) {
  std::vector<std::byte> p(n);
  for (uint32_t i = 0; i < n; ++i) p[i] = std::byte(static_cast<uint8_t>(seed + i * 13));
  return p;
}

TEST(OptimisticLayout, PayloadCapacities) {
  EXPECT_EQ(OptimisticLayout(ConsistencyScheme::kVersioning, 256).payload_bytes(), 248u);
  EXPECT_EQ(OptimisticLayout(ConsistencyScheme::kCrc64, 256).payload_bytes(), 240u);
  EXPECT_EQ(OptimisticLayout(ConsistencyScheme::kBookend, 256).payload_bytes(), 240u);
  EXPECT_EQ(OptimisticLayout(ConsistencyScheme::kFarm, 256).payload_bytes(), 4u * 56);
}

TEST(OptimisticLayout, RoundTripAndDetection) {
  for (auto s : {ConsistencyScheme::kCrc64, ConsistencyScheme::kFarm, ConsistencyScheme::kBookend}) {
    OptimisticLayout l(s, 256);
    auto p = payload_of(l.payload_bytes(), 3);
    std::vector<std::byte> image(256), out(l.payload_bytes());
    l.encode(7, p, image);
    EXPECT_TRUE(l.decode(image, out)) << to_string(s);
    EXPECT_EQ(out, p);
    // A latched block is never valid.
    auto latched = image;
    latched[0] |= std::byte{1};
    EXPECT_FALSE(l.decode(latched, out)) << to_string(s);
    // Line 2 from another version: a torn block.
    std::vector<std::byte> other(256);
    l.encode(8, payload_of(l.payload_bytes(), 99), other);
    auto torn = image;
    std::memcpy(torn.data() + 128, other.data() + 128, 64);
    const bool caught = !l.decode(torn, out);
    if (s == ConsistencyScheme::kBookend) {
      EXPECT_FALSE(caught) << "bookend cannot see a torn middle";
    } else {
      EXPECT_TRUE(caught) << to_string(s);
    }
    // The last line from another version: even bookend sees that.
    auto tail = image;
    std::memcpy(tail.data() + 192, other.data() + 192, 64);
    EXPECT_FALSE(l.decode(tail, out)) << to_string(s);
  }
}

TEST(OptimisticLayout, SchemeNamesParse) {
  ConsistencyScheme s;
  for (const char* n : {"versioning", "crc64", "farm", "bookend"}) {
    ASSERT_TRUE(parse_scheme(n, &s));
    EXPECT_STREQ(to_string(s), n);
  }
  EXPECT_FALSE(parse_scheme("crc32", &s));
}

}  // namespace
}  // namespace lw
