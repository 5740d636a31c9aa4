// Worker::cpu_wait_while on the threads backend: the loop of CPU loads,
// ended by another thread's store.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "latchwork/threads/threads_backend.h"

namespace lw {
namespace {

constexpr Placement kWaiter{Placement::Kind::kMemory, 0, 0, 0};
constexpr Placement kLocalWriter{Placement::Kind::kMemory, 0, 1, 0};

TEST(ThreadsCpuWait, ALoadLoopEndedByAnotherThreadsStore) {
  ClusterConfig c;
  c.compute_nodes = 1;
  c.memory_nodes = 1;
  c.memory_node_threads = 2;
  c.memory_node_bytes = 1 << 20;
  ThreadsBackend threads(c);
  const RemoteAddr word = threads.allocate(0, 64, 64);
  Worker::CpuWaitResult r;
  threads.spawn(kWaiter, [&](Worker& w) -> Task<void> { r = co_await w.cpu_wait_while(word, 0, uint64_t{1} << 40); });
  threads.spawn(kLocalWriter, [&](Worker& w) -> Task<void> { (void)co_await w.cpu_store(word, 3); });
  threads.run();
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_EQ(r.value, 3u);
  EXPECT_GE(r.polls, 1u);
}

// A bounded wait outlasts a writer that is off its core for a while: past
// a few thousand polls the waiter sleeps between polls rather than yields (a
// yield returns at once when the awaited thread is on another core's run
// queue, and a million polls then passed in milliseconds: an ALock waiter
// gave up in CI). A million polls, the lock table's default max_spins, now
// span at least 0.3 s; the writer is away 50 ms.
TEST(ThreadsCpuWait, AMillionPollsOutlastAWriterAwayFor50Ms) {
  ClusterConfig c;
  c.compute_nodes = 1;
  c.memory_nodes = 1;
  c.memory_node_threads = 2;
  c.memory_node_bytes = 1 << 20;
  ThreadsBackend threads(c);
  const RemoteAddr word = threads.allocate(0, 64, 64);
  Worker::CpuWaitResult r;
  threads.spawn(kWaiter, [&](Worker& w) -> Task<void> { r = co_await w.cpu_wait_while(word, 0, 1'000'000); });
  threads.spawn(kLocalWriter, [&](Worker& w) -> Task<void> {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    (void)co_await w.cpu_store(word, 3);
  });
  threads.run();
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_EQ(r.value, 3u) << r.polls << " polls saw the word unchanged";
}

}  // namespace
}  // namespace lw
