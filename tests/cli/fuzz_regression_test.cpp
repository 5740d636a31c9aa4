// Flag inputs the fuzz target fuzz/fuzz_flags.cpp found misparsed, kept as
// regression tests.
#include <gtest/gtest.h>

#include "cli/flags.h"

namespace lw::cli {
namespace {

// strtoull skips leading blanks and then accepts a minus sign: " -5" (one
// argument, as a shell passes "--seed ' -5'") became 2^64 - 5.
TEST(FlagsFuzzRegression, UnsignedFlagRejectsANegativeAfterBlanks) {
  for (const char* v : {" -5", "\t-1", "  -18446744073709551615", "-0", " -0"}) {
    uint64_t u = 7;
    FlagSet f("t", "");
    f.add_uint("u", &u, "unsigned");
    const char* argv[] = {"--u", v};
    EXPECT_NE(f.parse(2, argv), "") << "\"" << v << "\"";
    EXPECT_EQ(u, 7u) << "\"" << v << "\"";
  }
  uint64_t u = 0;
  FlagSet f("t", "");
  f.add_uint("u", &u, "unsigned");
  const char* argv[] = {"--u=18446744073709551615"};
  EXPECT_EQ(f.parse(1, argv), "");
  EXPECT_EQ(u, 18446744073709551615ull);
}

}  // namespace
}  // namespace lw::cli
