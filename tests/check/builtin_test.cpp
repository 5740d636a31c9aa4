// The built-in structures through the check driver: the negative controls
// are caught and explained by the relaxation that broke them, the correct
// schemes show no failure, and operations that merely starve are reports.
#include "latchwork/check/builtin.h"

#include <gtest/gtest.h>

#include <set>

#include "latchwork/structures/jasny/tuple_store.h"

namespace lw::check {
namespace {

struct Found {
  Report report;
  std::set<std::string> kinds, explanations, causes;
};

Found sweep(BuiltinOptions b, const std::string& profile, uint64_t seeds, const ClusterConfig* base = nullptr,
            uint32_t ops = 30, bool failed_cas_writes_back = false) {
  ClusterConfig c = base ? *base : Options::default_cluster();
  EXPECT_EQ(c.set_profile(profile), "");
  if (failed_cas_writes_back) c.semantics.failed_cas_writes_back = true;  // on by name only
  Options o = builtin_check_options(b, c);
  o.seeds = seeds;
  o.shape.ops_per_worker = ops;
  EXPECT_EQ(b.validate(o), "");
  Found f;
  f.report = run(builtin_workload(b), o);
  EXPECT_GT(f.report.ops, 0u);
  for (const Finding& x : f.report.findings) {
    EXPECT_FALSE(x.detail.empty());
    EXPECT_NE(x.replay.find("run_seed"), std::string::npos) << x.replay;  // no replay_line set
    f.kinds.insert(x.kind);
    if (x.explained) f.explanations.insert(x.explanation());
    for (const std::string& c : x.causes) f.causes.insert(c.substr(0, c.find_first_of(": ")));
  }
  return f;
}

BuiltinOptions tuples(const std::string& scheme) {
  BuiltinOptions b;
  b.scheme = scheme;
  return b;
}

TEST(Builtin, BookendTornReadsAreCaughtAndNeedLineOrder) {
  Found f = sweep(tuples("bookend"), "spec", 60);
  EXPECT_GT(f.report.failing_seeds, 0u);
  EXPECT_TRUE(f.kinds.count("torn-read"));
  EXPECT_TRUE(f.explanations.count("read_lines_unordered")) << "explanations seen: " << f.explanations.size();
}

TEST(Builtin, InPlaceMarkingIsCaughtToo) {
  Found f = sweep(tuples("in-place-marking"), "spec", 30);
  EXPECT_GT(f.report.failing_seeds, 0u);
  EXPECT_TRUE(f.causes.count("read_lines_unordered"));
}

TEST(Builtin, WriteUnlatchWithFaaReadersLeavesALatchHeld) {
  Found f = sweep(tuples("write-unlatch-faa"), "spec", 10);
  ASSERT_TRUE(f.kinds.count("stuck-latch"));
  for (const Finding& x : f.report.findings) {
    if (x.kind == "stuck-latch") {
      EXPECT_NE(x.detail.find("latch word"), std::string::npos) << x.detail;
    }
  }
}

TEST(Builtin, NegativeControlsPassWithoutRelaxations) {
  // Under `sequential` the swarm draws no relaxation: bookend and in-place
  // marking only break because of them.
  EXPECT_TRUE(sweep(tuples("bookend"), "sequential", 20).report.clean());
  EXPECT_TRUE(sweep(tuples("in-place-marking"), "sequential", 20).report.clean());
}

TEST(Builtin, CorrectSchemesShowNoFailureOverSeeds) {
  for (const BuiltinInfo& i : builtins()) {
    if (!i.correct || i.structure != "tuples") continue;
    Found f = sweep(tuples(i.scheme), "spec", 12);
    EXPECT_EQ(f.report.failing_seeds, 0u) << i.scheme << ": " << f.report.summary();
  }
}

// write-unlatch-cas, reversed-write-unlatch and out-of-place free a word that
// others CAS with a WRITE. Where a failed CAS writes back the value it read
// (Soft-RoCE; failed_cas_writes_back, on by name) a waiter's CAS rewrites the latched word over the free:
// the latch stays taken (a stuck latch, every later access gives up). Found
// when failed_cas_writes_back was added; the ablation names it.
TEST(Builtin, WriteFreedCasWordsStickWhereAFailedCasWritesBack) {
  for (const BuiltinInfo& i : builtins()) {
    if (!i.needs_silent_failed_cas) continue;
    Semantics on = Semantics::spec();
    on.failed_cas_writes_back = true;
    EXPECT_TRUE(i.correct && i.correct_under(Semantics::spec()) && !i.correct_under(on)) << i.scheme;
    BuiltinOptions b = tuples(i.scheme);
    Found f = sweep(b, "spec", 12, nullptr, 30, /*failed_cas_writes_back=*/true);
    EXPECT_GT(f.report.failing_seeds, 0u) << i.scheme;
    EXPECT_TRUE(f.kinds.count(kind::kStuckLatch)) << i.scheme << ": " << f.report.summary();
    bool named = false;
    for (const std::string& e : f.explanations) named |= e.find("failed_cas_writes_back") != std::string::npos;
    EXPECT_TRUE(named) << i.scheme << ": " << f.report.summary();
  }
}

// One key, few attempts: correct schemes give up often, but every latch is
// free afterwards, so it is starvation, a report and not a failure; a
// negative control still fails.
TEST(Builtin, StarvationIsAReportNotAFailure) {
  BuiltinOptions b = tuples("pessimistic-async");
  b.keys = 1;
  b.max_attempts = 10;
  Found f = sweep(b, "spec", 5, nullptr, 100);
  EXPECT_EQ(f.report.failing_seeds, 0u) << f.report.summary();
  EXPECT_GT(f.report.reports_total, 0u);
  ASSERT_FALSE(f.report.findings.empty());
  EXPECT_EQ(f.report.findings.front().kind, kind::kStarvation);
  EXPECT_FALSE(f.report.findings.front().failure);
  b.scheme = "write-unlatch-faa";
  EXPECT_GT(sweep(b, "spec", 10, nullptr, 100).report.failing_seeds, 0u);
}

// Retransmitted Latch Tuple packets executed twice by the switch leave a
// tuple unlatched under its writer; suppressing duplicates by PSN (§5.5)
// prevents it.
TEST(Builtin, SwitchDuplicatesBreakLatchingUnlessSuppressedByPsn) {
  for (const bool suppress : {false, true}) {
    ClusterConfig c = Options::default_cluster();
    c.network.programmable_switch.duplicate_percent = 20;
    c.network.programmable_switch.suppress_duplicates = suppress;
    Found f = sweep(tuples("switch-optimistic"), "spec", 4, &c);
    if (suppress) {
      EXPECT_TRUE(f.report.clean()) << f.report.summary();
    } else {
      EXPECT_GT(f.report.failing_seeds, 0u);
      EXPECT_TRUE(f.causes.count("switch_duplicate"));
    }
  }
}

TEST(Builtin, SameSeedSameRun) {
  const BuiltinOptions b = tuples("versioning");
  const Options o = builtin_check_options(b, Options::default_cluster());
  EXPECT_EQ(run_seed(builtin_workload(b), o, 7).trace_hash, run_seed(builtin_workload(b), o, 7).trace_hash);
  EXPECT_NE(run_seed(builtin_workload(b), o, 7).trace_hash, run_seed(builtin_workload(b), o, 8).trace_hash);
}

TEST(Builtin, BadOptionsAreNamed) {
  BuiltinOptions b = tuples("md5");
  EXPECT_NE(b.validate().find("unknown scheme"), std::string::npos);
  b.scheme = "versioning";
  b.tuple_bytes = 100;
  EXPECT_NE(b.validate().find("multiple of 64"), std::string::npos);
  b.tuple_bytes = 256;
  b.structure = "btree";  // versioning is a tuple scheme
  EXPECT_NE(b.validate().find("btree-optimistic and btree-pessimistic"), std::string::npos);
  b.structure = "skiplist";
  EXPECT_NE(b.validate().find("tuples, btree, hash, locks or sherman"), std::string::npos);
  // The store must fit the check's memory nodes: 4096 x 16 KiB does not.
  b = tuples("versioning");
  b.keys = 4096;
  b.tuple_bytes = 16384;
  ASSERT_EQ(b.validate(), "");
  EXPECT_NE(b.validate(builtin_check_options(b, Options::default_cluster())).find("no room"), std::string::npos);
}

TEST(Builtin, TheRegistryDescribesEveryScheme) {
  std::set<std::string> listed;
  for (const BuiltinInfo& i : builtins()) {
    EXPECT_NE(i.description, "(no description)") << i.scheme;
    if (i.structure == "tuples") {
      listed.insert(i.scheme);
      EXPECT_EQ(i.correct, tuple_scheme_is_correct(i.scheme)) << i.scheme;
    }
  }
  for (const std::string& s : tuple_scheme_names()) EXPECT_TRUE(listed.count(s)) << s;
  EXPECT_EQ(builtin_schemes("btree"), (std::vector<std::string>{"btree-optimistic", "btree-pessimistic"}));
  EXPECT_EQ(find_builtin("btree", "bookend"), nullptr);
}

// The B-tree under both couplings: splits race lookups, and the structure
// (order, fences, sibling links, free latches) is checked after each run.
// It caught an in-place root split that copied the left child's smallest
// key into the root's first slot (the minus-infinity fence).
TEST(Builtin, BTreeSchemesShowNoFailureOverSeeds) {
  for (const std::string& s : builtin_schemes("btree")) {
    BuiltinOptions b;
    b.structure = "btree";
    b.scheme = s;
    b.keys = 200;
    Found f = sweep(b, "spec", 30);
    EXPECT_TRUE(f.report.clean()) << s << ": " << f.report.summary();
  }
}

}  // namespace
}  // namespace lw::check
