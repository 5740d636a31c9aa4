#include <gtest/gtest.h>

#include "cli/flags.h"

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

TEST(Flags, ARetiredFlagIsRefusedWithItsMessageInBothSpellings) {
  Parsed p;
  p.f.retire("old", "--old was split: use --s or --e");
  EXPECT_EQ(p.parse({"--old", "x"}), "--old was split: use --s or --e");
  Parsed q;
  q.f.retire("old", "--old was split: use --s or --e");
  EXPECT_EQ(q.parse({"--old=x"}), "--old was split: use --s or --e");
  EXPECT_EQ(q.parse({"--older"}), "unknown flag --older");
}

TEST(Flags, HelpListsEveryFlagWithItsDefault) {
  Parsed p;
  EXPECT_EQ(p.parse({"--help"}), "");
  EXPECT_TRUE(p.f.help_requested());
  std::string h = p.f.help_text();
  for (const char* s : {"usage: cmd", "does things", "--n", "default 3", "a|b", "--help"})
    EXPECT_NE(h.find(s), std::string::npos) << s;
}

TEST(Flags, NumbersAreParsedWholeWithoutWrapAround) {
  struct Case {
    std::vector<const char*> args;
    const char* expect;
  } cases[] = {
      {{"--u", " -1"}, "is not a non-negative integer"},  // strtoull would give 2^64 - 1
      {{"--u", "-1"}, "is not a non-negative integer"},
      {{"--u", "+5"}, "is not a non-negative integer"},
      {{"--u", "18446744073709551616"}, "out of range"},
      {{"--u", "0x10"}, "is not a non-negative integer"},
      {{"--u="}, "is not a non-negative integer"},
      {{"--n", " 4"}, "is not an integer"},
      {{"--n", "99999999999999999999"}, "out of range [1, 10]"},
      {{"--n", "-"}, "is not an integer"},
      {{"--d", "nan"}, "is not a number"},
      {{"--d", "inf"}, "is not a number"},
      {{"--d", "1e999"}, "out of range"},
      {{"--d", "0x1p3"}, "is not a number"},
      {{"--d", " 1"}, "is not a number"},
  };
  for (const Case& k : cases) {
    Parsed p;
    const std::string e = p.parse(k.args);
    EXPECT_NE(e.find(k.expect), std::string::npos) << k.args[0] << " gave: " << e;
    EXPECT_EQ(p.u, 7u);
    EXPECT_EQ(p.n, 3);
  }
}

TEST(Flags, UnsignedAndDoubleRangesAreCheckedAndShown) {
  uint64_t u = 5;
  double d = 1;
  FlagSet f{"cmd", "does things"};
  f.add_uint("u", &u, "bounded", 1, 100);
  f.add_double("d", &d, "bounded", 0.5, 2);
  const char* bad_u[] = {"--u", "101"};
  EXPECT_NE(f.parse(2, bad_u).find("--u: 101 is out of range [1, 100]"), std::string::npos);
  const char* bad_d[] = {"--d", "1e-300"};
  EXPECT_NE(f.parse(2, bad_d).find("out of range"), std::string::npos);
  const char* good[] = {"--u", "100", "--d", "2"};
  EXPECT_EQ(f.parse(4, good), "");
  EXPECT_EQ(u, 100u);
  EXPECT_NE(f.help_text().find("uint in [1, 100]"), std::string::npos) << f.help_text();
}

TEST(Flags, ReplayArgsRepeatEveryGivenFlagInRegistrationOrder) {
  Parsed p;
  // Given out of order; the replay lists them as registered, skips what the
  // caller writes itself, and quotes for the shell.
  EXPECT_EQ(p.parse({"--s", "it's a b", "--b", "--u", "9", "--n=4", "--d", "0.1"}), "");
  EXPECT_EQ(p.f.replay_args({"u"}), " --n 4 --d 0.10000000000000001 --s 'it'\\''s a b' --b=true");
  Parsed q;
  EXPECT_EQ(q.f.replay_args(), "");  // nothing given, nothing repeated (no defaults such as --e a)
  EXPECT_EQ(shell_quote("/tmp/x.json"), "/tmp/x.json");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
}

}  // namespace
}  // namespace lw::cli
