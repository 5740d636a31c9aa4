// ReproSession: a point whose run inputs equal an earlier point's takes that
// point's result instead of simulating again. Only equal runs may share, and
// the copy must be exactly what the point's own run gives.
#include <gtest/gtest.h>

#include <string>

#include "repro/repro.h"
#include "repro/repro_session.h"

namespace lw {
namespace {

ReproPoint small_read(const std::string& series, double x, uint32_t threads) {
  ClusterConfig c = repro_sync_cluster("cx6-200g", 1, threads, 1ull << 20);
  c.coroutines_per_thread = 2;
  PerfOptions o;
  o.op = Opcode::kRead;
  o.random_region = 256ull << 10;
  o.warmup_ns = 5'000;
  o.measure_ns = 30'000;
  return ReproPoint::of_perf(series, x, c, o);
}

TEST(ReproSession, SameRunIgnoresNamesButNoRunInput) {
  const ReproPoint p = small_read("read", 2, 2);
  ReproPoint named = p;
  named.series = "another";
  named.x = 7;
  named.panel = "a panel";
  named.metric = "p99_us";
  named.x_metric = "mops";
  EXPECT_TRUE(same_run(p, p));
  EXPECT_TRUE(same_run(p, named));

  auto differs = [&p](const char* what, auto change) {
    ReproPoint q = p;
    change(&q);
    EXPECT_FALSE(same_run(p, q)) << what;
    EXPECT_FALSE(same_run(q, p)) << what;
  };
  differs("seed", [](ReproPoint* q) { q->cluster.seed = 2; });
  differs("threads", [](ReproPoint* q) { q->cluster.threads_per_node = 3; });
  differs("a NIC parameter", [](ReproPoint* q) { q->cluster.nic.overrides["pcie_gbps"] = 50; });
  differs("a semantics switch", [](ReproPoint* q) { q->cluster.semantics.failed_cas_writes_back = !q->cluster.semantics.failed_cas_writes_back; });
  differs("the QP policy", [](ReproPoint* q) { q->cluster.nic.qp_policy = QpPolicy::kPerThreadQp; });
  differs("the opcode", [](ReproPoint* q) { q->perf.op = Opcode::kCas; });
  differs("the stride", [](ReproPoint* q) { q->perf.stride = 128; });
  differs("the window", [](ReproPoint* q) { q->perf.measure_ns += 1; });
  differs("lock localities", [](ReproPoint* q) { q->lock_localities = {95}; });
  differs("a B-tree run", [](ReproPoint* q) { q->btree = BTreeWorkloadOptions{}; });

  ReproPoint view = p;
  view.same_run_as = 0;  // shows another point's run: runs nothing itself
  EXPECT_FALSE(same_run(p, view));
}

TEST(ReproSession, ReportNamesOfHashAndTreeRunsAreNotCompared) {
  ReproPoint a = small_read("x", 1, 1);
  a.hash = HashRunOptions{};
  a.hash->table = "race";
  ReproPoint b = a;
  b.hash->table = "RACE";
  EXPECT_TRUE(same_run(a, b));
  b.hash->zipf = 0.5;
  EXPECT_FALSE(same_run(a, b));

  ReproPoint s = small_read("x", 1, 1);
  s.sherman = ShermanRunOptions{};
  ReproPoint t = s;
  t.sherman->index = "fg+";
  EXPECT_TRUE(same_run(s, t));
  t.sherman->keys += 1;
  EXPECT_FALSE(same_run(s, t));

  // The shared result is named as the point names its run.
  ReproSession session;
  PerfResult r;
  r.op = "race";
  r.mops = 3.5;
  session.add(a, r);
  b = a;
  b.hash->table = "RACE";
  const std::optional<PerfResult> got = session.find(b);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->op, "RACE");
  EXPECT_EQ(got->mops, 3.5);
  EXPECT_EQ(session.shared_runs(), 1u);
}

TEST(ReproSession, TransactionRunsWithACommitSinkAreNeverShared) {
  ReproPoint a = small_read("t", 1, 1);
  a.txn = ReproTxn{};
  a.txn->workload = "smallbank";
  ReproPoint b = a;
  EXPECT_TRUE(same_run(a, b));
  b.txn->run.on_commit = [](const txn::CommitRecord&) {};
  EXPECT_FALSE(same_run(a, b));
  EXPECT_FALSE(same_run(b, b));
  a.txn->coroutines = 2;
  b.txn->run.on_commit = nullptr;
  EXPECT_FALSE(same_run(a, b));
}

void expect_equal_results(const PerfResult& a, const PerfResult& b, size_t i) {
  EXPECT_EQ(a.op, b.op) << i;
  EXPECT_EQ(a.ops, b.ops) << i;
  EXPECT_EQ(a.verbs, b.verbs) << i;
  EXPECT_EQ(a.mops, b.mops) << i;
  EXPECT_EQ(a.latency_ns_mean, b.latency_ns_mean) << i;
  EXPECT_EQ(a.latency_ns_p99, b.latency_ns_p99) << i;
  EXPECT_EQ(a.trace_hash, b.trace_hash) << i;
  EXPECT_EQ(a.counters, b.counters) << i;
}

TEST(ReproSession, ALaterFigureTakesEqualRunsAndGetsItsOwnResults) {
  ReproFigure first;
  first.name = "first";
  first.points = {small_read("a", 1, 1), small_read("a", 2, 2)};
  ReproFigure second;
  second.name = "second";
  // Point 0 is first's point 1 under another name; point 1 is new.
  second.points = {small_read("b", 20, 2), small_read("b", 30, 3)};
  ASSERT_TRUE(same_run(first.points[1], second.points[0]));

  ReproSession session;
  const ReproResult r1 = run_repro(first, {}, 1, &session);
  EXPECT_EQ(r1.shared_runs, 0u);
  const ReproResult shared = run_repro(second, {}, 2, &session);
  EXPECT_EQ(shared.shared_runs, 1u);
  EXPECT_EQ(session.shared_runs(), 1u);
  const ReproResult alone = run_repro(second, {}, 1);
  EXPECT_EQ(alone.shared_runs, 0u);
  ASSERT_EQ(shared.results.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(alone.results[i].ok()) << alone.results[i].error;
    EXPECT_GT(alone.results[i].ops, 0u);
    expect_equal_results(shared.results[i], alone.results[i], i);
  }
  EXPECT_EQ(shared.verbs, alone.verbs);  // a shared run's verbs still count
  EXPECT_NE(alone.results[0].trace_hash, alone.results[1].trace_hash);

  // Run again in the same session: every run is shared now.
  EXPECT_EQ(run_repro(second, {}, 1, &session).shared_runs, 2u);
}

TEST(ReproSession, KeepsAtMostItsBoundOfRuns) {
  ReproSession session;
  ReproPoint p = small_read("p", 1, 1);
  PerfResult r;
  for (size_t i = 0; i <= ReproSession::kMaxRuns; ++i) {
    p.cluster.seed = i + 1;
    session.add(p, r);
  }
  p.cluster.seed = ReproSession::kMaxRuns;  // the last one kept
  EXPECT_TRUE(session.find(p).has_value());
  p.cluster.seed = ReproSession::kMaxRuns + 1;  // past the bound: not kept
  EXPECT_FALSE(session.find(p).has_value());
}

TEST(ReproSession, FiguresAreGroupedBySharedRunsTransitively) {
  ReproFigure a, b, c, d;
  a.points = {small_read("a", 1, 1)};
  b.points = {small_read("b", 1, 2)};
  c.points = {small_read("c", 1, 2), small_read("c", 2, 3)};  // shares with b
  d.points = {small_read("d", 1, 3)};                         // shares with c
  ReproPoint view = small_read("a view", 1, 2);
  view.same_run_as = 0;  // a view joins nothing
  a.points.push_back(view);
  const std::vector<std::vector<size_t>> groups = group_sharing_runs({&a, &b, &c, &d});
  const std::vector<std::vector<size_t>> want = {{0}, {1, 2, 3}};
  EXPECT_EQ(groups, want);
}

// SMART Fig. 8's first and last steps (RACE, +ConflictAvoid) are Fig. 7's
// RACE and SMART-HT at the same threads: 2 x 3 mixes x 5 thread counts.
TEST(ReproSession, SmartFig8SharesItsFirstAndLastStepsWithFig7) {
  const ReproFigure* fig7 = find_repro("smart-fig7");
  const ReproFigure* fig8 = find_repro("smart-fig8");
  ASSERT_NE(fig7, nullptr);
  ASSERT_NE(fig8, nullptr);
  size_t shared = 0;
  for (const ReproPoint& p : fig8->points) {
    bool found = false;
    for (const ReproPoint& q : fig7->points) found = found || same_run(p, q);
    if (!found) continue;
    ++shared;
    EXPECT_TRUE(p.series.find("RACE") != std::string::npos || p.series.find("+ConflictAvoid") != std::string::npos)
        << p.series;
  }
  EXPECT_EQ(shared, 30u);
  const std::vector<std::vector<size_t>> groups = group_sharing_runs({fig7, fig8});
  EXPECT_EQ(groups.size(), 1u);
}

}  // namespace
}  // namespace lw
