// Released node memory handed to the next node of its size reads zero
// everywhere, as a fresh mapping does; only while a NodeMemoryReuse lives,
// and within its bound.
#include "latchwork/verbs/node_memory_reuse.h"

#include <gtest/gtest.h>

#include <vector>

#include "latchwork/verbs/node_memory.h"

namespace lw {
namespace {

constexpr uint64_t kNode = uint64_t{8} << 20;

// Writes scattered words and reads others (pages that map the zero page).
void dirty(NodeMemory& m) {
  for (uint64_t off = NodeMemory::kReservedBytes; off + 8 <= kNode; off += 12'288) *m.word(off) = off | 1;
  volatile uint64_t sink = 0;
  for (uint64_t off = NodeMemory::kReservedBytes + 4096; off + 8 <= kNode; off += 12'288) sink = sink + *m.word(off);
  *m.word(kNode - 8) = ~uint64_t{0};
}

bool reads_zero(NodeMemory& m) {
  std::vector<uint64_t> buf(kNode / 8);
  m.host_copy_out(NodeMemory::kReservedBytes, buf.data() + NodeMemory::kReservedBytes / 8,
                  kNode - NodeMemory::kReservedBytes);
  for (uint64_t w : buf)
    if (w != 0) return false;
  return true;
}

TEST(NodeMemoryReuse, AReusedNodeReadsZero) {
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  const std::byte* first = nullptr;
  {
    NodeMemory m(kNode, 0);
    first = m.bytes(NodeMemory::kReservedBytes);
    dirty(m);
  }
  EXPECT_GT(reuse.kept_bytes(), 0u);
  EXPECT_LE(reuse.kept_bytes(), kNode);
  for (int round = 0; round < 3; ++round) {
    NodeMemory m(kNode, 0);
    EXPECT_EQ(m.bytes(NodeMemory::kReservedBytes), first) << "the same mapping, handed on";
    EXPECT_TRUE(reads_zero(m)) << "round " << round;
    dirty(m);
  }
  EXPECT_EQ(reuse.reused(), 3u);
  NodeMemory other(kNode * 2, 0);  // another size: a fresh mapping
  EXPECT_EQ(reuse.reused(), 3u);
  EXPECT_TRUE(reads_zero(other));
}

TEST(NodeMemoryReuse, OnlyWhileAliveAndWithinItsBound) {
  {
    NodeMemoryReuse none(0);  // nothing fits
    { NodeMemory m(kNode, 0); dirty(m); }
    EXPECT_EQ(none.kept_bytes(), 0u);
    NodeMemory m(kNode, 0);
    EXPECT_EQ(none.reused(), 0u);
    EXPECT_TRUE(reads_zero(m));
    // A second one while the first lives does nothing.
    NodeMemoryReuse inert(uint64_t{1} << 30);
    { NodeMemory n(kNode, 0); dirty(n); }
    EXPECT_EQ(inert.kept_bytes(), 0u);
  }
  { NodeMemory m(kNode, 0); dirty(m); }  // none alive: unmapped
  NodeMemoryReuse later(uint64_t{1} << 30);
  EXPECT_EQ(later.kept_bytes(), 0u);
  NodeMemory m(kNode, 0);
  EXPECT_EQ(later.reused(), 0u);
}

}  // namespace
}  // namespace lw
