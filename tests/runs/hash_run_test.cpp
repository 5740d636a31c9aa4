#include "runs/hash_run.h"

#include <gtest/gtest.h>

#include "latchwork/backends.h"
#include "latchwork/structures/race/hash_table.h"
#include "base/setup_store.h"
#include "verbs/node_memory_reuse.h"

namespace lw {
namespace {

ClusterConfig small_cluster(const std::string& table, uint32_t threads, uint32_t coroutines) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = "cx6-200g";
  c.compute_nodes = 1;
  c.threads_per_node = threads;
  c.coroutines_per_thread = coroutines;
  c.memory_nodes = 2;
  c.memory_node_bytes = 16ull << 20;
  EXPECT_TRUE(apply_hash_table_preset(table, &c));
  divide_policy_time(&c, kDefaultPolicyTimeDivisor);
  return c;
}

TEST(HashRun, WriteHeavyUniformKeepsExactFinalState) {
  for (const char* table : {"race", "smart-ht"}) {
    HashRunOptions o;
    o.table = table;
    o.mix = ycsb::Mix::kWriteHeavy;
    o.zipf = 0;
    o.keys = 2000;
    o.ops_per_worker = 150;
    o.verify = true;
    const HashRunResult r = run_hash(small_cluster(table, 2, 4), o);
    EXPECT_TRUE(r.ok()) << table << ": " << r.error;
    EXPECT_TRUE(r.verified) << table;
    EXPECT_EQ(r.ops, 2u * 4u * 150u) << table;
    EXPECT_GT(r.updates, r.ops / 3) << table;
    EXPECT_GT(r.mops, 0) << table;
    EXPECT_EQ(r.not_found, 0u);
  }
}

TEST(HashRun, SkewedWritesVerifyToo) {
  // Many writers per hot key: the final value must be one that was written.
  HashRunOptions o;
  o.mix = ycsb::Mix::kUpdateOnly;
  o.keys = 500;
  o.ops_per_worker = 100;
  o.verify = true;
  const HashRunResult r = run_hash(small_cluster("race", 4, 4), o);
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.verified);
  EXPECT_GT(r.retries_per_update, 0);
}

TEST(HashRun, SameSeedSameRun) {
  HashRunOptions o;
  o.keys = 1000;
  o.warmup_ns = 100'000;
  o.measure_ns = 200'000;
  const HashRunResult a = run_hash(small_cluster("smart-ht", 2, 4), o);
  const HashRunResult b = run_hash(small_cluster("smart-ht", 2, 4), o);
  ASSERT_TRUE(a.ok()) << a.error;
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.ops, b.ops);
}

// A load put back from a kept image is the same run as one that inserted
// every key: same trace, same results (repro's points share images while
// its node memory reuse is in effect).
TEST(HashRun, ALoadFromAKeptImageIsTheSameRun) {
  HashRunOptions o;
  o.keys = 3000;
  o.warmup_ns = 100'000;
  o.measure_ns = 200'000;
  o.verify = true;
  const SetupStore& store = SetupStore::process();
  HashRunOptions two = o;
  two.keys = 2000;
  ASSERT_TRUE(run_hash(small_cluster("race", 2, 4), two).ok());
  const HashRunResult plain = run_hash(small_cluster("race", 2, 4), o);
  // The process's products (the Zipf tables) are kept by now; no image is
  // kept without node memory reuse in effect.
  const size_t entries0 = store.entries();
  ASSERT_TRUE(run_hash(small_cluster("race", 2, 4), o).ok());
  ASSERT_EQ(store.entries(), entries0);
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  const uint64_t hits0 = store.hits();
  const HashRunResult first = run_hash(small_cluster("race", 2, 4), o);
  ASSERT_EQ(store.entries(), entries0 + 1);
  const uint64_t hits1 = store.hits();
  const HashRunResult again = run_hash(small_cluster("race", 2, 4), o);
  EXPECT_EQ(store.entries(), entries0 + 1);
  EXPECT_EQ(store.hits() - hits1, hits1 - hits0 + 1) << "the second run found the first one's image";
  for (const HashRunResult* r : {&plain, &first, &again}) {
    ASSERT_TRUE(r->ok()) << r->error;
    EXPECT_TRUE(r->verified);
  }
  EXPECT_EQ(again.trace_hash, plain.trace_hash);
  EXPECT_EQ(first.trace_hash, plain.trace_hash);
  EXPECT_EQ(again.ops, plain.ops);
  EXPECT_EQ(again.counters, plain.counters);
  // Another key count: another image, and the run it makes is its own.
  const HashRunResult smaller = run_hash(small_cluster("race", 2, 4), two);
  EXPECT_EQ(store.entries(), entries0 + 2);
  EXPECT_TRUE(smaller.ok() && smaller.verified) << smaller.error;
}

