// Released node memory handed to the next node of its size reads zero
// everywhere, as a fresh mapping does; only while a NodeMemoryReuse lives,
// and within its bound.
#include "verbs/node_memory_reuse.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <vector>

#include "latchwork/sim/sim_backend.h"
#include "verbs/node_memory.h"

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

// Pages of the node's host memory resident now (mincore), of those given.
uint64_t resident(NodeMemory& m, uint64_t from, uint64_t to) {
  std::byte* base = m.bytes(0);
  std::vector<unsigned char> in((kNode + 4095) / 4096);
  EXPECT_EQ(mincore(base, kNode, in.data()), 0);
  uint64_t n = 0;
  for (uint64_t p = from / 4096; p < to / 4096; ++p) n += in[p] & 1;
  return n;
}

// A tracked node (the simulator's): its owner notes the pages it writes;
// handing it on zeroes exactly those, keeps them resident and scans nothing.
TEST(NodeMemoryReuse, ATrackedNodeZeroesTheNotedPagesAndKeepsThemResident) {
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  {
    NodeMemory m(kNode, 0, /*track_writes=*/true);
    for (uint64_t off = NodeMemory::kReservedBytes; off + 8 <= kNode; off += 12'288) {
      *m.word(off) = off | 1;
      m.note_written(off, off + 8);
    }
    const std::vector<uint64_t> words(1000, 7);  // 8000 bytes over three pages
    m.host_copy_in(kNode / 2 + 4000, words.data(), 8000);
  }
  for (int round = 0; round < 3; ++round) {
    NodeMemory m(kNode, 0, true);
    if (round == 0) {
      // Every page written before is still resident; the ones between were
      // never touched (reading them below maps the shared zero page, which
      // mincore counts too).
      EXPECT_EQ(resident(m, NodeMemory::kReservedBytes, NodeMemory::kReservedBytes + 4096), 1u);
      EXPECT_EQ(resident(m, NodeMemory::kReservedBytes + 4096, NodeMemory::kReservedBytes + 12'288), 0u);
      EXPECT_EQ(resident(m, kNode / 2, kNode / 2 + 3 * 4096), 3u);
    }
    EXPECT_TRUE(reads_zero(m)) << "round " << round;
    *m.word(kNode - 8) = 5;
    m.note_written(kNode - 8, kNode);
  }
  EXPECT_EQ(reuse.reused(), 3u);
}

// The simulator notes every store: WRITE lines, NIC atomics, CPU stores, host
// writes. Whatever a run wrote, the next node handed the memory reads zero.
TEST(NodeMemoryReuse, ASimulatedRunLeavesTheNextNodeZero) {
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  ClusterConfig c;
  c.compute_nodes = 1;
  c.threads_per_node = 2;
  c.memory_nodes = 1;
  c.memory_node_threads = 1;
  c.memory_node_bytes = kNode;
  for (int round = 0; round < 3; ++round) {
    SimBackend sim(c);
    const RemoteAddr a = sim.allocate(0, kNode / 2, 4096);
    std::vector<uint64_t> all(kNode / 2 / 8);
    sim.host_read(a, all.data(), kNode / 2);
    for (uint64_t w : all) ASSERT_EQ(w, 0u) << "round " << round;
    sim.host_store(a + 8, 1);
    for (uint32_t t = 0; t < 2; ++t) {
      sim.spawn({Placement::Kind::kCompute, 0, t, 0}, [=](Worker& w) -> Task<void> {
        std::vector<uint64_t> line(64, 0x5a5a);
        for (uint64_t i = 0; i < 64; ++i) {
          const RemoteAddr at = a + ((i * 7919 + t * 4099) % (kNode / 2 / 64)) * 64;
          if (i % 3 == 0) (void)co_await w.write(at, line.data(), 64);
          if (i % 3 == 1) (void)co_await w.faa(at, 3);
          if (i % 3 == 2) (void)co_await w.cas(at + 8, 0, 9);
        }
      });
    }
    sim.spawn({Placement::Kind::kMemory, 0, 0, 0}, [=](Worker& w) -> Task<void> {
      for (uint64_t i = 0; i < 32; ++i) (void)co_await w.cpu_store(a + i * 40'960 + 16, i + 1);
    });
    sim.run();
  }
  EXPECT_GE(reuse.reused(), 2u);
}

}  // namespace
}  // namespace lw
