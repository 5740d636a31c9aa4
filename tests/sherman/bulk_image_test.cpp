// A bulk load inside a NodeMemoryReuse (repro, check) installs the kept
// image of an equal earlier load: every byte of node memory is the one the
// build writes, also after runs that wrote over the tree; another key set
// or other options build their own.
#include <gtest/gtest.h>

#include <vector>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/structures/sherman/tree.h"
#include "verbs/node_memory.h"
#include "verbs/node_memory_reuse.h"

namespace lw::sherman {
namespace {

constexpr uint64_t kNodeBytes = 16ull << 20;
constexpr uint64_t kRead = 4ull << 20;  // the tree's chunks, and room past them

ClusterConfig cluster() {
  ClusterConfig c;
  c.compute_nodes = 1;
  c.threads_per_node = 1;
  c.memory_nodes = 2;
  c.memory_node_bytes = kNodeBytes;
  return c;
}

TreeConfig tree_config(uint32_t node_bytes) {
  TreeConfig t;
  t.node_bytes = node_bytes;
  t.chunk_bytes = 1ull << 20;
  t.lock.locks_per_node = 4096;
  return t;
}

std::vector<std::pair<uint64_t, uint64_t>> pairs(uint64_t n, uint64_t salt) {
  std::vector<std::pair<uint64_t, uint64_t>> p;
  for (uint64_t i = 0; i < n; ++i) p.emplace_back(16 + i * 6, i * 31 + salt);
  return p;
}

// Both nodes' memory after the load; then (scribble) a run writes junk over
// the first leaves.
std::vector<std::byte> loaded(const TreeConfig& t, uint64_t n, uint64_t salt, bool scribble) {
  SimBackend sim(cluster());
  Result<Tree> tree = Tree::create(sim, t);
  EXPECT_TRUE(tree.ok());
  EXPECT_EQ(tree.value.bulk_load(sim, pairs(n, salt)), Status::kOk);
  std::vector<std::byte> out(2 * (kRead - NodeMemory::kReservedBytes));
  for (NodeId m = 0; m < 2; ++m)
    sim.host_read(RemoteAddr(m, NodeMemory::kReservedBytes), out.data() + m * (kRead - NodeMemory::kReservedBytes),
                  kRead - NodeMemory::kReservedBytes);
  std::string why;
  EXPECT_EQ(tree.value.host_contents(sim, &why).value.size(), n) << why;
  if (scribble) {
    sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
      std::vector<std::byte> junk(t.node_bytes, std::byte{0xa5});
      for (uint64_t off = 1u << 20; off < (1u << 20) + 64 * t.node_bytes; off += t.node_bytes)
        for (NodeId m = 0; m < 2; ++m) (void)co_await w.write(RemoteAddr(m, off), junk.data(), t.node_bytes);
    });
    sim.run();
  }
  return out;
}

TEST(ShermanBulkImage, AnInstalledTreeIsTheBuiltOne) {
  const TreeConfig t = tree_config(256);
  const std::vector<std::byte> built = loaded(t, 6000, 0, false);
  const std::vector<std::byte> other_values = loaded(t, 6000, 1, false);
  const std::vector<std::byte> bigger_nodes = loaded(tree_config(512), 6000, 0, false);
  EXPECT_NE(other_values, built);
  EXPECT_NE(bigger_nodes, built);
  ASSERT_FALSE(NodeMemoryReuse::active());

  NodeMemoryReuse reuse(uint64_t{1} << 30);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(loaded(t, 6000, 0, true), built) << "round " << round;
    EXPECT_EQ(loaded(t, 6000, 1, true), other_values) << "round " << round;
    EXPECT_EQ(loaded(tree_config(512), 6000, 0, true), bigger_nodes) << "round " << round;
  }
  EXPECT_GE(reuse.reused(), 12u);
}

}  // namespace
}  // namespace lw::sherman
