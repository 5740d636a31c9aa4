// The RACE hash table: map semantics one operation at a time (absent keys,
// duplicates, updates, removes) on every backend, three READs per lookup
// that finds its key, concurrent inserts of one key leaving one copy, and a
// YCSB-like mix on many workers whose final contents (a full scan of the
// buckets) equal a model exactly, on the simulator under spec and on real
// threads.
#include "latchwork/structures/race/hash_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "latchwork/backends.h"
#include "latchwork/runtime/smart.h"

namespace lw::race {
namespace {

ClusterConfig cluster(const std::string& backend, uint32_t memory_nodes, uint64_t seed = 1) {
  ClusterConfig c;
  c.backend = backend;
  c.set_profile("spec");
  c.memory_nodes = memory_nodes;
  c.memory_node_bytes = 16ull << 20;
  c.seed = seed;
  return c;
}

std::unique_ptr<Backend> backend_for(const ClusterConfig& c) {
  std::string err;
  std::unique_ptr<Backend> b = make_backend(c, &err);
  EXPECT_TRUE(b) << err;
  return b;
}

HashTable table(Backend& b, uint64_t capacity = 4096, Variant v = Variant::kCorrect) {
  TableConfig t;
  t.capacity = capacity;
  t.variant = v;
  t.block_chunk_bytes = 16u << 10;
  Result<HashTable> r = HashTable::create(b, t);
  LW_CHECK(r.ok());
  return r.value;
}

std::map<uint64_t, uint64_t> contents(Backend& b, const HashTable& t) {
  std::string why;
  Result<std::map<uint64_t, uint64_t>> r = t.host_contents(b, &why);
  EXPECT_TRUE(r.ok()) << why;
  return r.value;
}

TEST(RaceHashTable, ConfigAndLayout) {
  TableConfig t;
  EXPECT_EQ(t.validate(), "");
  t.max_load = 0;
  EXPECT_NE(t.validate(), "");
  t = {};
  t.capacity = 0;
  EXPECT_NE(t.validate(), "");
  auto b = backend_for(cluster("sim", 3));
  HashTable h = table(*b, 1000);
  // Subtables: a power of two covering the memory nodes; the slots cover
  // capacity / max_load.
  EXPECT_EQ(h.shape().subtables, 4u);
  EXPECT_EQ(h.shape().global_depth, 2u);
  EXPECT_GE(h.shape().slots, 2000u);
  EXPECT_TRUE(contents(*b, h).empty());
  // Too large for the nodes: a status, not a crash.
  TableConfig huge;
  huge.capacity = TableConfig::kMaxCapacity;
  EXPECT_EQ(HashTable::create(*b, huge).status, Status::kOutOfBounds);
}

// Runs `body` as the only worker of a one-thread cluster.
template <typename F>
void one_worker(Backend& b, F body) {
  smart::Runtime rt(b.config());
  b.spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    co_await body(ctx);
  });
  b.run();
}

