// The remote B+-tree: bulk-loaded trees answer every lookup in every sync
// mode and backend; concurrent inserts that split nodes over several levels,
// with lookups beside them, keep every key with its last value and never
// show a value that was not written (sim under spec over seeds, threads
// adversarial), and the tree's structure checks out afterwards.
#include "latchwork/structures/jasny/btree.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "latchwork/backends.h"
#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

ClusterConfig small_cluster(const std::string& backend, uint64_t seed) {
  ClusterConfig c;
  c.backend = backend;
  c.set_profile("spec");
  c.memory_node_bytes = 8ull << 20;
  c.compute_nodes = 2;
  c.threads_per_node = 2;
  c.coroutines_per_thread = backend == "sim" ? 2 : 1;
  c.seed = seed;
  // Wide relaxation windows (as latchwork check sweeps them): a node READ's
  // lines fetched up to tens of microseconds apart, straddling whole splits.
  static constexpr Nanos kSpread[] = {3'000, 10'000, 30'000};
  if (c.semantics.read_spread_ns > 0) c.semantics.read_spread_ns = kSpread[seed % 3];
  return c;
}

std::unique_ptr<Backend> backend_for(const ClusterConfig& c) {
  std::string err;
  std::unique_ptr<Backend> b = make_backend(c, &err);
  EXPECT_TRUE(b) << err;
  return b;
}

std::unique_ptr<BTree> tree(Backend& b, BTreeSync sync, uint32_t node_bytes) {
  BTreeOptions o;
  o.sync = sync;
  o.node_bytes = node_bytes;
  o.max_nodes = node_bytes <= 512 ? 3000 : 600;  // fits 8 MiB
  std::unique_ptr<BTree> t;
  const std::string err = BTree::create(b, o, &t);
  LW_CHECK_MSG(err.empty(), err);
  return t;
}

const BTreeSync kAll[] = {BTreeSync::kUnsynchronized, BTreeSync::kPessimistic, BTreeSync::kOptimistic};
const BTreeSync kSynced[] = {BTreeSync::kPessimistic, BTreeSync::kOptimistic};

TEST(BTree, BulkLoadedLookupsFindEveryKey) {
  for (const char* backend : {"sim", "threads"})
    for (BTreeSync sync : kAll)
      for (uint32_t node_bytes : {512u, 4096u}) {
        SCOPED_TRACE(std::string(backend) + " " + to_string(sync) + " " + std::to_string(node_bytes));
        std::unique_ptr<Backend> b = backend_for(small_cluster(backend, 1));
        std::unique_ptr<BTree> t = tree(*b, sync, node_bytes);
        constexpr uint64_t kKeys = 5000;
        std::vector<std::pair<uint64_t, uint64_t>> kv;
        for (uint64_t i = 0; i < kKeys; ++i) kv.emplace_back(2 * i + 10, i * 3);  // value 0 allowed
        ASSERT_EQ(t->bulk_load(*b, kv), "");
        EXPECT_GE(t->height(*b), node_bytes == 512 ? 3u : 2u);
        std::atomic<uint64_t> wrong{0}, done{0};
        b->spawn_compute([&](Worker& w) -> Task<void> {
          for (int i = 0; i < 60; ++i) {
            const uint64_t k = w.rng().below(2 * kKeys + 20);
            uint64_t v = 0;
            bool found = false;
            Status s = co_await t->lookup(w, k, &v, &found);
            const bool present = k >= 10 && k % 2 == 0 && k < 2 * kKeys + 10;
            if (!ok(s) || found != present || (found && v != (k - 10) / 2 * 3)) ++wrong;
            ++done;
          }
        });
        b->run();
        EXPECT_EQ(wrong.load(), 0u);
        EXPECT_GT(done.load(), 0u);
        uint64_t keys = 0;
        EXPECT_EQ(t->check_structure(*b, &keys), "");
        EXPECT_EQ(keys, kKeys);
      }
}

// Value of the n-th write of `key`: the key is in it, so a lookup can tell a
// value that belongs to another key or was never written.
uint64_t value_of(uint64_t key, uint32_t n) { return key << 8 | n; }

struct Outcome {
  uint64_t bad_reads = 0, gave_up = 0, errors = 0, inserts = 0;
};

// Each worker owns keys me, me + W, me + 2W, ...; it writes each twice
// (insert, then update) and looks up random keys of anyone in between.
Outcome concurrent_inserts(const ClusterConfig& c, BTreeSync sync, uint32_t keys_per_worker,
                           std::string* structure) {
  std::unique_ptr<Backend> b = backend_for(c);
  std::unique_ptr<BTree> t = tree(*b, sync, 512);
  // A few pre-loaded keys with the initial value (write 0).
  std::vector<std::pair<uint64_t, uint64_t>> kv;
  const uint64_t workers = c.total_compute_threads() * c.coroutines_per_thread;
  const uint64_t key_space = workers * keys_per_worker;
  for (uint64_t k = 0; k < key_space; k += 7) kv.emplace_back(k, value_of(k, 0));
  EXPECT_EQ(t->bulk_load(*b, kv), "");
  Outcome out;
  std::mutex mu;
  RetryPolicy policy;
  policy.max_attempts = 4000;
  b->spawn_compute([&](Worker& w) -> Task<void> {
    const Placement& p = w.placement();
    const uint64_t me = (p.node * c.threads_per_node + p.thread) * c.coroutines_per_thread + p.coroutine;
    Outcome mine;
    for (uint32_t round = 1; round <= 2; ++round)
      for (uint32_t i = 0; i < keys_per_worker; ++i) {
        const uint64_t k = me + i * workers;
        Status s = co_await t->insert(w, k, value_of(k, round), policy);
        if (s == Status::kRetryExhausted) ++mine.gave_up;
        else if (!ok(s)) ++mine.errors;
        else ++mine.inserts;
        const uint64_t probe = w.rng().below(key_space);
        uint64_t v = 0;
        bool found = false;
        s = co_await t->lookup(w, probe, &v, &found, policy);
        if (s == Status::kRetryExhausted) ++mine.gave_up;
        else if (!ok(s)) ++mine.errors;
        else if (found && (v >> 8 != probe || (v & 0xff) > 2 || ((v & 0xff) == 0 && probe % 7 != 0)))
          ++mine.bad_reads;
        else if (!found && probe % 7 == 0) ++mine.bad_reads;  // pre-loaded keys never vanish
      }
    std::lock_guard<std::mutex> g(mu);
    out.bad_reads += mine.bad_reads;
    out.gave_up += mine.gave_up;
    out.errors += mine.errors;
    out.inserts += mine.inserts;
  });
  b->run();
  uint64_t keys = 0;
  *structure = t->check_structure(*b, &keys);
  EXPECT_EQ(keys, key_space);
  EXPECT_GE(t->height(*b), 3u) << "expected splits over several levels";
  uint64_t missing = 0;
  for (uint64_t k = 0; k < key_space; ++k) {
    uint64_t v = 0;
    if (!t->host_lookup(*b, k, &v) || v != value_of(k, 2)) ++missing;
  }
  EXPECT_EQ(missing, 0u) << "keys without their last value";
  return out;
}

TEST(BTree, ConcurrentInsertsOnSimSpecOverSeeds) {
  for (BTreeSync sync : kSynced)
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(std::string(to_string(sync)) + " seed " + std::to_string(seed));
      std::string structure;
      Outcome o = concurrent_inserts(small_cluster("sim", seed), sync, 200, &structure);
      EXPECT_EQ(structure, "");
      EXPECT_EQ(o.bad_reads, 0u);
      EXPECT_EQ(o.gave_up, 0u);
      EXPECT_EQ(o.errors, 0u);
      EXPECT_EQ(o.inserts, 8u * 200 * 2);
    }
}

