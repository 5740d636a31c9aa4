#include "runs/sherman_run.h"

#include <gtest/gtest.h>

#include "structures/sherman/node_format.h"

namespace lw {
namespace {

// A small windowed Sherman run on the NIC model: 1 compute node of 4 threads
// x 2 coroutines over 2 memory nodes, write-intensive, 4,096 keys.
void small_run(ClusterConfig* c, ShermanRunOptions* o) {
  c->set_profile("connectx");
  c->nic.profile = "cx5-100g";
  c->compute_nodes = 1;
  c->threads_per_node = 4;
  c->coroutines_per_thread = 2;
  c->memory_nodes = 2;
  c->memory_node_bytes = 64ull << 20;
  ASSERT_TRUE(apply_sherman_index("sherman", o, c));
  o->mix = TreeMix::kWriteIntensive;
  o->zipf = 0.99;
  o->keys = 4096;
  o->tree.chunk_bytes = 1ull << 20;
  o->warmup_ns = 20'000;
  o->measure_ns = 60'000;
}

// Stopping a run shortly after its window (drain_ns) leaves every number of
// the window as the run played out gives it: the window's operations,
// throughput, latencies and write shares; coroutines cut mid-operation are
// counted as drained.
TEST(ShermanRun, DrainDeadlineKeepsTheWindowsResults) {
  ClusterConfig c;
  ShermanRunOptions o;
  small_run(&c, &o);
  const ShermanRunResult full = run_sherman(c, o);
  ASSERT_TRUE(full.ok()) << full.error;
  ASSERT_GT(full.ops, 100u);
  o.drain_ns = 5'000;  // above the coroutines' start offsets, below an operation's tail
  const ShermanRunResult cut = run_sherman(c, o);
  ASSERT_TRUE(cut.ok()) << cut.error;
  EXPECT_GT(cut.drained_workers, 0u) << "the deadline cut no operation: the test checks nothing";
  EXPECT_EQ(full.drained_workers, 0u);
  EXPECT_LT(cut.elapsed_ns, full.elapsed_ns);
  EXPECT_EQ(cut.ops, full.ops);
  EXPECT_EQ(cut.inserts, full.inserts);
  EXPECT_EQ(cut.lookups, full.lookups);
  EXPECT_EQ(cut.mops, full.mops);
  EXPECT_EQ(cut.latency_us_p50, full.latency_us_p50);
  EXPECT_EQ(cut.latency_us_p99, full.latency_us_p99);
  EXPECT_EQ(cut.latency_us_mean, full.latency_us_mean);
  EXPECT_EQ(cut.write_round_trip_share, full.write_round_trip_share);
  EXPECT_EQ(cut.lookup_retry_share, full.lookup_retry_share);
  EXPECT_EQ(cut.bytes_per_op, full.bytes_per_op);
}

TEST(ShermanRun, DrainDeadlineNeedsTheWindowAndNoVerify) {
  ClusterConfig c;
  ShermanRunOptions o;
  small_run(&c, &o);
  o.drain_ns = 5'000;
  EXPECT_EQ(o.validate(c), "");
  o.verify = true;
  EXPECT_NE(o.validate(c).find("drain"), std::string::npos);
  o.verify = false;
  o.ops_per_worker = 10;
  EXPECT_NE(o.validate(c).find("drain"), std::string::npos);
  o.ops_per_worker = 0;
  o.drain_ns = 2'000'000'000;
  EXPECT_NE(o.validate(c).find("drain"), std::string::npos);
}

// Sherman Fig. 10's FG+ under skewed writes: spinning lock CASes hold the
// NIC's engines, so the holder's own verbs queue behind them and more threads
// get stuck on hot leaves as time passes. The rate keeps falling for
// milliseconds: a short window does not see the collapse
// (sherman_repro::steady_state). Fig. 10's 8 compute nodes of 22 threads
// and 8 memory nodes, 2^16 keys.
TEST(ShermanRun, FgPlusSkewedWritesCollapseOverMilliseconds) {
  auto rate = [](Nanos window) {
    ClusterConfig c;
    c.set_profile("connectx");
    c.nic.profile = "cx5-100g";
    c.compute_nodes = 8;
    c.threads_per_node = 22;
    c.coroutines_per_thread = 1;
    c.memory_nodes = 8;
    c.memory_node_bytes = 64ull << 20;
    ShermanRunOptions o;
    EXPECT_TRUE(apply_sherman_index("fg+", &o, &c));
    o.mix = TreeMix::kWriteIntensive;
    o.zipf = 0.99;
    o.keys = 1u << 16;
    o.tree.chunk_bytes = 1ull << 20;
    o.warmup_ns = window;
    o.measure_ns = window;
    const ShermanRunResult r = run_sherman(c, o);
    EXPECT_TRUE(r.ok()) << r.error;
    return r.mops;
  };
  const double short_window = rate(300'000), steady = rate(10'000'000);
  EXPECT_GT(short_window, 0);
  EXPECT_LT(steady, short_window / 5) << "short " << short_window << " steady " << steady;
}

// Sherman §4.4's wrap rule meets link-bound READs (Fig. 15's 1 KB keys: 33 KB
// leaves, 8 threads reading at once on one 100 Gb/s port, so a READ takes
// about 20 us). The bounded rule distrusts every such READ and retries it;
// the artifact's rule (version checks alone) takes the image when its
// versions agree and never counts a wrap retry.
TEST(ShermanRun, WrapRuleBoundedRetriesSlowReadsCheckOnlyDoesNot) {
  auto run = [](sherman::WrapRule rule) {
    ClusterConfig c;
    ShermanRunOptions o;
    small_run(&c, &o);
    c.threads_per_node = 8;
    c.coroutines_per_thread = 1;
    o.mix = TreeMix::kReadIntensive;
    o.zipf = 0;
    o.keys = 1024;
    o.tree.key_bytes = 1024;
    o.tree.node_bytes = 33'472;  // 128 + 32 x (1024 + 16) rounded to 64: Fig. 15's 32 entries a leaf
    o.tree.wrap_rule = rule;
    o.tree.max_attempts = 64;
    o.measure_ns = 200'000;
    o.collapse_at_budget = true;
    o.drain_ns = 200'000;
    const ShermanRunResult r = run_sherman(c, o);
    EXPECT_TRUE(r.ok()) << r.error;
    return r;
  };
  const ShermanRunResult check = run(sherman::WrapRule::kCheckOnly);
  const ShermanRunResult bounded = run(sherman::WrapRule::kBounded);
  EXPECT_EQ(check.tree.wrap_retries, 0u);
  EXPECT_GT(check.ops, 50u);
  EXPECT_GT(bounded.tree.wrap_retries, check.ops) << "READs this slow should all retry under the bound";
  EXPECT_LT(bounded.ops * 2, check.ops) << "bounded " << bounded.ops << " check " << check.ops;
}

// A lookup scans its unsorted leaf entry by entry (Sherman §4.2.2) on the
// thread's CPU: raising the per-entry cost by 1 us lengthens a lookup by
// about one microsecond per leaf slot (plus a few binary-search steps if an
// internal node is read). The client loop's cost (op_issue_ns) is paid
// between operations: it lowers the rate, not the latency.
TEST(ShermanRun, LeafScanAndClientLoopAreChargedOnTheThread) {
  auto run = [](const char* param, double value) {
    ClusterConfig c;
    ShermanRunOptions o;
    small_run(&c, &o);
    c.threads_per_node = 1;
    c.coroutines_per_thread = 1;
    if (param) c.nic.overrides[param] = value;
    o.mix = TreeMix::kReadOnly;
    o.zipf = 0;
    o.warmup_ns = 0;
    o.measure_ns = 0;
    o.ops_per_worker = 200;
    const ShermanRunResult r = run_sherman(c, o);
    EXPECT_TRUE(r.ok()) << r.error;
    return r;
  };
  const double slots = sherman::NodeFormat(sherman::Scheme::kTwoLevel, 1024, 8).leaf_capacity();
  const ShermanRunResult base = run(nullptr, 0);
  const ShermanRunResult scan = run("key_scan_ns", 1000);
  const double added = scan.latency_us_mean - base.latency_us_mean;
  EXPECT_GT(added, 0.95 * slots) << "slots " << slots;
  EXPECT_LT(added, 1.05 * slots + 12) << "slots " << slots;
  const ShermanRunResult issue = run("op_issue_ns", 10'000);
  EXPECT_NEAR(issue.latency_us_mean, base.latency_us_mean, 0.5);
  EXPECT_GT(issue.elapsed_ns, base.elapsed_ns + 200 * 9'000);
}

}  // namespace
}  // namespace lw
