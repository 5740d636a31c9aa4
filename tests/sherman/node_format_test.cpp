// Node layouts of the three schemes: capacities, encode/decode round trips,
// and torn images rejected by each scheme's check.
#include "node_format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace lw::sherman {
namespace {

const Scheme kSchemes[] = {Scheme::kTwoLevel, Scheme::kPerLine, Scheme::kFgPlus};

Node sample_leaf(const NodeFormat& f, uint16_t version) {
  Node n = f.empty_leaf();
  n.low = 100;
  n.high = 10000;
  n.sibling = RemoteAddr(1, 4096);
  n.version = version;
  const uint32_t cap = f.leaf_capacity();
  if (f.sorted_leaves()) {
    for (uint32_t i = 0; i < cap - 1; ++i) n.entries.push_back({100 + 3 * i, 7 * i + 1, 0, false});
  } else {
    // Unsorted, with holes.
    for (uint32_t i = 0; i < cap; ++i)
      if (i % 3 != 1) n.entries[i] = {9000 - 5 * i, i * 11 + 2, static_cast<uint8_t>(i % 16), false};
  }
  return n;
}

Node sample_internal(const NodeFormat& f, uint16_t version) {
  Node n;
  n.level = 2;
  n.low = kMinKey;
  n.high = kInfinity;
  n.version = version;
  n.children.push_back(RemoteAddr(0, 64));
  for (uint32_t i = 0; i < f.internal_capacity(); ++i) {
    n.keys.push_back(10 + 10 * i);
    n.children.push_back(RemoteAddr(static_cast<NodeId>(i % 3), 1024 * (i + 2)));
  }
  return n;
}

void expect_same(const Node& a, const Node& b) {
  EXPECT_EQ(a.level, b.level);
  EXPECT_EQ(a.free, b.free);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_EQ(a.sibling, b.sibling);
  EXPECT_EQ(a.version, b.version);
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (size_t i = 0; i < a.entries.size(); ++i) {
    EXPECT_EQ(a.entries[i].key, b.entries[i].key) << i;
    EXPECT_EQ(a.entries[i].value, b.entries[i].value) << i;
    EXPECT_FALSE(b.entries[i].torn);
  }
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(a.children, b.children);
}

TEST(ShermanNodeFormat, CapacitiesAt1KB) {
  EXPECT_EQ(NodeFormat(Scheme::kTwoLevel, 1024, 8).leaf_capacity(), 55u);
  EXPECT_EQ(NodeFormat(Scheme::kTwoLevel, 1024, 8).internal_capacity(), 61u);
  EXPECT_EQ(NodeFormat(Scheme::kPerLine, 1024, 8).leaf_capacity(), 46u);
  EXPECT_EQ(NodeFormat(Scheme::kPerLine, 1024, 8).internal_capacity(), 59u);
  EXPECT_EQ(NodeFormat(Scheme::kFgPlus, 1024, 8).leaf_capacity(), 61u);
  EXPECT_EQ(NodeFormat(Scheme::kFgPlus, 1024, 8).internal_capacity(), 61u);
  // The two-level entry: FEV, key, value, REV.
  EXPECT_EQ(NodeFormat(Scheme::kTwoLevel, 1024, 8).entry_bytes(), 18u);
  EXPECT_EQ(NodeFormat(Scheme::kPerLine, 1024, 8).entry_bytes(), 16u);
  // Larger keys: fewer entries; per-line entries never straddle a line.
  const NodeFormat pl(Scheme::kPerLine, 1024, 32);
  EXPECT_EQ(pl.leaf_capacity(), 15u);  // 40-byte entries: one per line
  for (uint32_t i = 0; i < pl.leaf_capacity(); ++i) {
    EXPECT_TRUE(pl.entry_writable(i));
    EXPECT_EQ(pl.entry_offset(i) / 64, (pl.entry_offset(i) + pl.entry_bytes() - 1) / 64);
  }
  // Entries larger than a line's payload straddle and are not writable alone.
  const NodeFormat big(Scheme::kPerLine, 4096, 128);
  EXPECT_GT(big.leaf_capacity(), 2u);
  EXPECT_FALSE(big.entry_writable(0));
}

TEST(ShermanNodeFormat, RoundTripEveryScheme) {
  for (Scheme s : kSchemes)
    for (uint32_t kb : {8u, 16u, 64u}) {
      SCOPED_TRACE(std::string(to_string(s)) + " key " + std::to_string(kb));
      const NodeFormat f(s, 1024, kb);
      std::vector<std::byte> img(1024);
      for (const Node& n : {sample_leaf(f, 5), sample_internal(f, 9)}) {
        f.encode(n, img.data());
        Node d;
        std::string why;
        ASSERT_TRUE(f.decode(img.data(), &d, &why)) << why;
        expect_same(n, d);
      }
    }
}

TEST(ShermanNodeFormat, EntryWriteCarriesTheEntryOnly) {
  for (Scheme s : {Scheme::kTwoLevel, Scheme::kPerLine}) {
    const NodeFormat f(s, 1024, 8);
    Node n = sample_leaf(f, 3);
    std::vector<std::byte> before(1024), after(1024);
    f.encode(n, before.data());
    n.entries[4] = {777, 888, static_cast<uint8_t>((n.entries[4].version + 1) & 0xf), false};
    f.encode(n, after.data());
    // The images differ only inside slot 4's entry range.
    const uint32_t off = f.entry_offset(4), len = f.entry_bytes();
    for (uint32_t i = 0; i < 1024; ++i)
      if (i < off || i >= off + len) {
        ASSERT_EQ(before[i], after[i]) << to_string(s) << " byte " << i;
      }
    // An old image with the new entry patched in decodes to the new node.
    std::memcpy(before.data() + off, after.data() + off, len);
    Node d;
    ASSERT_TRUE(f.decode(before.data(), &d));
    EXPECT_EQ(d.entries[4].key, 777u);
    EXPECT_EQ(d.entries[4].value, 888u);
    if (s == Scheme::kPerLine) {
      const LeafEntry e = f.decode_entry(after.data() + off);
      EXPECT_EQ(e.key, 777u);
      EXPECT_EQ(e.value, 888u);
    }
  }
}

TEST(ShermanNodeFormat, TwoLevelRejectsMismatchedVersions) {
  const NodeFormat f(Scheme::kTwoLevel, 1024, 8);
  std::vector<std::byte> a(1024), b(1024), mixed(1024);
  Node n = sample_leaf(f, 4);
  f.encode(n, a.data());
  n.version = 5;
  n.high = 5000;
  f.encode(n, b.data());
  // The first half from the new image, the rest from the old one.
  std::memcpy(mixed.data(), b.data(), 512);
  std::memcpy(mixed.data() + 512, a.data() + 512, 512);
  Node d;
  std::string why;
  EXPECT_FALSE(f.decode(mixed.data(), &d, &why));
  EXPECT_NE(why.find("FNV"), std::string::npos) << why;
  // An entry whose FEV and REV differ decodes as torn (the node check passes).
  a = b;
  const uint32_t off = f.entry_offset(0);
  a[off] = static_cast<std::byte>((static_cast<uint8_t>(a[off]) + 1) & 0xf);
  ASSERT_TRUE(f.decode(a.data(), &d));
  EXPECT_TRUE(d.entries[0].torn);
  EXPECT_FALSE(d.entries[2].torn);
}

TEST(ShermanNodeFormat, PerLineRejectsALineOfAnotherVersion) {
  for (bool internal : {false, true}) {
    const NodeFormat f(Scheme::kPerLine, 1024, 8);
    std::vector<std::byte> a(1024), b(1024);
    Node n = internal ? sample_internal(f, 7) : sample_leaf(f, 7);
    f.encode(n, a.data());
    n.version = 8;
    f.encode(n, b.data());
    for (uint32_t line : {0u, 5u, 15u}) {
      std::vector<std::byte> mixed = a;
      std::memcpy(mixed.data() + 64 * line, b.data() + 64 * line, 64);
      Node d;
      EXPECT_FALSE(f.decode(mixed.data(), &d)) << "line " << line;
    }
    Node d;
    EXPECT_TRUE(f.decode(b.data(), &d));
  }
}

TEST(ShermanNodeFormat, FgPlusRejectsAFlippedByte) {
  const NodeFormat f(Scheme::kFgPlus, 1024, 8);
  std::vector<std::byte> a(1024);
  for (const Node& n : {sample_leaf(f, 1), sample_internal(f, 1)}) {
    f.encode(n, a.data());
    for (uint32_t at : {0u, 40u, 500u, 1015u, 1020u}) {
      std::vector<std::byte> bad = a;
      bad[at] ^= std::byte{0x10};
      Node d;
      std::string why;
      EXPECT_FALSE(f.decode(bad.data(), &d, &why)) << at;
    }
  }
}

}  // namespace
}  // namespace lw::sherman