TEST(RaceHashTable, SequentialMapSemanticsOnEveryBackend) {
  for (const char* backend : {"sim", "threads"})
    for (uint32_t nodes : {1u, 2u}) {
      SCOPED_TRACE(std::string(backend) + " with " + std::to_string(nodes) + " memory node(s)");
      auto b = backend_for(cluster(backend, nodes));
      HashTable t = table(*b);
      ASSERT_EQ(t.host_insert(*b, 7, 70), Status::kOk);
      ASSERT_EQ(t.host_insert(*b, 7, 71), Status::kOk);  // the load phase updates too
      one_worker(*b, [&](smart::Context& ctx) -> Task<void> {
        Result<HashTable::Found> f = co_await t.lookup(ctx, 7);
        EXPECT_TRUE(f.ok() && f.value.found && f.value.value == 71);
        f = co_await t.lookup(ctx, 8);
        EXPECT_TRUE(f.ok() && !f.value.found) << "an absent key";
        Result<bool> r = co_await t.update(ctx, 8, 1);
        EXPECT_TRUE(r.ok() && !r.value) << "update of an absent key";
        r = co_await t.remove(ctx, 8);
        EXPECT_TRUE(r.ok() && !r.value) << "remove of an absent key";
        r = co_await t.insert(ctx, 8, 80);
        EXPECT_TRUE(r.ok() && r.value) << "insert of an absent key inserts";
        r = co_await t.insert(ctx, 8, 81);
        EXPECT_TRUE(r.ok() && !r.value) << "insert of a present key updates";
        f = co_await t.lookup(ctx, 8);
        EXPECT_TRUE(f.ok() && f.value.found && f.value.value == 81);
        r = co_await t.update(ctx, 7, 72);
        EXPECT_TRUE(r.ok() && r.value);
        f = co_await t.lookup(ctx, 7);
        EXPECT_TRUE(f.ok() && f.value.found && f.value.value == 72);
        r = co_await t.remove(ctx, 7);
        EXPECT_TRUE(r.ok() && r.value);
        r = co_await t.remove(ctx, 7);
        EXPECT_TRUE(r.ok() && !r.value) << "removed twice";
        f = co_await t.lookup(ctx, 7);
        EXPECT_TRUE(f.ok() && !f.value.found);
        r = co_await t.insert(ctx, 7, 73);  // back after a remove
        EXPECT_TRUE(r.ok() && r.value);
        for (uint64_t k = 100; k < 300; ++k) EXPECT_TRUE((co_await t.insert(ctx, k, k * 10)).ok());
        for (uint64_t k = 100; k < 300; k += 2) EXPECT_TRUE((co_await t.remove(ctx, k)).value);
      });
      std::map<uint64_t, uint64_t> want = {{7, 73}, {8, 81}};
      for (uint64_t k = 101; k < 300; k += 2) want[k] = k * 10;
      EXPECT_EQ(contents(*b, t), want);
    }
}

TEST(RaceHashTable, FoundLookupIsThreeReadsInTwoRoundTrips) {
  for (uint32_t nodes : {1u, 2u}) {
    auto b = backend_for(cluster("sim", nodes));
    HashTable t = table(*b);
    ASSERT_EQ(t.host_insert(*b, 5, 50), Status::kOk);  // alone: no fingerprint collision
    one_worker(*b, [&](smart::Context& ctx) -> Task<void> {
      const Worker& w = ctx.worker();
      OpCounters before = w.counters();
      Result<HashTable::Found> f = co_await t.lookup(ctx, 5);
      EXPECT_TRUE(f.ok() && f.value.found && f.value.value == 50);
      // SMART §6.2.1: three READs: both combined buckets (one batch: they
      // share the subtable's node), then the key-value block.
      EXPECT_EQ(w.counters().work_requests - before.work_requests, 3u);
      EXPECT_EQ(w.counters().round_trips - before.round_trips, 2u);
      EXPECT_EQ(w.counters().bytes_read - before.bytes_read, 2u * 128 + 64);
      before = w.counters();
      f = co_await t.lookup(ctx, 6);
      EXPECT_TRUE(f.ok() && !f.value.found);
      // An absent key (no fingerprint match): the buckets only.
      EXPECT_LE(w.counters().work_requests - before.work_requests, 3u);
      EXPECT_EQ(w.counters().round_trips - before.round_trips,
                w.counters().work_requests - before.work_requests - 1);
      // An update: WRITE the block, READ the buckets (batch), READ the old
      // block, CAS: four round trips (once the worker's block chunk is
      // taken: the insert of key 9 takes it, by RPC where chunks come so).
      EXPECT_TRUE((co_await t.insert(ctx, 9, 90)).ok());
      before = w.counters();
      Result<bool> u = co_await t.update(ctx, 5, 51);
      EXPECT_TRUE(u.ok() && u.value);
      EXPECT_EQ(w.counters().round_trips - before.round_trips, 4u);
    });
  }
}

