// The transaction check (workloads/txn_check.h): correct designs are clean,
// each seeded bug is found, and every seed that found one is pinned here.
#include "latchwork/workloads/txn_check.h"

#include <gtest/gtest.h>

#include "latchwork/check/driver.h"

namespace lw::workloads {
namespace {

check::Options options(const TxnCheckOptions& t, uint64_t first_seed, uint64_t seeds) {
  check::Options o = txn_check_options(t, check::Options::default_cluster());
  o.first_seed = first_seed;
  o.seeds = seeds;
  o.explain = false;
  EXPECT_EQ(txn_check_validate(t, o), "");
  return o;
}

// Failing findings of one seed, by kind.
std::vector<std::string> kinds(const check::SeedResult& r) {
  std::vector<std::string> k;
  for (const check::Finding& f : r.findings)
    if (f.failure) k.push_back(f.kind);
  return k;
}

bool has(const std::vector<std::string>& v, const std::string& k) {
  return std::find(v.begin(), v.end(), k) != v.end();
}

std::string first_failure(const check::Report& r) {
  for (const check::Finding& f : r.findings)
    if (f.failure) return f.summary();
  return "";
}

TEST(TxnCheck, OptionsValidate) {
  TxnCheckOptions t = txn_check_defaults("drtmh", "smallbank");
  EXPECT_EQ(t.validate(), "");
  t.design = "spanner";
  EXPECT_NE(t.validate().find("unknown design"), std::string::npos);
  t = txn_check_defaults("ford", "tpcc", txn::Broken::kMixedAtomics);
  EXPECT_NE(t.validate().find("symmetric"), std::string::npos);
  t = txn_check_defaults("drtmh", "tpcx");
  EXPECT_NE(t.validate().find("unknown workload"), std::string::npos);
  const check::Options o = txn_check_options(txn_check_defaults("drtmh", "tpcc"), check::Options::default_cluster());
  EXPECT_GE(o.cluster.memory_nodes, kTxnCheckMemoryNodes);
  EXPECT_GT(o.shape.memory_node_threads, 0u);
  EXPECT_EQ(txn_check_options(txn_check_defaults("ford", "tpcc"), check::Options::default_cluster())
                .shape.memory_node_threads,
            0u);
}

TEST(TxnCheck, DrtmhSmallBankClean) {
  const TxnCheckOptions t = txn_check_defaults("drtmh", "smallbank");
  const check::Report r = check::run(txn_check_workload(t), options(t, 1, 20));
  EXPECT_TRUE(r.clean()) << first_failure(r);
  EXPECT_GT(r.ops, 20u * 100);
}

TEST(TxnCheck, FasstSmallBankClean) {
  const TxnCheckOptions t = txn_check_defaults("fasst", "smallbank");
  const check::Report r = check::run(txn_check_workload(t), options(t, 1, 20));
  EXPECT_TRUE(r.clean()) << first_failure(r);
}

TEST(TxnCheck, EveryDesignCleanOnTpcc) {
  for (const std::string& d : txn::design_names()) {
    const TxnCheckOptions t = txn_check_defaults(d, "tpcc");
    const check::Report r = check::run(txn_check_workload(t), options(t, 1, 3));
    EXPECT_TRUE(r.clean()) << d << ": " << first_failure(r);
  }
}

// With failed_cas_writes_back (Soft-RoCE: a failed CAS writes back what it
// read), a lock freed by a WRITE of 0 was rewritten by another coordinator's
// failed lock CAS spanning it: "lock-held" on these seeds (FORD smallbank
// seed 2; DrTM+H seeds 33 and 37; --no-swarm). Locks are now freed with CAS
// where the backend says a failed CAS may write back.
TEST(TxnCheck, LocksFreedWhereAFailedCasWritesBack) {
  const struct {
    const char* design;
    uint64_t seed;
  } pinned[] = {{"ford", 2}, {"smart-dtx", 2}, {"drtmh", 33}, {"drtmh", 37}, {"drtmr", 11}};
  for (const auto& p : pinned) {
    const TxnCheckOptions t = txn_check_defaults(p.design, "smallbank");
    check::Options o = options(t, p.seed, 1);
    o.swarm = false;
    o.cluster.semantics.failed_cas_writes_back = true;
    const check::Report r = check::run(txn_check_workload(t), o);
    EXPECT_TRUE(r.clean()) << p.design << " seed " << p.seed << ": " << first_failure(r);
    EXPECT_GT(r.ops, 0u);
  }
}

// Seeds on which FORD's TPC-C hung (no progress for the watchdog's 50 ms)
// while retries grew linearly with one unit of jitter: two NewOrders that
// locked at execution what the other needed aborted each other in step.
// With txn::retry_delay's full jitter they finish.
TEST(TxnCheck, FordTpccRetriesDoNotLivelock) {
  const TxnCheckOptions t = txn_check_defaults("ford", "tpcc");
  for (uint64_t seed : {47u, 64u, 68u}) {
    const check::SeedResult r = check::run_seed(txn_check_workload(t), options(t, seed, 1), seed);
    EXPECT_FALSE(r.failed()) << "seed " << seed << ": " << (r.findings.empty() ? "" : r.findings[0].summary());
  }
}

TEST(TxnCheck, SameSeedSameRun) {
  const TxnCheckOptions t = txn_check_defaults("drtmh", "tatp");
  const check::Options o = options(t, 5, 1);
  const check::SeedResult a = check::run_seed(txn_check_workload(t), o, 5);
  const check::SeedResult b = check::run_seed(txn_check_workload(t), o, 5);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.ops, b.ops);
}

// The seeded bugs, each pinned to a seed the sweep found it on.
struct Pinned {
  const char* design;
  const char* workload;
  txn::Broken broken;
  uint64_t seed;
  const char* kind;  // a failing finding's kind the seed must show
};

class TxnCheckPinned : public ::testing::TestWithParam<Pinned> {};

TEST_P(TxnCheckPinned, SeedFindsTheBug) {
  const Pinned& p = GetParam();
  const TxnCheckOptions t = txn_check_defaults(p.design, p.workload, p.broken);
  const check::SeedResult r = check::run_seed(txn_check_workload(t), options(t, p.seed, 1), p.seed);
  const std::vector<std::string> k = kinds(r);
  EXPECT_TRUE(has(k, p.kind)) << "seed " << p.seed << " of " << p.design << "/" << p.workload << "/"
                              << txn::to_string(p.broken) << " no longer finds " << p.kind;
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, TxnCheckPinned,
    ::testing::Values(
        // seed 148 finds a cycle (a read-only transaction that saw one
        // trade's last_trade and missed another's) for no-read-validation:
        // rare, the only one of seeds 1..150 since the RPC handlers' costs
        // became measured (2026-11-30; seed 93 before).
        Pinned{"drtmh", "tpce", txn::Broken::kNoReadValidation, 148, "cycle"},
        // seed 2 finds a stock version installed twice for no-write-recheck.
        Pinned{"drtmh", "tpcc", txn::Broken::kNoWriteRecheck, 2, "lost-update"},
        // seed 4 finds money created or lost for no-write-recheck (seed 2
        // until the RPC handlers' costs became measured, 2026-11-30).
        Pinned{"drtmh", "smallbank", txn::Broken::kNoWriteRecheck, 4, "workload-invariant"},
        // seed 38 finds a subscriber version installed twice for mixed-atomics.
        Pinned{"drtmh", "tatp", txn::Broken::kMixedAtomics, 38, "lost-update"},
        // seed 25 finds a last_trade version installed twice for mixed-atomics.
        Pinned{"drtmh", "tpce", txn::Broken::kMixedAtomics, 25, "lost-update"}),
    [](const ::testing::TestParamInfo<Pinned>& i) {
      std::string n = std::string(i.param.workload) + "_" + std::string(txn::to_string(i.param.broken)) + "_seed" +
                      std::to_string(i.param.seed);
      for (char& c : n)
        if (c == '-') c = '_';
      return n;
    });

}  // namespace
}  // namespace lw::workloads
