// Store plans and their cache: a store built from a shared plan is byte for
// byte the store built alone, and a plan is reused only for equal inputs; a
// later build maps the first build's memory image only where it is the same.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <thread>
#include <tuple>

#include "latchwork/backends.h"
#include "base/setup_store.h"
#include "txn/store_plan_cache.h"
#include "verbs/node_memory_reuse.h"

namespace lw::txn {
namespace {

const std::vector<TableSpec> kTables = {{"small", 8}, {"wide", 100}};

// Rows 1000 to 1799 hold zero payloads: their records are zero images, which
// set-up leaves unwritten on backends whose fresh memory reads zero.
bool zero_row(uint64_t k) { return k >= 1000 && k < 1800; }

std::byte payload_byte(uint64_t k, size_t i, uint8_t salt) {
  return zero_row(k) ? std::byte{0} : static_cast<std::byte>(k * 31 + i + salt);
}

// Keys spread so that some buckets overflow into their neighbours.
StoreLoader load(uint64_t rows, uint8_t salt = 0) {
  StoreLoader l;
  for (uint64_t k = 0; k < rows; ++k) {
    std::array<std::byte, 100> p{};
    for (size_t i = 0; i < p.size(); ++i) p[i] = payload_byte(k, i, salt);
    const TableId t = static_cast<TableId>(k % 2);
    l.add(t, k * 7919, std::span<const std::byte>(p.data(), kTables[t].payload_bytes));
  }
  return l;
}

NodeId by_key(TableId, uint64_t key, uint32_t nodes) { return static_cast<NodeId>(key % nodes); }
NodeId all_on_zero(TableId, uint64_t, uint32_t) { return 0; }

StoreOptions options() {
  StoreOptions o;
  o.nodes = 3;
  o.replicas = 2;
  o.coordinators = 2;
  o.log_ring_bytes = 4096;
  return o;
}

std::unique_ptr<Backend> backend(const char* kind = "sim") {
  ClusterConfig c;
  c.backend = kind;
  c.memory_nodes = 3;
  std::string err;
  auto b = make_backend(c, &err);
  EXPECT_TRUE(b) << err;
  return b;
}

// Every byte the store wrote: each node's index and records, per table.
std::vector<std::byte> images(const Store& s) {
  std::vector<std::byte> out;
  for (NodeId n = 0; n < s.nodes(); ++n)
    for (TableId t = 0; t < s.tables().size(); ++t) {
      const TablePlacement& p = s.placement(n, t);
      for (auto [at, len] : {std::pair{p.index, p.buckets * kBucketBytes},
                             std::pair{p.records, p.record_count * s.record_bytes(t)}}) {
        const size_t old = out.size();
        out.resize(old + len);
        s.backend().host_read(at, out.data() + old, len);
      }
    }
  return out;
}

// With StoreOptions::node_bytes the plan refuses a store that cannot fit a
// node before laying it out, and the least it asks for is no more than what
// a built store takes: a store that fits is never refused.
TEST(TxnStorePlan, RefusesAStoreLargerThanItsNodesBeforeLayingItOut) {
  StoreOptions o = options();
  std::string err;
  // What the fullest node takes once built: its indexes, records and rings.
  auto b = backend();
  auto built = Store::build(*b, kTables, by_key, load(3000), o, &err);
  ASSERT_TRUE(built) << err;
  uint64_t fullest = 0;
  for (NodeId n = 0; n < built->nodes(); ++n) {
    uint64_t bytes = uint64_t{o.coordinators} * o.log_ring_bytes;
    for (TableId t = 0; t < built->tables().size(); ++t) {
      const TablePlacement& p = built->placement(n, t);
      bytes += p.buckets * kBucketBytes + p.record_count * built->record_bytes(t);
    }
    fullest = std::max(fullest, bytes);
  }
  o.node_bytes = fullest;
  EXPECT_TRUE(StorePlan::make(kTables, by_key, load(3000), o, &err)) << err;
  // Everything on node 0: the lower bound alone exceeds the same budget.
  err.clear();
  EXPECT_FALSE(StorePlan::make(kTables, all_on_zero, load(3000), o, &err));
  EXPECT_EQ(err.rfind(kStoreDoesNotFit, 0), 0u) << err;
  EXPECT_NE(err.find("memory node 0: it needs at least"), std::string::npos) << err;
  // A tenth of the budget refuses the spread store too; unchecked, it plans.
  o.node_bytes = fullest / 10;
  err.clear();
  EXPECT_FALSE(StorePlan::make(kTables, by_key, load(3000), o, &err));
  EXPECT_EQ(err.rfind(kStoreDoesNotFit, 0), 0u) << err;
  o.node_bytes = 0;
  EXPECT_TRUE(StorePlan::make(kTables, by_key, load(3000), o, &err)) << err;
}

TEST(TxnStorePlan, SharedPlanBuildsTheSameStore) {
  auto b1 = backend(), b2 = backend(), b3 = backend();
  std::string err;
  auto alone = Store::build(*b1, kTables, by_key, load(3000), options(), &err);
  ASSERT_TRUE(alone) << err;

  StorePlanCache cache(1ull << 30);
  auto p1 = cache.plan(kTables, by_key, load(3000), options(), &err);
  auto p2 = cache.plan(kTables, by_key, load(3000), options(), &err);
  ASSERT_TRUE(p1 && p2) << err;
  EXPECT_EQ(p1, p2);
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.bytes(), p1->bytes());
  auto s1 = Store::build(*b2, p1, by_key, options(), &err);
  auto s2 = Store::build(*b3, p2, by_key, options(), &err);
  ASSERT_TRUE(s1 && s2) << err;

