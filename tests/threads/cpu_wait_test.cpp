// Worker::cpu_wait_while on the threads backend: the loop of CPU loads,
// ended by another thread's store.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace lw