TEST(RaceHashTable, FullBucketsAreAnErrorStatus) {
  auto b = backend_for(cluster("sim", 1));
  HashTable t = table(*b, 1);  // two groups per subtable: 42 slots
  Status last = Status::kOk;
  uint64_t inserted = 0;
  for (uint64_t k = 1; k < 1000 && ok(last); ++k)
    if (ok(last = t.host_insert(*b, k, k))) ++inserted;
  EXPECT_EQ(last, Status::kOutOfBounds);
  EXPECT_LE(inserted, 42u);
  EXPECT_EQ(contents(*b, t).size(), inserted);
  // Through the verbs too.
  one_worker(*b, [&](smart::Context& ctx) -> Task<void> {
    Status s = Status::kOk;
    for (uint64_t k = 5000; k < 6000 && ok(s); ++k) s = (co_await t.insert(ctx, k, k)).status;
    EXPECT_EQ(s, Status::kOutOfBounds);
  });
}

// A subtable larger than one transfer (kMaxTransferBytes, 16 MiB) is
// initialised in pieces: 2^21 keys used to fail an invariant in create().
TEST(RaceHashTable, SubtablesLargerThanOneTransferAreCreated) {
  ClusterConfig c = cluster("sim", 1);
  c.memory_node_bytes = 256ull << 20;
  auto b = backend_for(c);
  HashTable t = table(*b, uint64_t{1} << 21);
  const uint64_t subtable_bytes = t.shape().groups_per_subtable * 192;
  ASSERT_GT(subtable_bytes, uint64_t{kMaxTransferBytes});
  const uint64_t keys[] = {1, 2, 3, 0x7fff'ffff'ffffull};
  for (uint64_t k : keys) ASSERT_EQ(t.host_insert(*b, k, k * 10), Status::kOk);
  std::map<uint64_t, uint64_t> want;
  for (uint64_t k : keys) want[k] = k * 10;
  EXPECT_EQ(contents(*b, t), want);
}

// Every worker inserts the same keys at once with its own values: inserts
// that found a key absent race into different empty slots; resolution must
// leave one copy (host_contents fails on a key in two slots), and every
// worker's lookup afterwards agrees.
void same_key_inserts(const std::string& backend, uint64_t seed, uint64_t* duplicates) {
  ClusterConfig c = cluster(backend, 2, seed);
  c.compute_nodes = 2;
  c.threads_per_node = 4;
  c.coroutines_per_thread = backend == "sim" ? 4 : 1;
  auto b = backend_for(c);
  HashTable t = table(*b, 64);
  smart::Runtime rt(b->config());
  constexpr uint64_t kKeys = 8;
  std::mutex mu;
  std::map<uint64_t, std::set<uint64_t>> seen;  // key -> values lookups returned at the end
  std::set<uint64_t> written;
  std::atomic<uint64_t> done{0};
  const uint64_t workers = c.total_workers();
  b->spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    const uint64_t me = (uint64_t{w.placement().node} << 20) | (w.placement().thread << 10) | w.placement().coroutine;
    for (uint64_t k = 1; k <= kKeys; ++k) {
      Result<bool> r = co_await t.insert(ctx, k, (me + 1) << 8 | k);
      EXPECT_TRUE(r.ok()) << to_string(r.status);
      std::lock_guard<std::mutex> g(mu);
      written.insert((me + 1) << 8 | k);
    }
    // Then, once every insert returned, every worker looks every key up.
    done.fetch_add(1);
    for (int i = 0; i < 100000 && done.load() < workers; ++i) co_await w.sleep(1000);
    EXPECT_EQ(done.load(), workers);
    for (uint64_t k = 1; k <= kKeys; ++k) {
      Result<HashTable::Found> f = co_await t.lookup(ctx, k);
      std::lock_guard<std::mutex> g(mu);
      if (f.ok() && f.value.found) seen[k].insert(f.value.value);
    }
  });
  b->run();
  const std::map<uint64_t, uint64_t> got = contents(*b, t);
  EXPECT_EQ(got.size(), kKeys);
  for (auto [k, v] : got) {
    EXPECT_EQ(v & 0xff, k);
    EXPECT_TRUE(written.count(v)) << "a value no insert wrote";
  }
  for (auto [k, v] : got) EXPECT_EQ(seen[k], std::set<uint64_t>{v}) << "key " << k;
  *duplicates += t.duplicates_removed();
}