  const std::vector<std::byte> want = images(*alone);
  EXPECT_EQ(images(*s1), want);
  EXPECT_EQ(images(*s2), want);
  // And that image is right: every copy found through its node's index, as
  // a one-sided lookup finds it, holding its loaded payload.
  for (TableId t = 0; t < kTables.size(); ++t) {
    EXPECT_EQ(s1->keys(t), alone->keys(t));
    for (uint64_t key : s1->keys(t))
      for (uint32_t r = 0; r < 2; ++r) {
        const RemoteAddr a = s1->address(t, key, r);
        ASSERT_EQ(a, alone->address(t, key, r));
        const TablePlacement& p = s1->placement(s1->node_of(t, key, r), t);
        uint64_t found = 0, bucket = store_bucket(t, key, p.buckets);
        for (uint32_t probe = 0; probe < p.max_probe && found == 0; ++probe, bucket = (bucket + 1) % p.buckets) {
          std::array<std::byte, kBucketBytes> img;
          b2->host_read(p.index + bucket * kBucketBytes, img.data(), img.size());
          found = Store::find_in_bucket(img, key);
        }
        ASSERT_EQ(found, a.offset()) << "table " << t << " key " << key << " replica " << r;
        std::array<std::byte, 100> payload{}, want{};
        ASSERT_TRUE(s1->host_read(t, key, r, nullptr, payload));
        for (size_t i = 0; i < kTables[t].payload_bytes; ++i) want[i] = payload_byte(key / 7919, i, 0);
        ASSERT_EQ(payload, want) << "table " << t << " key " << key;
      }
  }
  // Some key sits past its home bucket, so the images cover probe chains.
  uint64_t chained = 0;
  for (NodeId n = 0; n < 3; ++n)
    for (TableId t = 0; t < 2; ++t) {
      const StorePlan::Part& part = p1->parts[n][t];
      for (uint64_t bucket = 0; bucket < part.buckets; ++bucket)
        for (uint32_t slot = 0; slot < kBucketSlots; ++slot) {
          uint64_t k1;
          std::memcpy(&k1, part.index.data() + bucket * kBucketBytes + slot * 16, 8);
          if (k1 != 0 && store_bucket(t, k1 - 1, part.buckets) != bucket) ++chained;
        }
    }
  EXPECT_GT(chained, 0u);
}

TEST(TxnStorePlan, ReusedOnlyForEqualInputs) {
  StorePlanCache cache(1ull << 30);
  std::string err;
  auto base = cache.plan(kTables, by_key, load(500), options(), &err);
  ASSERT_TRUE(base) << err;
  // One payload byte, the home function, a layout option, a table: each a new plan.
  auto other_payload = cache.plan(kTables, by_key, load(500, 1), options(), &err);
  auto other_home = cache.plan(kTables, all_on_zero, load(500), options(), &err);
  StoreOptions looser = options();
  looser.index_load = 0.25;
  auto other_load = cache.plan(kTables, by_key, load(500), looser, &err);
  std::vector<TableSpec> wider = kTables;
  wider[1].payload_bytes = 120;
  auto other_table = cache.plan(wider, by_key, load(500), options(), &err);
  for (const auto& p : {other_payload, other_home, other_load, other_table}) {
    ASSERT_TRUE(p) << err;
    EXPECT_NE(p, base);
  }
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(cache.misses(), 5u);
  EXPECT_NE(other_payload->loader, base->loader);
  EXPECT_NE(other_home->row_primary, base->row_primary);
  EXPECT_GT(other_load->parts[0][0].buckets, base->parts[0][0].buckets);
  // Options outside the layout (log rings, coordinators) share the plan.
  StoreOptions more_logs = options();
  more_logs.coordinators = 9;
  more_logs.log_ring_bytes = 8192;
  EXPECT_EQ(cache.plan(kTables, by_key, load(500), more_logs, &err), base);
  EXPECT_EQ(cache.hits(), 1u);
}

TEST(TxnStorePlan, BoundedByBytes) {
  std::string err;
  auto one = StorePlan::make(kTables, by_key, load(400), options(), &err);
  ASSERT_TRUE(one) << err;
  // Room for one plan of this size, not two: the older goes.
  StorePlanCache cache(one->bytes() + one->bytes() / 2);
  auto a = cache.plan(kTables, by_key, load(400), options(), &err);
  auto b = cache.plan(kTables, by_key, load(400, 1), options(), &err);
  EXPECT_LE(cache.bytes(), one->bytes() + one->bytes() / 2);
  EXPECT_EQ(cache.plan(kTables, by_key, load(400, 1), options(), &err), b);
  EXPECT_NE(cache.plan(kTables, by_key, load(400), options(), &err), a);  // made again
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 3u);
  // A plan larger than the bound is made but not kept.
  StorePlanCache tiny(1);
  ASSERT_TRUE(tiny.plan(kTables, by_key, load(400), options(), &err));
  EXPECT_EQ(tiny.bytes(), 0u);
  ASSERT_TRUE(tiny.plan(kTables, by_key, load(400), options(), &err));
  EXPECT_EQ(tiny.misses(), 2u);
}

