// The OLTP workloads: deterministic draws, their mixes, their loads, and
// (on the simulator) verified runs under the transaction engine.
#include "latchwork/workloads/oltp.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>

#include "latchwork/backends.h"
#include "latchwork/txn/load.h"
#include "latchwork/txn/run.h"
#include "latchwork/txn/store.h"
#include "txn/store_plan_cache.h"
#include "verbs/node_memory_reuse.h"

namespace lw::workloads {
namespace {

OltpOptions small(uint32_t nodes) {
  OltpOptions o;
  o.nodes = nodes;
  o.warehouses_per_node = 2;
  o.accounts_per_node = 500;
  o.subscribers_per_node = 100;
  o.customers_per_node = 50;
  o.securities_per_node = 40;
  o.order_slots = 16;
  o.items = 100;
  o.customers_per_district = 5;
  return o;
}

std::unique_ptr<txn::TxnWorkload> make(const std::string& name, const OltpOptions& o) {
  std::string e;
  auto w = make_oltp_workload(name, o, &e);
  EXPECT_TRUE(w) << e;
  return w;
}

bool same(const txn::TxnInput& a, const txn::TxnInput& b) {
  return a.type == b.type && a.read_only == b.read_only && a.nargs == b.nargs && a.args == b.args;
}

TEST(Oltp, FactoryRejectsBadInput) {
  std::string e;
  EXPECT_EQ(make_oltp_workload("tpch", OltpOptions{}, &e), nullptr);
  EXPECT_NE(e.find("unknown workload"), std::string::npos);
  OltpOptions o;
  o.hot_share = 1.5;
  EXPECT_EQ(make_oltp_workload("smallbank", o, &e), nullptr);
  EXPECT_NE(e.find("hot share"), std::string::npos);
  o = OltpOptions{};
  o.nodes = 0;
  EXPECT_FALSE(o.validate().empty());
  EXPECT_EQ(oltp_workload_names().size(), 4u);
}

// Every workload remembers the store nodes it was scaled for (run_txn
// refuses a run on another count).
TEST(Oltp, WorkloadsKnowTheirStoreNodes) {
  for (const std::string& name : oltp_workload_names())
    for (uint32_t nodes : {1u, 3u, 16u}) EXPECT_EQ(make(name, small(nodes))->store_nodes(), nodes) << name;
}

TEST(Oltp, DrawsAreDeterministicPerSeed) {
  for (const std::string& name : oltp_workload_names()) {
    auto w = make(name, small(3));
    Rng a(42), b(42), c(43);
    bool differs = false;
    for (int i = 0; i < 1000; ++i) {
      const txn::TxnInput x = w->draw(a, static_cast<NodeId>(i % 3), 3), y = w->draw(b, static_cast<NodeId>(i % 3), 3);
      ASSERT_TRUE(same(x, y)) << name << " draw " << i;
      differs |= !same(x, w->draw(c, static_cast<NodeId>(i % 3), 3));
    }
    EXPECT_TRUE(differs) << name;
  }
}

// Shares of each type over 10,000 draws, in percent.
std::vector<double> mix(const txn::TxnWorkload& w, uint32_t nodes) {
  std::vector<double> n(w.types().size(), 0);
  Rng rng(7);
  for (int i = 0; i < 10'000; ++i) n.at(w.draw(rng, static_cast<NodeId>(i % nodes), nodes).type) += 0.01;
  return n;
}

TEST(Oltp, MixProportions) {
  const std::vector<double> sb = mix(*make("smallbank", small(3)), 3);
  const double sb_want[] = {15, 15, 15, 25, 15, 15};
  for (size_t i = 0; i < sb.size(); ++i) EXPECT_NEAR(sb[i], sb_want[i], 1.5) << "smallbank type " << i;
  const std::vector<double> ta = mix(*make("tatp", small(3)), 3);
  const double ta_want[] = {35, 10, 35, 2, 14, 2, 2};
  for (size_t i = 0; i < ta.size(); ++i) EXPECT_NEAR(ta[i], ta_want[i], 1.5) << "tatp type " << i;
  EXPECT_NEAR(mix(*make("tpcc", small(3)), 3)[0], 100, 0.001);
  OltpOptions feed = small(3);
  const std::vector<double> e0 = mix(*make("tpce", feed), 3);
  EXPECT_NEAR(e0[0], 100, 0.001);
  feed.market_feed_percent = 20;
  EXPECT_NEAR(mix(*make("tpce", feed), 3)[1], 20, 1.5);
}

TEST(Oltp, ReadOnlyFlags) {
  Rng rng(3);
  auto ta = make("tatp", small(2));
  uint64_t ro = 0;
  for (int i = 0; i < 10'000; ++i) ro += ta->draw(rng, 0, 2).read_only;
  EXPECT_NEAR(ro / 100.0, 80, 1.5);
  auto sb = make("smallbank", small(2));
  for (int i = 0; i < 1000; ++i) {
    const txn::TxnInput in = sb->draw(rng, 0, 2);
    EXPECT_EQ(in.read_only, in.type == 1);
  }
}

TEST(Oltp, SmallBankHotAccounts) {
  OltpOptions o = small(2);  // 1,000 accounts: 40 hot
  auto w = make("smallbank", o);
  Rng rng(5);
  uint64_t hot = 0;
  for (int i = 0; i < 10'000; ++i) hot += w->draw(rng, 0, 2).args[0] < 40;
  // 90% hot by choice, plus the cold draws that land on hot accounts (4% of 10%).
  EXPECT_NEAR(hot / 100.0, 90.4, 1.5);
}

TEST(Oltp, TpccNewOrderIsDistributedFromItsNode) {
  const uint32_t nodes = 3;
  auto w = make("tpcc", small(nodes));
  Rng rng(9);
  for (int i = 0; i < 2000; ++i) {
    const NodeId node = static_cast<NodeId>(i % nodes);
    const txn::TxnInput in = w->draw(rng, node, nodes);
    const uint64_t wh = in.args[0];
    EXPECT_EQ(wh % nodes, node);
    EXPECT_LT(in.args[1], 10u);
    const uint64_t lines = in.args[3];
    ASSERT_GE(lines, 5u);
    ASSERT_LE(lines, 15u);
    EXPECT_EQ(in.nargs, 4 + 3 * lines);
    std::set<uint64_t> items;
    bool remote = false;
    for (uint64_t l = 0; l < lines; ++l) {
      items.insert(in.args[4 + 3 * l]);
      remote |= in.args[5 + 3 * l] % nodes != node;
      EXPECT_GE(in.args[6 + 3 * l], 1u);
      EXPECT_LE(in.args[6 + 3 * l], 10u);
    }
    EXPECT_EQ(items.size(), lines) << "items of one order are distinct";
    EXPECT_TRUE(remote) << "every NewOrder has an item supplied by another node";
    // Records: warehouse, district, customer, item + stock per line, order, new_order, lines.
    EXPECT_LE(3 + 3 * lines + 2, txn::kMaxTxnRecords);
  }
}

// Record counts of each load (the loader keeps (table, key) pairs).
size_t loaded(const txn::TxnWorkload& w) {
  txn::StoreLoader l;
  w.load(l);
  return l.records();
}

TEST(Oltp, LoadsHaveExpectedRecordCounts) {
  const OltpOptions o = small(3);
  EXPECT_EQ(loaded(*make("smallbank", o)), 2u * 500 * 3);
  // Per warehouse: itself, 100 stock rows, 10 districts x (1 + 5 customers +
  // 16 slots x (order + new_order + 15 lines)); 100 items.
  EXPECT_EQ(loaded(*make("tpcc", o)), 100u + 6 * (1 + 100 + 10 * (1 + 5 + 16 * 17)));
  // Per subscriber: itself, 4 access_info, 4 special_facility, 12 call_forwarding.
  EXPECT_EQ(loaded(*make("tatp", o)), 300u * 21);
  // Securities, then per customer: itself, 4 accounts, 16 holdings.
  EXPECT_EQ(loaded(*make("tpce", o)), 120u + 150 * 21);
}

TEST(Oltp, HomesSpreadOverNodes) {
  const uint32_t nodes = 3;
  for (const std::string& name : oltp_workload_names()) {
    auto w = make(name, small(nodes));
    const auto tables = w->tables();
    ASSERT_LE(tables.size(), txn::kMaxTables);
    for (const txn::TableSpec& t : tables) EXPECT_LE(t.payload_bytes, txn::kMaxPayloadBytes) << name << "." << t.name;
    std::set<NodeId> seen;
    for (uint64_t k = 0; k < 30; ++k) {
      const NodeId n = w->home(0, k, nodes);
      EXPECT_LT(n, nodes);
      seen.insert(n);
    }
    EXPECT_EQ(seen.size(), nodes) << name;
  }
}

}  // namespace
}  // namespace lw::workloads

// Each workload under the engine on the simulator, final state verified
// (the workload's check, backups equal to primaries, every lock free).
namespace lw::workloads {
namespace {

// A workload's load key is its name and every option: equal ones share a
// plan without loading again, and any other option or name loads its own
// records (checked against a plain load).
TEST(Oltp, LoadKeyIsTheNameAndEveryOption) {
  OltpOptions a = small(2);
  EXPECT_FALSE(make("tpcc", a)->load_key().empty());
  EXPECT_EQ(make("tpcc", a)->load_key(), make("tpcc", a)->load_key());
  EXPECT_NE(make("tpcc", a)->load_key(), make("tatp", a)->load_key());
  std::vector<OltpOptions> others;
  for (int field = 0; field < 13; ++field) {
    OltpOptions o = a;
    switch (field) {
      case 0: o.nodes = 3; break;
      case 1: o.warehouses_per_node = 3; break;
      case 2: o.accounts_per_node = 501; break;
      case 3: o.subscribers_per_node = 101; break;
      case 4: o.customers_per_node = 51; break;
      case 5: o.order_slots = 17; break;
      case 6: o.hot_fraction = 0.05; break;
      case 7: o.hot_share = 0.8; break;
      case 8: o.remote_item_percent = 11; break;
      case 9: o.items = 101; break;
      case 10: o.customers_per_district = 6; break;
      case 11: o.securities_per_node = 41; break;
      case 12: o.market_feed_percent = 1; break;
    }
    EXPECT_NE(make("tpcc", a)->load_key(), make("tpcc", o)->load_key()) << field;
  }

  ClusterConfig c;
  c.memory_nodes = 3;
  c.memory_node_bytes = 32ull << 20;
  for (const std::string& name : oltp_workload_names()) {
    // Loads share plans while node memory reuse is in effect (load_store).
    std::optional<NodeMemoryReuse> reuse;
    reuse.emplace(uint64_t{1} << 30);
    auto records_of = [&](const OltpOptions& o, bool shared) {
      if (!shared) reuse.reset();
      txn::StoreOptions so;
      so.nodes = o.nodes;
      so.replicas = 1;
      ClusterConfig cc = c;
      cc.memory_nodes = o.nodes;
      std::string e;
      auto b = make_backend(cc, &e);
      auto w = make(name, o);
      auto store = txn::load_store(*b, *w, so, &e);
      EXPECT_TRUE(store) << name << ": " << e;
      uint64_t records = 0;
      for (txn::TableId t = 0; store && t < store->tables().size(); ++t) records += store->keys(t).size();
      if (!shared) reuse.emplace(uint64_t{1} << 30);
      return records;
    };
    OltpOptions bigger = a;
    bigger.warehouses_per_node = 3;
    bigger.accounts_per_node = 700;
    bigger.subscribers_per_node = 150;
    bigger.customers_per_node = 70;
    bigger.securities_per_node = 60;
    const uint64_t alone = records_of(bigger, false);
    const std::shared_ptr<txn::StorePlanCache> plans = txn::scope_plan_cache();
    ASSERT_TRUE(plans);
    const uint64_t base = records_of(a, true);
    EXPECT_EQ(records_of(a, true), base) << name;
    EXPECT_EQ(plans->hits(), 1u) << name;
    EXPECT_EQ(records_of(bigger, true), alone) << name;
    EXPECT_NE(alone, base) << name;
  }
}

txn::TxnRunResult run_small(const std::string& design, const std::string& name, uint64_t seed) {
  txn::DesignConfig d;
  EXPECT_TRUE(txn::design_preset(design, &d));
  ClusterConfig c = txn::txn_cluster(d, "simple", 3, 2, 2, 3, 32ull << 20);
  c.seed = seed;
  OltpOptions o = small(3);
  o.market_feed_percent = 20;
  std::string e;
  auto w = make_oltp_workload(name, o, &e);
  EXPECT_TRUE(w) << e;
  txn::TxnRunOptions ro;
  ro.design = d;
  ro.txns_per_worker = 20;
  ro.verify = true;
  return txn::run_txn(c, *w, ro);
}

class OltpRun : public ::testing::TestWithParam<std::string> {};

TEST_P(OltpRun, VerifiedOnTheSimulator) {
  for (const char* design : {"drtmh", "fasst", "ford"}) {
    const txn::TxnRunResult r = run_small(design, GetParam(), 3);
    EXPECT_TRUE(r.ok()) << design << "/" << GetParam() << ": " << r.error;
    EXPECT_TRUE(r.verified) << design << "/" << GetParam();
    EXPECT_GT(r.committed, 0u) << design << "/" << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, OltpRun, ::testing::Values("tpcc", "smallbank", "tatp", "tpce"));

}  // namespace
}  // namespace lw::workloads
