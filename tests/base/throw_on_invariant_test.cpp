// ThrowOnInvariant (assert.h): inside a scope a violated invariant throws
// InvariantViolation with the full report; outside, it still aborts.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "latchwork/base/assert.h"

namespace lw {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(ThrowOnInvariant, ThrowsTheFullReport) {
  set_run_context("sim seed=77 profile=spec");
  ThrowOnInvariant scope;
  try {
    const int x = 3;
    LW_CHECK_MSG(x == 4, "x must be four");
    ADD_FAILURE() << "LW_CHECK did not throw";
  } catch (const InvariantViolation& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "invariant violated: x == 4")) << what;
    EXPECT_TRUE(contains(what, "throw_on_invariant_test.cpp:")) << what;
    EXPECT_TRUE(contains(what, "x must be four")) << what;
    EXPECT_TRUE(contains(what, "sim seed=77")) << what;
  }
  set_run_context({});
}

TEST(ThrowOnInvariant, ScopesNestAndDefaultIsRestored) {
  {
    ThrowOnInvariant outer;
    {
      ThrowOnInvariant inner;
    }
    EXPECT_THROW(LW_CHECK(false), InvariantViolation);  // the outer scope is still alive
  }
  EXPECT_DEATH(LW_CHECK_MSG(false, "aborts again"), "invariant violated: false(.|\n)*aborts again");
}

TEST(ThrowOnInvariant, IsPerThread) {
  ThrowOnInvariant scope;
  EXPECT_DEATH(
      {
        std::thread t([] { LW_CHECK_MSG(false, "other thread"); });
        t.join();
      },
      "other thread");
}

}  // namespace
}  // namespace lw
