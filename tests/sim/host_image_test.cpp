// Host images (verbs/host_image.h): a node that installs an image reads
// exactly the captured bytes and keeps everything outside the range,
// whatever the range's alignment; nodes and the image stay independent.
#include "verbs/host_image.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "latchwork/sim/sim_backend.h"
#include "verbs/node_memory.h"
#include "verbs/node_memory_reuse.h"

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

// What the mapping holds, as a run's accesses see it (no host copy: a held
// image stays held).
std::vector<std::byte> read_raw(NodeMemory& m, uint64_t lo, uint64_t hi) {
  std::vector<std::byte> out(hi - lo);
  std::memcpy(out.data(), m.bytes(lo), out.size());
  return out;
}

// Ranges: unaligned at both ends, page aligned, inside one page, to the
// node's last byte.
struct Range {
  uint64_t lo, hi;
};
const Range kRanges[] = {{8192 + 136, 8192 * 40 + 72}, {4096 * 3, 4096 * 30}, {4096 * 5 + 64, 4096 * 5 + 1024},
                         {kNode - 4096 * 7 - 8, kNode}};

// An image of the pattern over `r`, captured from a node of its own.
std::shared_ptr<const HostImage> pattern_image(const Range& r) {
  NodeMemory src(kNode, 0);
  fill(src, r.lo, r.hi);
  return capture(src, r.lo, r.hi);
}

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
  const std::shared_ptr<const HostImage> img = pattern_image(r);
  ASSERT_TRUE(img);
  { NodeMemory m(kNode, 0); m.install_image(*img); }
  const uint64_t before = reuse.reused();
  NodeMemory next(kNode, 0);
  EXPECT_EQ(reuse.reused(), before + 1);
  const std::vector<std::byte> zeros(r.hi - r.lo);
  EXPECT_EQ(read(next, r.lo, r.hi), zeros);
}

// A tracked node hands its installed image on with its mapping: the next
// node of its slot holds the image's bytes before it installs anything (no
// copy), the pages its predecessor wrote are the image's again, and a node
// that does not install it reads zero.
TEST(HostImage, AKeptMappingHoldsItsImageForTheNextNodeOfItsSlot) {
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  const Range r = kRanges[0];  // unaligned at both ends
  const std::shared_ptr<const HostImage> img = pattern_image(r);
  ASSERT_TRUE(img);
  std::vector<std::byte> want(r.hi - r.lo);
  img->read(r.lo, r.hi, want.data());
  const std::vector<std::byte> zeros(r.hi - r.lo);
  // Stores inside the image (a mapped page and a hole page) and beside it.
  const uint64_t stores[] = {r.lo & ~uint64_t{7}, (r.lo + 4096 * 2) & ~uint64_t{7}, (r.hi + 8) & ~uint64_t{7},
                             uint64_t{3} << 20};
  {
    NodeMemory m(kNode, 0, /*track_writes=*/true, /*reuse_slot=*/4);
    m.install_image(*img);
    for (uint64_t off : stores) {
      *m.word(off) = ~off;
      m.note_written(off, off + 8);
    }
  }
  {
    NodeMemory other(kNode, 0, true, /*reuse_slot=*/9);  // another slot: takes it all the same
    EXPECT_EQ(read_raw(other, r.lo, r.hi), want) << "held before any install: nothing to copy";
    EXPECT_TRUE(other.install_image(*img));
    EXPECT_EQ(read(other, r.lo, r.hi), want);
    for (uint64_t off : stores) {
      if (off < r.lo || off >= r.hi) {
        EXPECT_EQ(*other.word(off), 0u) << off;
      }
    }
  }
  {
    NodeMemory m(kNode, 0, true, 9);
    m.settle();  // not installed: the image is dropped
    EXPECT_EQ(read_raw(m, r.lo, r.hi), zeros);
  }
  {
    NodeMemory m(kNode, 0, true, 9);  // the kept mapping now holds no image
    EXPECT_EQ(read(m, r.lo, r.hi), zeros);
  }
}