TEST(HashRun, SmartHtRetriesLessThanRaceUnderSkewedUpdates) {
  // SMART Fig. 14: conflict avoidance cuts the retries of contended updates.
  // 64 coroutines: from about 128 on, the runtime's dynamic backoff limit
  // sinks toward t0 under Zipf updates and SMART-HT retries as much as RACE
  // (smart-fig14's notes), which this test does not pin.
  HashRunOptions o;
  o.mix = ycsb::Mix::kUpdateOnly;
  o.zipf = 0.99;
  o.keys = 10000;
  o.warmup_ns = 1'000'000;
  o.measure_ns = 1'000'000;
  o.table = "race";
  const HashRunResult race = run_hash(small_cluster("race", 8, 8), o);
  o.table = "smart-ht";
  const HashRunResult smart = run_hash(small_cluster("smart-ht", 8, 8), o);
  ASSERT_TRUE(race.ok()) << race.error;
  ASSERT_TRUE(smart.ok()) << smart.error;
  EXPECT_GT(race.updates, 100u);
  EXPECT_GT(smart.updates, 100u);
  EXPECT_LT(smart.retries_per_update, race.retries_per_update)
      << "smart-ht " << smart.retries_per_update << " vs race " << race.retries_per_update;
}

// Partitioned writes: every key has one writer, so every key's final value
// is checked exactly (not only keys one coroutine wrote by chance), on the
// simulator and on real threads, through a table created under a shared
// name (the multi-process path, with one process).
TEST(HashRun, PartitionedWritesCheckEveryKeyExactly) {
  for (const char* backend : {"sim", "threads"}) {
    for (const char* table : {"race", "smart-ht"}) {
      ClusterConfig c = small_cluster(table, 2, 4);
      c.backend = backend;
      HashRunOptions o;
      o.table = table;
      o.mix = ycsb::Mix::kWriteHeavy;
      o.zipf = 0.99;  // hot keys: many updates to few keys, each by its one writer
      o.keys = 1000;
      o.ops_per_worker = 200;
      o.partitioned_writes = true;
      o.shared_name = std::string("hash-run-test/") + backend + "/" + table;
      const HashRunResult r = run_hash(c, o);
      EXPECT_TRUE(r.ok()) << backend << " " << table << ": " << r.error;
      EXPECT_TRUE(r.verified) << backend << " " << table;
      EXPECT_EQ(r.keys_checked_exact, o.keys) << backend << " " << table;
      EXPECT_EQ(r.ops, 2u * 4u * 200u) << backend << " " << table;
      EXPECT_GT(r.updates, r.ops / 3) << backend << " " << table;
      EXPECT_EQ(r.not_found, 0u);
    }
  }
}