TEST(TxnStorePlan, ConcurrentRequestsMakeOnePlan) {
  StorePlanCache cache(1ull << 30);
  std::shared_ptr<const StorePlan> got[4];
  std::vector<std::thread> threads;
  for (auto& g : got)
    threads.emplace_back([&cache, &g] {
      std::string err;
      g = cache.plan(kTables, by_key, load(2000), options(), &err);
    });
  for (auto& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g, got[0]);
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(cache.hits(), 3u);
}

// A loader that expects a plan stores nothing while its records match, and
// ends as a loader of its own, equal to one loaded plainly, when they do not.
TEST(TxnStorePlan, ExpectingLoaderMatchesOrSettles) {
  StorePlanCache cache(1ull << 30);
  std::string err;
  EXPECT_EQ(cache.candidate(kTables, options()), nullptr);
  auto base = cache.plan(kTables, by_key, load(600), options(), &err);
  ASSERT_TRUE(base) << err;
  ASSERT_EQ(cache.candidate(kTables, options()), base);
  EXPECT_EQ(cache.candidate({{"other", 8}}, options()), nullptr);
  StoreOptions looser = options();
  looser.index_load = 0.25;
  EXPECT_EQ(cache.candidate(kTables, looser), nullptr);

  auto expecting = [&](uint64_t rows, uint8_t salt) {
    StoreLoader l;
    l.expect(cache.candidate(kTables, options()));
    for (uint64_t k = 0; k < rows; ++k) {  // load()'s records, through the expecting loader
      std::array<std::byte, 100> p{};
      for (size_t j = 0; j < p.size(); ++j) p[j] = payload_byte(k, j, salt);
      const TableId t = static_cast<TableId>(k % 2);
      l.add(t, k * 7919, std::span<const std::byte>(p.data(), kTables[t].payload_bytes));
    }
    return l;
  };
  StoreLoader same = expecting(600, 0);
  EXPECT_TRUE(same.loaded_expected());
  EXPECT_EQ(same.records(), 600u);
  EXPECT_EQ(same, load(600));
  EXPECT_EQ(cache.plan(kTables, by_key, std::move(same), options(), &err), base);
  EXPECT_EQ(cache.hits(), 1u);
  // The same records with another home: not the plan.
  auto moved = cache.plan(kTables, all_on_zero, expecting(600, 0), options(), &err);
  ASSERT_TRUE(moved) << err;
  EXPECT_NE(moved, base);
  EXPECT_EQ(moved->loader, load(600));

  // Fewer records (a prefix), a different payload, more records: each ends
  // equal to the plain load, and gets its own plan.
  for (auto [rows, salt] : {std::pair<uint64_t, uint8_t>{300, 0}, {600, 1}, {900, 0}}) {
    StoreLoader l = expecting(rows, salt);
    EXPECT_FALSE(l.loaded_expected()) << rows << " rows, salt " << int{salt};
    EXPECT_EQ(l.records(), rows);
    l.settle();
    EXPECT_EQ(l, load(rows, salt));
    auto p = cache.plan(kTables, by_key, expecting(rows, salt), options(), &err);
    ASSERT_TRUE(p) << err;
    EXPECT_NE(p, base);
    EXPECT_EQ(p->loader, load(rows, salt));
    EXPECT_EQ(p->row_dir.size(), rows);
  }
}

