// The registry by which a `latchwork node` process's backend finds the
// memory its own in-process memory node serves (local_region.h).
#include "local_region.h"

#include <gtest/gtest.h>

#include <vector>

namespace lw::rdma {
namespace {

TEST(LocalRegion, FoundByInstanceUntilWithdrawn) {
  std::vector<std::byte> a(4096), b(8192);
  LocalRegion got;
  EXPECT_FALSE(find_local_region(0x1234, &got));
  publish_local_region({0x1234, a.data(), a.size()});
  publish_local_region({0x5678, b.data(), b.size()});
  ASSERT_TRUE(find_local_region(0x1234, &got));
  EXPECT_EQ(got.base, a.data());
  EXPECT_EQ(got.bytes, 4096u);
  ASSERT_TRUE(find_local_region(0x5678, &got));
  EXPECT_EQ(got.base, b.data());
  withdraw_local_region(0x1234);
  EXPECT_FALSE(find_local_region(0x1234, &got));
  EXPECT_TRUE(find_local_region(0x5678, &got));
  withdraw_local_region(0x5678);
  EXPECT_FALSE(find_local_region(0x5678, &got));
  EXPECT_FALSE(find_local_region(0, &got));  // "no instance" in an old node's hello
}

}  // namespace
}  // namespace lw::rdma
