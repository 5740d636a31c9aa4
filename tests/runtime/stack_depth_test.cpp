// Regression (found by the ASan build, TornRead.RunsOnRealThreads): a lone
// coroutine on the threads backend completed every verb synchronously, so a
// long loop of awaited Tasks nested on the stack until it overflowed at -O0.
#include <gtest/gtest.h>

#include "latchwork/backends.h"

namespace lw {
namespace {

Task<uint64_t> bump(Worker& w, RemoteAddr x) {
  auto r = co_await w.faa(x, 1);
  co_return r.value;
}

TEST(StackDepth, LongLoopOfAwaitedTasksStaysFlat) {
  for (const char* backend : {"sim", "threads"}) {
    ClusterConfig c;
    c.backend = backend;
    std::string err;
    auto b = make_backend(c, &err);
    ASSERT_TRUE(b) << err;
    RemoteAddr x = b->allocate(0, 8, 8);
    constexpr uint64_t kIterations = 200000;
    b->spawn({Placement::Kind::kCompute, 0, 0, 0}, [x](Worker& w) -> Task<void> {
      for (uint64_t i = 0; i < kIterations; ++i) EXPECT_EQ(co_await bump(w, x), i);
    });
    b->run();
    EXPECT_EQ(b->host_load(x), kIterations) << backend;
  }
}

}  // namespace
}  // namespace lw