TEST(BTree, ConcurrentInsertsOnAdversarialThreads) {
  for (BTreeSync sync : kSynced) {
    SCOPED_TRACE(to_string(sync));
    ClusterConfig c = small_cluster("threads", 1);
    c.threads.adversarial = true;
    std::string structure;
    Outcome o = concurrent_inserts(c, sync, 400, &structure);
    EXPECT_EQ(structure, "");
    EXPECT_EQ(o.bad_reads, 0u);
    EXPECT_EQ(o.gave_up, 0u);
    EXPECT_EQ(o.errors, 0u);
  }
}

TEST(BTree, UnsynchronizedInsertIsUnsupportedAndOptionsAreChecked) {
  BTreeOptions o;
  o.node_bytes = 100;
  EXPECT_NE(o.validate().find("multiple of 64"), std::string::npos);
  o = BTreeOptions();
  o.fill = 0;
  EXPECT_NE(o.validate().find("fill"), std::string::npos);
  BTreeSync s;
  EXPECT_TRUE(parse_btree_sync("optimistic", &s));
  EXPECT_EQ(s, BTreeSync::kOptimistic);
  EXPECT_FALSE(parse_btree_sync("nope", &s));
  std::unique_ptr<Backend> b = backend_for(small_cluster("sim", 1));
  std::unique_ptr<BTree> t = tree(*b, BTreeSync::kUnsynchronized, 4096);
  Status got = Status::kOk;
  b->spawn(Placement{}, [&](Worker& w) -> Task<void> { got = co_await t->insert(w, 1, 1); });
  b->run();
  EXPECT_EQ(got, Status::kUnsupported);
}

}  // namespace
}  // namespace lw

namespace lw {
namespace {

// Keys below a bulk-loaded tree's smallest key go to the leftmost leaf; its
// splits must keep every inner node's keys sorted (the leftmost fence is
// minus infinity, not the smallest key at load time).
TEST(BTreeFences, InsertsBelowTheBulkLoadedMinimumKeepTheStructure) {
  for (BTreeSync sync : {BTreeSync::kOptimistic, BTreeSync::kPessimistic}) {
    ClusterConfig c;
    c.memory_node_bytes = 8ull << 20;
    SimBackend sim(c);
    BTreeOptions t;
    t.sync = sync;
    t.node_bytes = 256;
    std::unique_ptr<BTree> tree;
    ASSERT_EQ(BTree::create(sim, t, &tree), "");
    std::vector<std::pair<uint64_t, uint64_t>> kv;
    for (uint64_t k = 1000; k < 1400; ++k) kv.emplace_back(k, k);
    ASSERT_EQ(tree->bulk_load(sim, kv), "");
    sim.spawn_compute([&](Worker& w) -> Task<void> {
      for (uint64_t k = 1; k < 300; ++k) EXPECT_EQ(co_await tree->insert(w, k, k + 7), Status::kOk);
    });
    sim.run();
    EXPECT_EQ(tree->check_structure(sim), "") << to_string(sync);
    uint64_t v = 0;
    EXPECT_TRUE(tree->host_lookup(sim, 5, &v));
    EXPECT_EQ(v, 12u);
  }
}

}  // namespace
}  // namespace lw
