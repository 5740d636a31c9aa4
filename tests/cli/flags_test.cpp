#include <gtest/gtest.h>

#include "latchwork/cli/flags.h"

namespace lw::cli {
namespace {

struct Parsed {
  int64_t n = 3;
  uint64_t u = 7;
  double d = 0.5;
  std::string s = "x", e = "a";
  bool b = false;
  FlagSet f{"cmd", "does things"};
  Parsed() {
    f.add_int("n", &n, "an int", 1, 10);
    f.add_uint("u", &u, "a uint");
    f.add_double("d", &d, "a double");
    f.add_string("s", &s, "a string");
    f.add_enum("e", &e, {"a", "b"}, "a choice");
    f.add_bool("b", &b, "a switch");
  }
  std::string parse(std::vector<const char*> args) {
    return f.parse(static_cast<int>(args.size()), args.data());
  }
};

TEST(Flags, ParsesBothSpellingsAndRecordsWhatWasSet) {
  Parsed p;
  EXPECT_EQ(p.parse({"--n", "4", "--u=9", "--d", "2.5", "--s=hello", "--e", "b", "--b", "pos"}), "");
  EXPECT_EQ(p.n, 4);
  EXPECT_EQ(p.u, 9u);
  EXPECT_EQ(p.d, 2.5);
  EXPECT_EQ(p.s, "hello");
  EXPECT_EQ(p.e, "b");
  EXPECT_TRUE(p.b);
  EXPECT_TRUE(p.f.was_set("n"));
  EXPECT_EQ(p.f.positional(), std::vector<std::string>{"pos"});
  Parsed q;
  EXPECT_EQ(q.parse({"--b=false"}), "");
  EXPECT_FALSE(q.b);
  EXPECT_FALSE(q.f.was_set("n"));
}

TEST(Flags, ErrorsNameTheFlagAndTheProblem) {
  struct Case {
    std::vector<const char*> args;
    const char* expect;
  } cases[] = {
      {{"--nope"}, "unknown flag --nope"},
      {{"--n"}, "--n needs a value"},
      {{"--n", "x"}, "--n: \"x\" is not an integer"},
      {{"--n", "11"}, "out of range [1, 10]"},
      {{"--u", "-1"}, "not a non-negative integer"},
      {{"--d", "1.5x"}, "not a number"},
      {{"--e", "c"}, "not one of a, b"},
      {{"--b=maybe"}, "not true or false"},
  };
  for (auto& c : cases) {
    Parsed p;
    std::string e = p.parse(c.args);
    EXPECT_NE(e.find(c.expect), std::string::npos) << "got: " << e;
  }
}

TEST(Flags, HelpListsEveryFlagWithItsDefault) {
  Parsed p;
  EXPECT_EQ(p.parse({"--help"}), "");
  EXPECT_TRUE(p.f.help_requested());
  std::string h = p.f.help_text();
  for (const char* s : {"usage: cmd", "does things", "--n", "default 3", "a|b", "--help"})
    EXPECT_NE(h.find(s), std::string::npos) << s;
}

}  // namespace
}  // namespace lw::cli
