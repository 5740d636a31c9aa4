// The per-thread pool of coroutine frames: a freed frame is handed out again
// for a frame of its size class, classes do not mix, the lists are bounded,
// and Tasks running through it keep their values.
#include "latchwork/runtime/frame_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "latchwork/runtime/task.h"

namespace lw {
namespace {

using detail::FramePool;

TEST(FramePool, ReusesAFreedBlockOfTheSameClass) {
  FramePool pool;
  void* a = pool.allocate(100);  // class 1 (65..128 bytes)
  std::memset(a, 0xab, 100);
  pool.release(a, 100);
  EXPECT_EQ(pool.allocate(128), a);  // same class: the same block
  void* b = pool.allocate(129);      // next class: a new block
  EXPECT_NE(b, a);
  pool.release(b, 129);
  pool.release(a, 128);
  EXPECT_EQ(pool.allocate(65), a);  // the most recently freed of its class
  pool.release(a, 65);
}

TEST(FramePool, BlocksAreAlignedToACacheLine) {
  FramePool pool;
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t bytes : {1u, 63u, 64u, 65u, 1000u, 4096u, 5000u}) {
    void* p = pool.allocate(bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % FramePool::kGrain, 0u) << bytes;
    std::memset(p, 0, bytes);  // the whole size is usable (ASan would see an overflow)
    blocks.emplace_back(p, bytes);
  }
  for (auto [p, bytes] : blocks) pool.release(p, bytes);
}

TEST(FramePool, KeepsAtMostKKeepBlocksPerClassAndNoLargeFrames) {
  FramePool pool;
  std::vector<void*> blocks;
  for (uint32_t i = 0; i < FramePool::kKeep + 10; ++i) blocks.push_back(pool.allocate(200));
  for (void* p : blocks) pool.release(p, 200);
  // The first kKeep released were kept, the last 10 went back to the system:
  // allocating again hands out exactly the kept ones first.
  std::set<void*> kept(blocks.begin(), blocks.begin() + FramePool::kKeep);
  std::vector<void*> again;
  for (uint32_t i = 0; i < FramePool::kKeep + 10; ++i) again.push_back(pool.allocate(200));
  size_t reused = 0;
  for (size_t i = 0; i < FramePool::kKeep; ++i) reused += kept.count(again[i]);
  EXPECT_EQ(reused, FramePool::kKeep);
  for (void* p : again) pool.release(p, 200);

  // The largest class holds 4 KB frames; one byte more is not kept.
  constexpr size_t kLargest = FramePool::kClasses * FramePool::kGrain;
  void* largest = pool.allocate(kLargest);
  pool.release(largest, kLargest);
  EXPECT_EQ(pool.allocate(kLargest), largest);
  pool.release(largest, kLargest);
  void* big = pool.allocate(kLargest + 1);
  std::memset(big, 0, kLargest + 1);
  pool.release(big, kLargest + 1);
}

Task<uint64_t> sum_to(uint64_t n) {
  if (n == 0) co_return 0;
  const uint64_t rest = co_await sum_to(n - 1);  // a frame per level
  co_return n + rest;
}

uint64_t run(Task<uint64_t> t) {
  auto h = t.handle();
  h.resume();  // runs to completion: nothing here suspends
  EXPECT_TRUE(t.done());
  return *h.promise().value;
}

TEST(FramePool, TasksThroughThePoolKeepTheirValues) {
  for (int round = 0; round < 3; ++round) EXPECT_EQ(run(sum_to(500)), 500u * 501 / 2);
  // Frames freed on one thread and made on another.
  std::thread other([] { EXPECT_EQ(run(sum_to(300)), 300u * 301 / 2); });
  other.join();
  EXPECT_EQ(run(sum_to(300)), 300u * 301 / 2);
}

}  // namespace
}  // namespace lw