// A load key of its own per salt (TxnWorkload::load_key).
std::string salted(int salt) { return "salted/" + std::to_string(salt); }

// A workload's load key recalls the plan an equal key loaded, without
// loading: only for the same key, tables and layout, and the home answers are
// still compared.
TEST(TxnStorePlan, ALoadKeyRecallsThePlanItLoaded) {
  StorePlanCache cache(1ull << 30);
  std::string err;
  const std::string one = salted(1);
  bool recalled = true;
  StoreLoader first = cache.loader_for(one, kTables, options(), &recalled);
  EXPECT_FALSE(recalled) << "nothing loaded yet";
  auto base = cache.plan(kTables, by_key, load(600), options(), &err, one);
  ASSERT_TRUE(base) << err;

  StoreLoader again = cache.loader_for(salted(1), kTables, options(), &recalled);
  EXPECT_TRUE(recalled);
  EXPECT_TRUE(again.loaded_expected());
  EXPECT_EQ(again.records(), 600u);
  EXPECT_EQ(again, load(600));
  EXPECT_EQ(cache.plan(kTables, by_key, std::move(again), options(), &err), base);
  EXPECT_EQ(cache.hits(), 1u);

  // Another key, other tables or layout: loaded as before (an
  // expecting loader, empty).
  StoreOptions looser = options();
  looser.index_load = 0.25;
  for (auto [id, tables, o] : {std::tuple{2, kTables, options()}, std::tuple{1, std::vector<TableSpec>{{"small", 8}}, options()},
                               std::tuple{1, kTables, looser}}) {
    StoreLoader l = cache.loader_for(salted(id), tables, o, &recalled);
    EXPECT_FALSE(recalled) << id;
    EXPECT_EQ(l.records(), 0u);
  }
  EXPECT_FALSE((cache.loader_for(std::string(), kTables, options(), &recalled), recalled));

  // Recalled, but with another home: a plan of its own, for the same records.
  StoreLoader moved_loader = cache.loader_for(one, kTables, options(), &recalled);
  ASSERT_TRUE(recalled);
  auto moved = cache.plan(kTables, all_on_zero, std::move(moved_loader), options(), &err, one);
  ASSERT_TRUE(moved) << err;
  EXPECT_NE(moved, base);
  EXPECT_EQ(moved->loader, load(600));
  for (size_t i = 0; i < moved->row_primary.size(); ++i) ASSERT_EQ(moved->row_primary[i], 0u) << i;

  // A second key that loaded the same records is remembered too.
  const std::string three = salted(3);
  EXPECT_EQ(cache.plan(kTables, by_key, load(600), options(), &err, three), base);
  cache.loader_for(three, kTables, options(), &recalled);
  EXPECT_TRUE(recalled);
}

