// The tuple store's initial tuples installed as a host image (inside a
// NodeMemoryReuse, on the simulator) are byte for byte the tuples it writes
// one by one elsewhere, the first time and when a kept mapping already
// holds them; a run's writes do not reach the next store.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/structures/jasny/tuple_store.h"
#include "verbs/node_memory_reuse.h"

namespace lw {
namespace {

ClusterConfig cluster() {
  ClusterConfig c;
  c.compute_nodes = 1;
  c.threads_per_node = 1;
  c.memory_nodes = 3;
  c.memory_node_bytes = 4u << 20;
  return c;
}

TupleStoreOptions crc_tuples() {
  TupleStoreOptions o;
  EXPECT_EQ(parse_tuple_scheme("crc64", &o), "");
  o.tuple_bytes = 192;
  o.tuples = 3000;  // 1000 per node: not a whole number of pages
  return o;
}

// Every node's tuple region, and a page past it, as the store left them;
// after `scribble` wrote over every tuple of node 0 in a run.
std::vector<std::byte> regions(bool scribble) {
  SimBackend sim(cluster());
  std::unique_ptr<TupleStore> store;
  EXPECT_EQ(TupleStore::create(sim, crc_tuples(), &store), "");
  const uint64_t bytes = 1000 * 192 + 4096;
  std::vector<std::byte> out(3 * bytes);
  for (uint64_t n = 0; n < 3; ++n) sim.host_read(store->key_range(n).first, out.data() + n * bytes, bytes);
  if (scribble) {
    sim.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
      std::vector<std::byte> junk(192, std::byte{0xee});
      for (uint64_t k = 0; k < 3000; k += 3) (void)co_await w.write(store->key_range(k).first, junk.data(), 192);
    });
    sim.run();
  }
  return out;
}

TEST(TupleStoreImage, InstalledTuplesAreTheWrittenOnes) {
  const std::vector<std::byte> written = regions(false);
  const uint64_t bytes = 1000 * 192 + 4096;
  ASSERT_FALSE(NodeMemoryReuse::active());
  // Each 192-byte tuple carries its checksum: nothing here is all zero.
  uint64_t nonzero = 0;
  for (std::byte b : written) nonzero += b != std::byte{0};
  EXPECT_GT(nonzero, 3000u);
  for (uint64_t n = 0; n < 3; ++n)
    for (uint64_t at = 1000 * 192; at < bytes; ++at) ASSERT_EQ(written[n * bytes + at], std::byte{0}) << n;

  NodeMemoryReuse reuse(uint64_t{1} << 30);
  for (int round = 0; round < 3; ++round) EXPECT_EQ(regions(true), written) << "round " << round;
  EXPECT_GE(reuse.reused(), 6u);
}

}  // namespace
}  // namespace lw