TEST(RaceHashTable, ConcurrentInsertsOfOneKeyLeaveOneCopy) {
  uint64_t duplicates = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) same_key_inserts("sim", seed, &duplicates);
  for (int i = 0; i < 5; ++i) same_key_inserts("threads", 1, &duplicates);
  // Empty slots are drawn at random among the free ones: racing inserts of
  // one absent key do take different slots, and resolution removes copies.
  EXPECT_GT(duplicates, 0u);
}

// YCSB-like: 50% lookups of any key (skewed to a few hot keys), 50% writes
// (insert, update, remove) of the worker's own keys, so that the final
// contents are exactly what each worker's own model says. Lookups check a
// returned value belongs to the key.
void ycsb_mix(const ClusterConfig& c, uint32_t ops) {
  auto b = backend_for(c);
  HashTable t = table(*b, 2048);
  const uint32_t workers = static_cast<uint32_t>(c.total_workers());
  constexpr uint64_t kKeysPerWorker = 32;
  const uint64_t keys = kKeysPerWorker * workers;
  // Load phase: every even key.
  std::map<uint64_t, uint64_t> model;
  for (uint64_t k = 2; k <= keys; k += 2) {
    ASSERT_EQ(t.host_insert(*b, k, k << 32), Status::kOk);
    model[k] = k << 32;
  }
  smart::Runtime rt(b->config());
  std::mutex mu;
  std::vector<std::map<uint64_t, std::optional<uint64_t>>> own(workers);
  b->spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    const Placement& p = w.placement();
    const uint32_t me = static_cast<uint32_t>(thread_index(c, p) * c.coroutines_per_thread + p.coroutine);
    std::map<uint64_t, std::optional<uint64_t>> mine;
    for (uint32_t i = 0; i < ops; ++i) {
      if (w.rng().below(2) == 0) {
        // Half the lookups go to 8 hot keys.
        const uint64_t k = w.rng().below(2) ? w.rng().below(8) + 1 : w.rng().below(keys) + 1;
        Result<HashTable::Found> f = co_await t.lookup(ctx, k);
        EXPECT_TRUE(f.ok());
        if (f.value.found) {
          EXPECT_EQ(f.value.value >> 32, k) << "a value of another key";
        }
        continue;
      }
      // Worker `me` owns keys me + 1, me + 1 + workers, ...
      const uint64_t k = me + 1 + w.rng().below(kKeysPerWorker) * workers;
      const uint64_t v = k << 32 | (i + 1);
      const uint64_t pick = w.rng().below(3);
      if (pick == 0) {
        Result<bool> r = co_await t.insert(ctx, k, v);
        EXPECT_TRUE(r.ok());
        mine[k] = v;
      } else if (pick == 1) {
        Result<bool> r = co_await t.update(ctx, k, v);
        EXPECT_TRUE(r.ok());
        if (r.value) mine[k] = v;
      } else {
        EXPECT_TRUE((co_await t.remove(ctx, k)).ok());
        mine[k] = std::nullopt;
      }
    }
    std::lock_guard<std::mutex> g(mu);
    own[me] = std::move(mine);
  });
  b->run();
  for (const auto& mine : own)
    for (const auto& [k, v] : mine) {
      if (v) model[k] = *v;
      else model.erase(k);
    }
  EXPECT_EQ(contents(*b, t), model);
}

TEST(RaceHashTable, YcsbMixFinalContentsEqualTheModelOnSim) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ClusterConfig c = cluster("sim", seed % 2 ? 2 : 3, seed);
    c.compute_nodes = 2;
    c.threads_per_node = 2;
    c.coroutines_per_thread = 4;
    c.smart.backoff = seed % 2 == 0;  // SMART-HT's conflict avoidance on some seeds
    c.smart.throttling = seed % 2 == 0;
    ycsb_mix(c, 200);
  }
}

TEST(RaceHashTable, YcsbMixFinalContentsEqualTheModelOnThreads) {
  for (bool adversarial : {false, true}) {
    SCOPED_TRACE(adversarial ? "adversarial" : "plain");
    ClusterConfig c = cluster("threads", 2);
    c.compute_nodes = 2;
    c.threads_per_node = 4;
    c.coroutines_per_thread = 2;
    c.threads.adversarial = adversarial;
    ycsb_mix(c, 2000);
  }
}

}  // namespace
}  // namespace lw::race
