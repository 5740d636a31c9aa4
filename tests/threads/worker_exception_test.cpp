// The threads backend cannot go on past a failed worker: it names the worker
// and prints the exception's message before terminating.
#include <gtest/gtest.h>

#include <stdexcept>

#include "latchwork/threads/threads_backend.h"

namespace lw {
namespace {

TEST(ThreadsWorkerExceptionDeathTest, PrintsWhatThenTerminates) {
  EXPECT_DEATH(
      {
        ClusterConfig c;
        ThreadsBackend backend(c);
        const RemoteAddr x = backend.allocate(0, 8, 8);
        backend.spawn({Placement::Kind::kCompute, 0, 0, 0}, [x](Worker& w) -> Task<void> {
          co_await w.faa(x, 1);
          throw std::runtime_error("worker gave up");
        });
        backend.run();
      },
      "worker at compute 0 thread 0 coroutine 0 ended with an exception: worker gave up");
}

}  // namespace
}  // namespace lw