// create() under a shared name twice on one backend: the same table, and the
// second create (a late process) keeps what the first one's inserts wrote.
TEST(HashRun, SharedTableCreatedTwiceIsOneTable) {
  for (const char* backend : {"sim", "threads"}) {
    ClusterConfig c = small_cluster("race", 1, 1);
    c.backend = backend;
    std::string err;
    std::unique_ptr<Backend> b = make_backend(c, &err);
    ASSERT_TRUE(b) << err;
    race::TableConfig tc;
    tc.capacity = 500;
    tc.shared_name = "twice";
    const Result<race::HashTable> first = race::HashTable::create(*b, tc);
    ASSERT_EQ(first.status, Status::kOk);
    for (uint64_t k = 1; k <= 300; ++k) ASSERT_EQ(first.value.host_insert(*b, k, k * 7), Status::kOk);
    const Result<race::HashTable> second = race::HashTable::create(*b, tc);
    ASSERT_EQ(second.status, Status::kOk);
    std::string why;
    const Result<std::map<uint64_t, uint64_t>> got = second.value.host_contents(*b, &why);
    ASSERT_EQ(got.status, Status::kOk) << why;
    ASSERT_EQ(got.value.size(), 300u) << backend;
    for (const auto& [k, v] : got.value) EXPECT_EQ(v, k * 7) << backend;
    // The same name with another size is not that table.
    tc.capacity = 5000;
    EXPECT_EQ(race::HashTable::create(*b, tc).status, Status::kOutOfBounds) << backend;
  }
}

TEST(HashRun, RejectsBadMultiProcessOptions) {
  const ClusterConfig c = small_cluster("race", 2, 4);
  HashRunOptions o;
  o.keys = 1000;
  o.ops_per_worker = 10;
  o.processes = 2;
  EXPECT_FALSE(o.validate(c).empty()) << "no shared name";
  o.shared_name = "t";
  EXPECT_TRUE(o.validate(c).empty()) << o.validate(c);
  o.process_index = 2;
  EXPECT_FALSE(o.validate(c).empty()) << "index out of range";
  o.process_index = 1;
  o.verify = true;
  EXPECT_FALSE(o.validate(c).empty()) << "verify across processes without partitioned writes";
  o.partitioned_writes = true;
  EXPECT_TRUE(o.validate(c).empty()) << o.validate(c);
  o.keys = 15;  // 2 processes x 8 writers
  EXPECT_FALSE(o.validate(c).empty()) << "fewer keys than writers";
  o.keys = 1000;
  o.processes = 0;
  EXPECT_FALSE(o.validate(c).empty());
}

TEST(HashRun, RejectsBadOptions) {
  HashRunOptions o;
  o.keys = 0;
  EXPECT_FALSE(o.validate(small_cluster("race", 1, 1)).empty());
  o.keys = 100;
  o.measure_ns = 0;
  EXPECT_FALSE(o.validate(small_cluster("race", 1, 1)).empty());
  ClusterConfig c;
  EXPECT_FALSE(apply_hash_table_preset("btree", &c));
}

}  // namespace
}  // namespace lw