// Nodes of one slot alternate between two images and none: a node that
// does not install the image its mapping holds trades the mapping for a
// zero one, so each image stays held and is found again by the next node
// that installs it, whichever mapping its slot handed it.
TEST(HostImage, AnInstallFindsTheKeptMappingHoldingItsImage) {
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  std::shared_ptr<const HostImage> imgs[2];
  std::vector<std::byte> want[2];
  for (int i = 0; i < 2; ++i) {
    imgs[i] = pattern_image(kRanges[i]);
    ASSERT_TRUE(imgs[i]);
    want[i].resize(kRanges[i].hi - kRanges[i].lo);
    imgs[i]->read(kRanges[i].lo, kRanges[i].hi, want[i].data());
  }
  for (int round = 0; round < 9; ++round) {
    const int which = round % 3;  // image 0, image 1, none
    NodeMemory m(kNode, 0, /*track_writes=*/true);
    if (which == 2) {
      m.settle();
      for (const Range& r : {kRanges[0], kRanges[1]})
        EXPECT_EQ(read_raw(m, r.lo, r.hi), std::vector<std::byte>(r.hi - r.lo)) << "round " << round;
      continue;
    }
    // From round 3 on, a kept mapping holds it, whatever this node was handed.
    EXPECT_EQ(m.install_image(*imgs[which]), round >= 3) << "round " << round << ": installed without a copy";
    const Range r = kRanges[which];
    EXPECT_EQ(read_raw(m, r.lo, r.hi), want[which]) << "round " << round;
    const Range other = kRanges[1 - which];
    if (other.hi <= r.lo || other.lo >= r.hi) {
      EXPECT_EQ(read_raw(m, other.lo, other.hi), std::vector<std::byte>(other.hi - other.lo)) << "round " << round;
    }
    *m.word(r.lo & ~uint64_t{7}) = 99;  // a run's store, undone before the next
    m.note_written(r.lo & ~uint64_t{7}, (r.lo & ~uint64_t{7}) + 8);
  }
}

// Copying in or out of a held image's range drops it first; an untracked node
// (the threads backend) never holds one.
TEST(HostImage, AHeldImageReadsZeroUntilInstalled) {
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  const Range r = kRanges[1];
  const std::shared_ptr<const HostImage> img = pattern_image(r);
  ASSERT_TRUE(img);
  const std::vector<std::byte> zeros(r.hi - r.lo);
  auto kept = [&] {
    NodeMemory m(kNode, 0, true);
    m.install_image(*img);
  };
  kept();
  {
    NodeMemory m(kNode, 0, true);
    const uint64_t w = 5;
    m.host_copy_in(r.hi + 64, &w, 8);  // beside the image: it stays held
    EXPECT_NE(read_raw(m, r.lo, r.hi), zeros);
    EXPECT_EQ(read(m, r.lo, r.hi), zeros) << "copied out as a fresh node's";
  }
  kept();
  {
    NodeMemory m(kNode, 0, /*track_writes=*/false);
    EXPECT_EQ(read_raw(m, r.lo, r.hi), zeros);
  }
  kept();
  {
    NodeMemory m(kNode, 0, true);
    const uint64_t w = 5;
    m.host_copy_in(r.lo + 4096, &w, 8);
    std::vector<std::byte> got = read_raw(m, r.lo, r.hi);
    std::vector<std::byte> expect = zeros;
    std::memcpy(expect.data() + 4096, &w, 8);
    EXPECT_EQ(got, expect);
  }
}

// The same through the simulator: a run's stores over an installed store
// image are undone for the next point, which installs the image for free;
// a point that installs nothing reads zero once its run starts.
TEST(HostImage, SimulatedPointsReuseTheImageTheirNodeHeld) {
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  ClusterConfig c;
  c.compute_nodes = 1;
  c.threads_per_node = 1;
  c.memory_nodes = 2;
  c.memory_node_bytes = kNode;
  const Range r = kRanges[0];
  const std::shared_ptr<const HostImage> img = pattern_image(r);
  ASSERT_TRUE(img);
  std::vector<std::byte> want(r.hi - r.lo);
  img->read(r.lo, r.hi, want.data());
  for (int round = 0; round < 3; ++round) {
    SimBackend sim(c);
    sim.host_install_image(1, *img);
    const RemoteAddr at(1, (r.lo + 4096) & ~uint64_t{63});
    const RemoteAddr beside(0, r.lo & ~uint64_t{63});  // node 0 holds no image
    uint64_t line_back[8] = {};
    sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
      uint64_t before = 0;
      (void)co_await w.read(&before, at, 8);
      uint64_t expect = 0;
      std::memcpy(&expect, want.data() + (at.offset() - r.lo), 8);
      EXPECT_EQ(before, expect) << "round " << round;
      (void)co_await w.read(line_back, beside, 64);
      for (uint64_t v : line_back) EXPECT_EQ(v, 0u) << "round " << round;
      (void)co_await w.faa(at, 1);
      std::vector<uint64_t> line(8, 0x77);
      (void)co_await w.write(RemoteAddr(1, r.hi + 4096 * 3), line.data(), 64);
      (void)co_await w.write(beside, line.data(), 64);
    });
    sim.run();
    std::vector<std::byte> got(r.hi - r.lo);
    sim.host_read(RemoteAddr(1, r.lo), got.data(), got.size());
    EXPECT_NE(got, want) << "the FAA landed";
  }
  SimBackend sim(c);  // installs nothing: node 1 reads zero when the run starts
  sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker&) -> Task<void> { co_return; });
  sim.run();
  std::vector<std::byte> got(r.hi - r.lo);
  sim.host_read(RemoteAddr(1, r.lo), got.data(), got.size());
  EXPECT_EQ(got, std::vector<std::byte>(r.hi - r.lo));
  EXPECT_GE(reuse.reused(), 6u);
}

}  // namespace
}  // namespace lw
