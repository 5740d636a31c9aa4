// Host images (verbs/host_image.h): a node that installs an image reads
// exactly the captured bytes and keeps everything outside the range,
// whatever the range's alignment; nodes and the image stay independent.
#include "latchwork/verbs/host_image.h"

#include <gtest/gtest.h>

#include <vector>

#include "latchwork/verbs/node_memory.h"
#include "latchwork/verbs/node_memory_reuse.h"

namespace lw {
namespace {

constexpr uint64_t kNode = uint64_t{4} << 20;

// A pattern with whole zero pages (holes in the image's file) among others.
std::byte pattern(uint64_t off) {
  if ((off / 4096) % 3 == 1) return std::byte{0};
  return static_cast<std::byte>((off * 2654435761u) >> 13 | 1);
}

void fill(NodeMemory& m, uint64_t lo, uint64_t hi) {
  for (uint64_t off = lo; off < hi; ++off) *m.bytes(off) = pattern(off);
}

std::shared_ptr<const HostImage> capture(NodeMemory& m, uint64_t lo, uint64_t hi) {
  return HostImage::capture(lo, hi - lo, [&](uint64_t off, std::byte* dst, uint64_t len) {
    m.host_copy_out(off, dst, len);
  });
}

std::vector<std::byte> read(NodeMemory& m, uint64_t lo, uint64_t hi) {
  std::vector<std::byte> out(hi - lo);
  m.host_copy_out(lo, out.data(), out.size());
  return out;
}

// Ranges: unaligned at both ends, page aligned, inside one page, to the
// node's last byte.
struct Range {
  uint64_t lo, hi;
};
const Range kRanges[] = {{8192 + 136, 8192 * 40 + 72}, {4096 * 3, 4096 * 30}, {4096 * 5 + 64, 4096 * 5 + 1024},
                         {kNode - 4096 * 7 - 8, kNode}};

TEST(HostImage, AnInstalledImageReadsAsTheCapturedBytes) {
  for (const Range& r : kRanges) {
    NodeMemory src(kNode, 0);
    fill(src, r.lo, r.hi);
    auto img = capture(src, r.lo, r.hi);
    ASSERT_TRUE(img);
    EXPECT_EQ(img->offset(), r.lo);
    EXPECT_EQ(img->bytes(), r.hi - r.lo);
    EXPECT_LT(img->stored_bytes(), r.hi - r.lo + 8192) << "zero pages are holes";

    NodeMemory dst(kNode, 0);
    // Bytes of the pages around the range, outside it, are another's: kept.
    const uint64_t before = r.lo - r.lo % 4096, after = std::min(kNode, (r.hi + 4095) / 4096 * 4096);
    if (before >= NodeMemory::kReservedBytes) fill(dst, before, r.lo);
    fill(dst, r.hi, after);
    dst.install_image(*img);
    EXPECT_EQ(read(dst, r.lo, r.hi), read(src, r.lo, r.hi)) << "range " << r.lo << ".." << r.hi;
    if (before >= NodeMemory::kReservedBytes) {
      for (uint64_t off = before; off < r.lo; ++off) ASSERT_EQ(*dst.bytes(off), pattern(off)) << off;
    }
    for (uint64_t off = r.hi; off < after; ++off) ASSERT_EQ(*dst.bytes(off), pattern(off)) << off;
    // A page away from the range: still zero.
    const uint64_t far = r.hi + 8192 <= kNode ? (r.hi + 8192) & ~uint64_t{7} : (r.lo - 8192) & ~uint64_t{7};
    EXPECT_EQ(*dst.word(far), 0u);
  }
}

TEST(HostImage, WritesStayInTheirNode) {
  const Range r = kRanges[0];
  NodeMemory src(kNode, 0);
  fill(src, r.lo, r.hi);
  auto img = capture(src, r.lo, r.hi);
  ASSERT_TRUE(img);
  const std::vector<std::byte> want = read(src, r.lo, r.hi);
  NodeMemory a(kNode, 0), b(kNode, 0);
  a.install_image(*img);
  b.install_image(*img);
  // Into a mapped page, a hole page and an edge page of `a`.
  for (uint64_t off : {r.lo, r.lo + 4096 * 2, r.lo + 4096 * 4 + 8, r.hi - 8}) *a.word(off & ~uint64_t{7}) = ~off;
  EXPECT_NE(read(a, r.lo, r.hi), want);
  EXPECT_EQ(read(b, r.lo, r.hi), want);
  std::vector<std::byte> again(r.hi - r.lo);
  img->read(r.lo, r.hi, again.data());
  EXPECT_EQ(again, want) << "the image itself is unchanged";
  NodeMemory c(kNode, 0);
  c.install_image(*img);
  EXPECT_EQ(read(c, r.lo, r.hi), want);
}

TEST(HostImage, ANodeReusedAfterAnImageReadsZero) {
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  const Range r = kRanges[1];
  std::shared_ptr<const HostImage> img;
  {
    NodeMemory src(kNode, 0);
    fill(src, r.lo, r.hi);
    img = capture(src, r.lo, r.hi);
  }
  ASSERT_TRUE(img);
  { NodeMemory m(kNode, 0); m.install_image(*img); }
  const uint64_t before = reuse.reused();
  NodeMemory next(kNode, 0);
  EXPECT_EQ(reuse.reused(), before + 1);
  const std::vector<std::byte> zeros(r.hi - r.lo);
  EXPECT_EQ(read(next, r.lo, r.hi), zeros);
}

}  // namespace
}  // namespace lw