namespace lw {
namespace {

// Stopping a windowed run shortly after its window (drain_ns) leaves the
// window's numbers as the played-out run gives them; coroutines cut in an
// operation are counted as drained.
TEST(HashRun, DrainDeadlineKeepsTheWindowsResults) {
  const ClusterConfig c = small_cluster("smart-ht", 2, 4);
  HashRunOptions o;
  o.table = "smart-ht";
  o.mix = ycsb::Mix::kWriteHeavy;
  o.zipf = 0.99;
  o.keys = 2000;
  o.warmup_ns = 30'000;
  o.measure_ns = 200'000;
  const HashRunResult full = run_hash(c, o);
  ASSERT_TRUE(full.ok()) << full.error;
  ASSERT_GT(full.ops, 100u);
  o.drain_ns = 3'000;
  const HashRunResult cut = run_hash(c, o);
  ASSERT_TRUE(cut.ok()) << cut.error;
  EXPECT_GT(cut.drained_workers, 0u) << "the deadline cut no operation: the test checks nothing";
  EXPECT_EQ(full.drained_workers, 0u);
  EXPECT_LT(cut.elapsed_ns, full.elapsed_ns);
  EXPECT_EQ(cut.ops, full.ops);
  EXPECT_EQ(cut.updates, full.updates);
  EXPECT_EQ(cut.mops, full.mops);
  EXPECT_EQ(cut.latency_us_p50, full.latency_us_p50);
  EXPECT_EQ(cut.latency_us_p99, full.latency_us_p99);
  EXPECT_EQ(cut.latency_us_mean, full.latency_us_mean);
  EXPECT_EQ(cut.update_retries, full.update_retries);
  EXPECT_EQ(cut.retries_per_update, full.retries_per_update);
  EXPECT_EQ(cut.round_trips_per_op, full.round_trips_per_op);
  o.verify = true;
  EXPECT_NE(o.validate(c).find("drain"), std::string::npos);
}

// The operation's own CPU work (issue 42; NicParams' CPU table, measured by
// bench/cpu_work.cpp) runs on the thread: with one coroutine every unit
// charged adds to a lookup's latency. Raising one cost at a time shows where
// each is charged: the client loop once per operation, the key's hash once
// per operation, the scan once over the 28 slots of the two combined
// buckets. With the cpu_costs mechanism off none is charged.
TEST(HashRun, OperationCpuWorkIsChargedOnTheThread) {
  auto mean_us = [](const char* param, double value, bool cpu_costs) {
    ClusterConfig c = small_cluster("smart-ht", 1, 1);
    if (param) c.nic.overrides[param] = value;
    c.nic.mechanisms.cpu_costs = cpu_costs;
    HashRunOptions o;
    o.table = "smart-ht";
    o.mix = ycsb::Mix::kReadOnly;
    o.zipf = 0;
    o.keys = 1000;
    o.ops_per_worker = 200;
    const HashRunResult r = run_hash(c, o);
    EXPECT_TRUE(r.ok()) << r.error;
    return r.latency_us_mean;
  };
  const double base = mean_us(nullptr, 0, true);
  EXPECT_NEAR(mean_us("op_issue_ns", 10'000, true) - base, 10.0 - 0.119, 0.3);
  EXPECT_NEAR(mean_us("key_hash_ns", 10'000, true) - base, 10.0 - 0.0018, 0.3);
  EXPECT_NEAR(mean_us("key_scan_ns", 1'000, true) - base, 28 * (1.0 - 0.00052), 0.6);
  EXPECT_NEAR(mean_us("op_issue_ns", 10'000, false), mean_us(nullptr, 0, false), 0.05);
}

}  // namespace
}  // namespace lw

namespace lw {
namespace {

// Closed loop (HashRunOptions::think_ns, the SMART artifact's IDLE_USEC): a
// lone coroutine completes one lookup per think time plus its latency, which
// the think time leaves as it was (nothing else loads the NIC); open-loop
// pacing and think time together are refused.
TEST(HashRun, ThinkTimeClosesTheLoop) {
  const ClusterConfig c = small_cluster("smart-ht", 1, 1);
  HashRunOptions o;
  o.table = "smart-ht";
  o.mix = ycsb::Mix::kReadOnly;
  o.zipf = 0;
  o.keys = 1000;
  o.warmup_ns = 50'000;
  o.measure_ns = 400'000;
  const HashRunResult busy = run_hash(c, o);
  ASSERT_TRUE(busy.ok()) << busy.error;
  o.think_ns = 20'000;
  const HashRunResult idle = run_hash(c, o);
  ASSERT_TRUE(idle.ok()) << idle.error;
  EXPECT_NEAR(idle.latency_us_mean, busy.latency_us_mean, 0.05 * busy.latency_us_mean);
  const double cycle_ns = 20'000 + idle.latency_us_mean * 1e3;
  EXPECT_NEAR(static_cast<double>(idle.ops), 400'000 / cycle_ns, 1.5);
  EXPECT_GT(busy.ops, 4 * idle.ops);
  o.offered_mops = 1;
  EXPECT_NE(o.validate(c).find("not both"), std::string::npos);
}

}  // namespace
}  // namespace lw
