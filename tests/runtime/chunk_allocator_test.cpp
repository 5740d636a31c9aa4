#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/verbs/chunk_allocator.h"

namespace lw {
namespace {

TEST(ChunkAllocator, AlignedDisjointAndBoundedByTheNode) {
  ClusterConfig c;
  c.memory_node_bytes = 1 << 16;  // 64 KiB: 4096 reserved, then 15 chunks of 4 KiB
  std::string err;
  auto b = make_backend(c, &err);
  ChunkAllocator a(*b, 0, 4096);
  std::vector<std::pair<uint64_t, uint64_t>> got;
  for (int i = 0;; ++i) {
    RemoteAddr r = a.allocate(100 + i % 7, i % 2 ? 64 : 8);
    if (r.is_null()) break;
    EXPECT_EQ(r.offset() % (i % 2 ? 64 : 8), 0u);
    got.push_back({r.offset(), r.offset() + 100 + i % 7});
    ASSERT_LT(i, 100000) << "allocator never ran out";
  }
  EXPECT_EQ(a.chunks(), 15u);
  std::sort(got.begin(), got.end());
  for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1].second, got[i].first);
  EXPECT_TRUE(a.allocate(5000).is_null()) << "larger than a chunk";
}

TEST(ChunkAllocator, WorkersAllocateConcurrentlyOnRealThreads) {
  ClusterConfig c;
  c.backend = "threads";
  c.compute_nodes = 2;
  c.threads_per_node = 3;
  c.memory_node_bytes = 8 << 20;
  std::string err;
  auto b = make_backend(c, &err);
  ASSERT_TRUE(b) << err;
  std::mutex mu;
  std::vector<uint64_t> all;
  Backend* backend = b.get();
  b->spawn_compute([&, backend](Worker& w) -> Task<void> {
    ChunkAllocator a(*backend, 0, 4096);
    std::vector<uint64_t> mine;
    for (int i = 0; i < 500; ++i) {
      RemoteAddr r = a.allocate(64, 64);
      EXPECT_FALSE(r.is_null());
      uint64_t v = r.raw();
      EXPECT_EQ(co_await w.write(r, &v, 8), Status::kOk);  // the memory is usable
      mine.push_back(r.offset());
    }
    std::lock_guard<std::mutex> g(mu);
    all.insert(all.end(), mine.begin(), mine.end());
  });
  b->run();
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "two workers got one address";
  EXPECT_EQ(all.size(), 6u * 500);
}

}  // namespace
}  // namespace lw
