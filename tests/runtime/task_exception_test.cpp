// Task exceptions (task.h): an exception leaving a Task's body is rethrown by
// the co_await of its awaiter, and a top-level Task keeps it for its runner.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "latchwork/runtime/task.h"

namespace lw {
namespace {

Task<int> fails(std::string why) {
  throw std::runtime_error(why);
  co_return 1;
}

Task<int> doubles(int x) { co_return 2 * x; }

Task<int> adds_after_failure(int* reached) {
  int v = co_await doubles(20);
  ++*reached;
  v += co_await fails("inner");
  ++*reached;  // not reached: the awaited Task failed
  co_return v;
}

// Runs a top-level Task to completion (these never suspend on anything else).
template <typename T>
void run(Task<T>& t) {
  t.handle().resume();
  ASSERT_TRUE(t.done());
}

TEST(TaskException, PropagatesThroughAwaitsAndStopsTheAwaiter) {
  int reached = 0;
  Task<int> t = adds_after_failure(&reached);
  run(t);
  EXPECT_EQ(reached, 1);
  ASSERT_NE(t.exception(), nullptr);
  try {
    t.rethrow_if_failed();
    ADD_FAILURE() << "rethrow_if_failed did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "inner");
  }
}

TEST(TaskException, AnAwaiterCanCatchAndGoOn) {
  auto outer = []() -> Task<int> {
    int v = 0;
    try {
      v = co_await fails("caught");
    } catch (const std::runtime_error& e) {
      v = std::string(e.what()) == "caught" ? 7 : -1;
    }
    co_return v + co_await doubles(1);
  };
  Task<int> t = outer();
  run(t);
  EXPECT_EQ(t.exception(), nullptr);
  EXPECT_NO_THROW(t.rethrow_if_failed());
  // The value is reachable through an awaiter as before.
  auto top = [&]() -> Task<void> { EXPECT_EQ(co_await std::move(t), 9); };
  Task<void> tv = top();
  run(tv);
  EXPECT_EQ(tv.exception(), nullptr);
}

TEST(TaskException, VoidTasksAndUnfinishedTasksReportNone) {
  auto thrower = []() -> Task<void> {
    throw std::logic_error("void task");
    co_return;
  };
  Task<void> t = thrower();
  EXPECT_EQ(t.exception(), nullptr);  // not started
  Task<void> empty;
  EXPECT_EQ(empty.exception(), nullptr);
  run(t);
  EXPECT_THROW(t.rethrow_if_failed(), std::logic_error);
}

TEST(TaskException, InvariantViolationTravelsLikeAnyException) {
  auto checks = []() -> Task<int> {
    LW_CHECK_MSG(1 + 1 == 3, "arithmetic broke");
    co_return 0;
  };
  auto outer = [&]() -> Task<int> { co_return co_await checks(); };
  Task<int> t = outer();
  {
    ThrowOnInvariant scope;
    run(t);
  }
  try {
    t.rethrow_if_failed();
    ADD_FAILURE() << "no exception";
  } catch (const InvariantViolation& e) {
    EXPECT_NE(std::string(e.what()).find("1 + 1 == 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("arithmetic broke"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lw