TEST(TxnStorePlan, FailuresAreReportedAndNotKept) {
  StorePlanCache cache(1ull << 30);
  std::string err;
  StoreLoader twice = load(10);
  std::array<std::byte, 8> p{};
  twice.add(0, 0, p);  // key 0 of table 0 again
  EXPECT_FALSE(cache.plan(kTables, by_key, twice, options(), &err));
  EXPECT_NE(err.find("twice"), std::string::npos) << err;
  err.clear();
  EXPECT_FALSE(cache.plan(kTables, by_key, twice, options(), &err));
  EXPECT_NE(err.find("twice"), std::string::npos) << err;
  EXPECT_EQ(cache.bytes(), 0u);
  auto beyond = [](TableId, uint64_t, uint32_t nodes) { return static_cast<NodeId>(nodes); };
  EXPECT_FALSE(cache.plan(kTables, beyond, load(10), options(), &err));
  EXPECT_NE(err.find("beyond"), std::string::npos) << err;
  StoreOptions bad = options();
  bad.nodes = 0;
  EXPECT_FALSE(cache.plan(kTables, by_key, load(10), bad, &err));
  EXPECT_NE(err.find("nodes"), std::string::npos) << err;
}

// The set-up store's hits and bytes since a point (store images are the
// only products these builds look up).
struct StoreCounts {
  uint64_t hits0 = SetupStore::process().hits(), bytes0 = SetupStore::process().bytes();
  uint64_t hits() const { return SetupStore::process().hits() - hits0; }
  uint64_t bytes() const { return SetupStore::process().bytes() - bytes0; }
};

// A store built again from a cached plan at the same addresses copies the
// first build's memory image (Store::build, kept in the set-up store while
// node memory reuse is in effect): the same bytes, and its own from then on.
TEST(TxnStoreImage, ALaterBuildInstallsTheFirstBuildsImage) {
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  ASSERT_TRUE(NodeMemoryReuse::active());
  auto b0 = backend(), b1 = backend(), b2 = backend(), b3 = backend();
  std::string err;
  auto alone = Store::build(*b0, kTables, by_key, load(3000), options(), &err);
  ASSERT_TRUE(alone) << err;
  const std::vector<std::byte> want = images(*alone);

  StorePlanCache cache(1ull << 30);
  auto plan = cache.plan(kTables, by_key, load(3000), options(), &err);
  ASSERT_TRUE(plan) << err;
  const StoreCounts counts;
  auto first = Store::build(*b1, plan, by_key, options(), &err);
  ASSERT_TRUE(first) << err;
  EXPECT_EQ(counts.hits(), 0u);
  EXPECT_GT(counts.bytes(), 0u) << "the first build left its image";
  // More coordinators: more log ring memory after the tables, same image.
  StoreOptions more = options();
  more.coordinators = 5;
  auto second = Store::build(*b2, plan, by_key, more, &err);
  ASSERT_TRUE(second) << err;
  EXPECT_EQ(counts.hits(), 1u);
  EXPECT_EQ(images(*first), want);
  EXPECT_EQ(images(*second), want);
  for (NodeId n = 0; n < 3; ++n)
    for (uint32_t c = 0; c < more.coordinators; ++c) {
      std::vector<std::byte> ring(more.log_ring_bytes, std::byte{1});
      b2->host_read(second->log_ring(n, c), ring.data(), ring.size());
      ASSERT_EQ(ring, std::vector<std::byte>(more.log_ring_bytes)) << "node " << n << " ring " << c;
    }

  // Its writes are its own: a third build still gets the loaded bytes.
  const uint64_t key = second->keys(1).front();
  const std::vector<std::byte> junk(second->record_bytes(1), std::byte{0x5a});
  b2->host_write(second->address(1, key), junk.data(), junk.size());
  EXPECT_NE(images(*second), want);
  auto third = Store::build(*b3, plan, by_key, options(), &err);
  ASSERT_TRUE(third) << err;
  EXPECT_EQ(counts.hits(), 2u);
  EXPECT_EQ(images(*third), want);
  EXPECT_EQ(images(*first), want);
}

