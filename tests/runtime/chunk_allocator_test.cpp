#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/verbs/chunk_allocator.h"

namespace lw {
namespace {

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

void expect_disjoint(Ranges got) {
  std::sort(got.begin(), got.end());
  for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1].second, got[i].first) << i;
}

TEST(ChunkAllocator, HostSideAlignedDisjointAndBoundedByTheNode) {
  ClusterConfig c;
  c.memory_node_bytes = 1 << 16;  // 64 KiB: 4096 reserved, then 15 chunks of 4 KiB
  std::string err;
  auto b = make_backend(c, &err);
  ChunkAllocator a(0, 4096);
  Ranges got;
  for (int i = 0;; ++i) {
    RemoteAddr r = a.allocate(*b, 100 + i % 7, i % 2 ? 64 : 8);
    if (r.is_null()) break;
    EXPECT_EQ(r.offset() % (i % 2 ? 64 : 8), 0u);
    got.push_back({r.offset(), r.offset() + 100 + i % 7});
    ASSERT_LT(i, 100000) << "allocator never ran out";
  }
  EXPECT_EQ(a.chunks(), 15u);
  expect_disjoint(got);
  EXPECT_TRUE(a.allocate(*b, 5000).is_null()) << "larger than a chunk";
}

// Every coroutine of a thread shares one allocator; chunks come by RPC.
// Returns the ranges handed out, after checking they are usable memory.
Ranges shared_by_coroutines(const std::string& backend, uint32_t threads, uint32_t coroutines,
                            uint64_t node_bytes, uint64_t chunk, int per_worker, uint64_t* chunks) {
  ClusterConfig c;
  c.backend = backend;
  c.threads_per_node = threads;
  c.coroutines_per_thread = coroutines;
  c.memory_node_bytes = node_bytes;
  std::string err;
  auto b = make_backend(c, &err);
  EXPECT_TRUE(b) << err;
  if (!b) return {};
  std::vector<std::unique_ptr<ChunkAllocator>> allocs;
  for (uint32_t t = 0; t < threads; ++t) allocs.push_back(std::make_unique<ChunkAllocator>(0, chunk));
  std::mutex mu;
  Ranges all;
  b->spawn_compute([&](Worker& w) -> Task<void> {
    ChunkAllocator& a = *allocs[w.placement().thread];
    Ranges mine;
    for (int i = 0; i < per_worker; ++i) {
      const uint64_t bytes = 24 + 8 * (i % 5);
      RemoteAddr r = co_await a.allocate(w, bytes, i % 3 == 0 ? 64 : 8);
      if (r.is_null()) break;  // the node is out of chunks
      EXPECT_EQ(r.offset() % (i % 3 == 0 ? 64 : 8), 0u);
      const uint64_t v = r.raw();
      EXPECT_EQ(co_await w.write(r, &v, 8), Status::kOk);  // the memory is usable
      mine.push_back({r.offset(), r.offset() + bytes});
    }
    std::lock_guard<std::mutex> g(mu);
    all.insert(all.end(), mine.begin(), mine.end());
  });
  b->run();
  *chunks = 0;
  for (auto& a : allocs) *chunks += a->chunks();
  return all;
}

TEST(ChunkAllocator, CoroutinesShareOneAllocatorOnSim) {
  uint64_t chunks = 0;
  Ranges r = shared_by_coroutines("sim", 2, 4, 8 << 20, 4096, 200, &chunks);
  EXPECT_EQ(r.size(), 2u * 4 * 200);
  expect_disjoint(r);
  // One chunk at a time per thread: waiting coroutines do not take their own.
  uint64_t bytes = 0;
  for (auto& [lo, hi] : r) bytes += hi - lo;
  EXPECT_LE(chunks, 2 * (bytes / (4096 - 64 - 64) + 2));
}

TEST(ChunkAllocator, NodeRunsOutOnSim) {
  uint64_t chunks = 0;
  // 64 KiB: 15 chunks of 4 KiB after the reserved page, shared by 2 threads.
  Ranges r = shared_by_coroutines("sim", 2, 3, 1 << 16, 4096, 10'000, &chunks);
  EXPECT_EQ(chunks, 15u);
  EXPECT_LT(r.size(), 6u * 10'000);
  expect_disjoint(r);
}

TEST(ChunkAllocator, DefaultChunkIsShermans8MiB) {
  ChunkAllocator a(0);
  EXPECT_EQ(a.chunk_bytes(), 8ull << 20);
}

TEST(ChunkAllocator, CoroutinesShareOneAllocatorOnRealThreads) {
  uint64_t chunks = 0;
  Ranges r = shared_by_coroutines("threads", 3, 4, 8 << 20, 4096, 300, &chunks);
  EXPECT_EQ(r.size(), 3u * 4 * 300);
  expect_disjoint(r);
  EXPECT_GE(chunks, 3u);
}

}  // namespace
}  // namespace lw
