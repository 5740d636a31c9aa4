// Latch placement (Jasny et al. Fig. 6): where each layout puts latch and
// data, and that padding spreads 4 KB-strided latches over lock-table slots.
#include "latchwork/sync/latch_layout.h"

#include <gtest/gtest.h>

#include <set>

namespace lw {
namespace {

constexpr uint64_t kSlotBits = 0xfff;  // the NIC's lock table hashes the low 12 bits

TEST(TupleLayout, PlacesLatchAndDataPerLayout) {
  const RemoteAddr region(0, 1 << 20), latches(0, 2 << 20);
  TupleLayout header(LatchLayout::kHeader, 248);
  EXPECT_EQ(header.stride(), 256u);
  EXPECT_EQ(header.latch(region, latches, 2), region + 512);
  EXPECT_EQ(header.data(region, 2), region + 520);
  TupleLayout footer(LatchLayout::kFooter, 248);
  EXPECT_EQ(footer.data(region, 1), region + 256);
  EXPECT_EQ(footer.latch(region, latches, 1), region + 256 + 248);  // right after the data
  EXPECT_TRUE(footer.latch_follows_data());
  TupleLayout padded(LatchLayout::kPadded, 248);
  EXPECT_EQ(padded.stride(), 264u);
  EXPECT_EQ(padded.latch(region, latches, 1), region + 264 + 8);
  EXPECT_EQ(padded.data(region, 1), region + 264 + 16);
  TupleLayout decoupled(LatchLayout::kDecoupled, 256);
  EXPECT_EQ(decoupled.stride(), 256u);
  EXPECT_EQ(decoupled.latch(region, latches, 3), latches + 24);
  EXPECT_EQ(decoupled.data(region, 3), region + 768);
  EXPECT_EQ(decoupled.latch_array_bytes(10), 80u);
  EXPECT_EQ(header.latch_array_bytes(10), 0u);
}

TEST(TupleLayout, PaddingSpreadsFourKilobyteLatchesOverLockSlots) {
  const RemoteAddr region(0, 1 << 20), none;
  std::set<uint64_t> header_slots, padded_slots, decoupled_slots;
  TupleLayout header(LatchLayout::kHeader, 4088), padded(LatchLayout::kPadded, 4088),
      decoupled(LatchLayout::kDecoupled, 4096);
  for (uint64_t i = 0; i < 64; ++i) {
    header_slots.insert(header.latch(region, none, i).offset() & kSlotBits);
    padded_slots.insert(padded.latch(region, none, i).offset() & kSlotBits);
    decoupled_slots.insert(decoupled.latch(region, RemoteAddr(0, 8 << 20), i).offset() & kSlotBits);
  }
  EXPECT_EQ(header_slots.size(), 1u);   // Fig. 6(b)(i): every latch in one slot
  EXPECT_EQ(padded_slots.size(), 64u);  // Fig. 6(b)(ii)
  EXPECT_EQ(decoupled_slots.size(), 64u);  // Fig. 6(b)(iii)
}

TEST(TupleLayout, ParsesNames) {
  LatchLayout l;
  EXPECT_TRUE(parse_latch_layout("padded", &l));
  EXPECT_EQ(l, LatchLayout::kPadded);
  EXPECT_FALSE(parse_latch_layout("sideways", &l));
}

}  // namespace
}  // namespace lw