TEST(TxnStoreImage, OnlyAtTheSameAddressesWhereItCanBeInstalledAndWhileReuseIsInEffect) {
  std::string err;
  StorePlanCache cache(1ull << 30);
  auto plan = cache.plan(kTables, by_key, load(800), options(), &err);
  ASSERT_TRUE(plan) << err;
  {
    // No reuse in effect: nothing kept.
    const StoreCounts counts;
    ASSERT_FALSE(NodeMemoryReuse::active());
    ASSERT_TRUE(Store::build(*backend(), plan, by_key, options(), &err)) << err;
    EXPECT_EQ(counts.bytes(), 0u);
  }
  NodeMemoryReuse reuse(uint64_t{1} << 30);
  const StoreCounts counts;
  auto b1 = backend();
  ASSERT_TRUE(Store::build(*b1, plan, by_key, options(), &err)) << err;
  const uint64_t kept = counts.bytes();
  EXPECT_GT(kept, 0u);
  // Something allocated first moves every table: the image does not fit.
  auto shifted = backend(), shifted_alone = backend();
  for (Backend* b : {shifted.get(), shifted_alone.get()}) ASSERT_FALSE(b->allocate(0, 4096).is_null());
  auto s = Store::build(*shifted, plan, by_key, options(), &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(counts.hits(), 0u);
  const uint64_t kept_shifted = counts.bytes();
  EXPECT_GT(kept_shifted, kept) << "the shifted build keeps an image of its own";
  {
    NodeMemoryReuse nested(uint64_t{1} << 30);  // does nothing: one is in effect
  }
  EXPECT_EQ(counts.bytes(), kept_shifted) << "only the reuse in effect drops the images";
  auto alone = Store::build(*shifted_alone, plan, by_key, options(), &err);
  ASSERT_TRUE(alone) << err;
  EXPECT_EQ(counts.hits(), 1u);
  EXPECT_EQ(images(*s), images(*alone));
  // The threads backend installs no images, so none is captured there.
  auto threads = backend("threads");
  auto t = Store::build(*threads, plan, by_key, options(), &err);
  ASSERT_TRUE(t) << err;
  EXPECT_EQ(counts.bytes(), kept_shifted);
  EXPECT_EQ(images(*t), images(*Store::build(*backend(), plan, by_key, options(), &err)));
}

TEST(TxnStoreImage, TheEndOfTheReuseDropsTheImages) {
  std::string err;
  StorePlanCache cache(1ull << 30);
  auto plan = cache.plan(kTables, by_key, load(800), options(), &err);
  ASSERT_TRUE(plan) << err;
  const uint64_t before = SetupStore::process().bytes();
  {
    NodeMemoryReuse reuse(uint64_t{1} << 30);
    ASSERT_TRUE(Store::build(*backend(), plan, by_key, options(), &err)) << err;
    EXPECT_GT(SetupStore::process().bytes(), before);
  }
  EXPECT_EQ(SetupStore::process().bytes(), before);
}

}  // namespace
}  // namespace lw::txn
