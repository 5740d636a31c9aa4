// TPC-E customer-position (DrTM+H §5.5): read-only and distributed.
//
// Customers: customers_per_node x nodes, c_id on node c_id % nodes with
// their accounts and holdings; securities: securities_per_node x nodes,
// security s's last_trade row on node s % nodes, so a customer's position
// fetches prices from other nodes. Tables and payloads:
//   customer         48 B  tier, status, name (16 B), tax_id, -
//   customer_account 32 B  c_id, balance, broker, -          key c_id*4 + a
//   holding_summary  16 B  security, quantity                key account*4 + h
//   last_trade       32 B  price, open_price, volume, dts    key security
// Simplifications: every customer has 4 accounts (TPC-E: 1-10) and every
// account 4 holdings (TPC-E: a varying number), so one transaction reads
// 1 + 4 + 16 records and then up to 16 distinct last_trade rows (the
// second round: which securities is known only after the holdings are
// read); the transaction's frame 2 (trade history) is left out; prices are
// integer cents.
//
// market_feed_percent > 0 mixes in a simplified market-feed (TPC-E's
// writer of last_trade): 3 securities get a new price and volume += 100
// each, so read-only validation meets concurrent writers in checks.
// Effect: balance_delta = volume added. check(): every price is positive;
// the volumes sum to the initial sum plus the committed deltas.
#include <algorithm>

#include "oltp_internal.h"

namespace lw::workloads::oltp_detail {
namespace {

constexpr txn::TableId kCustomer = 0, kAccount = 1, kHolding = 2, kLastTrade = 3;
constexpr uint32_t kAccounts = 4, kHoldings = 4, kFeedSecurities = 3;
constexpr uint64_t kFeedVolume = 100;
enum Type : uint32_t { kCustomerPosition, kMarketFeed };

namespace ltf { constexpr size_t price = 0, open = 8, volume = 16, dts = 24; }
namespace hf { constexpr size_t security = 0, quantity = 8; }
namespace af { constexpr size_t c_id = 0, balance = 8; }

class Tpce final : public txn::TxnWorkload {
 public:
  explicit Tpce(const OltpOptions& o)
      : customers_(o.customers_per_node * o.nodes),
        securities_(o.securities_per_node * o.nodes),
        feed_percent_(o.market_feed_percent) {}

  std::string name() const override { return "tpce"; }
  std::vector<txn::TableSpec> tables() const override {
    return {{"customer", 48}, {"customer_account", 32}, {"holding_summary", 16}, {"last_trade", 32}};
  }
  NodeId home(txn::TableId t, uint64_t key, uint32_t nodes) const override {
    if (t == kLastTrade) return static_cast<NodeId>(key % nodes);
    const uint64_t c = t == kCustomer ? key : t == kAccount ? key / kAccounts : key / kHoldings / kAccounts;
    return static_cast<NodeId>(c % nodes);
  }

  static uint64_t initial_volume(uint64_t s) { return load_value(kLastTrade, s, 2) % 1'000'000; }

  void load(txn::StoreLoader& loader) const override {
    for (uint64_t s = 0; s < securities_; ++s) {
      const uint64_t price = 100 + load_value(kLastTrade, s, 0) % 100'000;
      loader.add(kLastTrade, s,
                 Row(32).set(ltf::price, price).set(ltf::open, price).set(ltf::volume, initial_volume(s)).span());
    }
    for (uint64_t c = 0; c < customers_; ++c) {
      loader.add(kCustomer, c,
                 Row(48).set(0, 1 + load_value(kCustomer, c, 0) % 3).set(16, load_value(kCustomer, c, 1)).span());
      for (uint64_t a = 0; a < kAccounts; ++a) {
        const uint64_t ak = c * kAccounts + a;
        loader.add(kAccount, ak, Row(32).set(af::c_id, c).set(af::balance, load_value(kAccount, ak, 0) % 10'000'000).span());
        for (uint64_t h = 0; h < kHoldings; ++h) {
          const uint64_t hk = ak * kHoldings + h;
          loader.add(kHolding, hk,
                     Row(16).set(hf::security, load_value(kHolding, hk, 0) % securities_)
                         .set(hf::quantity, 1 + load_value(kHolding, hk, 1) % 1'000)
                         .span());
        }
      }
    }
  }
  std::vector<std::string> types() const override { return {"customer-position", "market-feed"}; }

  txn::TxnInput draw(Rng& rng, NodeId, uint32_t) const override {
    txn::TxnInput in;
    in.type = rng.below(100) < feed_percent_ ? kMarketFeed : kCustomerPosition;
    in.read_only = in.type == kCustomerPosition;
    if (in.type == kCustomerPosition) {
      push(in, rng.below(customers_));
      return in;
    }
    uint64_t chosen[kFeedSecurities];
    for (uint32_t i = 0; i < kFeedSecurities && i < securities_; ++i) {
      uint64_t sec = rng.below(securities_);
      while (std::find(chosen, chosen + i, sec) != chosen + i) sec = (sec + 1) % securities_;  // < 3 steps
      chosen[i] = sec;
      push(in, sec);
      push(in, 100 + rng.below(100'000));  // the new price
    }
    return in;
  }

  Task<txn::TxnStatus> execute(txn::Txn& t, const txn::TxnInput& in, txn::TxnEffect* effect) const override {
    using txn::TxnStatus;
    t.begin(in.read_only, in.type);
    int64_t delta = 0;
    if (in.type == kCustomerPosition) {
      const uint64_t c = in.args[0];
      t.read(kCustomer, c);
      txn::RecordId acc[kAccounts], hold[kAccounts * kHoldings];
      for (uint64_t a = 0; a < kAccounts; ++a) {
        acc[a] = t.read(kAccount, c * kAccounts + a);
        for (uint64_t h = 0; h < kHoldings; ++h) hold[a * kHoldings + h] = t.read(kHolding, (c * kAccounts + a) * kHoldings + h);
      }
      if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
      // Prices of the distinct securities held, from their nodes.
      uint64_t secs[kAccounts * kHoldings];
      txn::RecordId price_of[kAccounts * kHoldings];
      uint32_t n = 0;
      for (uint32_t i = 0; i < kAccounts * kHoldings; ++i) {
        const uint64_t s = get(t.value(hold[i]), hf::security);
        if (std::find(secs, secs + n, s) != secs + n) continue;
        secs[n] = s;
        price_of[n++] = t.read(kLastTrade, s);
      }
      if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
      uint64_t assets = 0;
      for (uint32_t a = 0; a < kAccounts; ++a) {
        assets += get(t.value(acc[a]), af::balance);
        for (uint32_t h = 0; h < kHoldings; ++h) {
          const uint64_t s = get(t.value(hold[a * kHoldings + h]), hf::security);
          const uint32_t j = static_cast<uint32_t>(std::find(secs, secs + n, s) - secs);
          assets += get(t.value(hold[a * kHoldings + h]), hf::quantity) * get(t.value(price_of[j]), ltf::price);
        }
      }
      (void)assets;
    } else {
      txn::RecordId lt[kFeedSecurities];
      const uint32_t n = in.nargs / 2;
      for (uint32_t i = 0; i < n; ++i) lt[i] = t.read_for_update(kLastTrade, in.args[2 * i]);
      if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
      for (uint32_t i = 0; i < n; ++i) {
        std::span<std::byte> u = t.update(lt[i]);
        put(u, ltf::price, in.args[2 * i + 1]);
        put(u, ltf::volume, get(u, ltf::volume) + kFeedVolume);
        put(u, ltf::dts, static_cast<uint64_t>(t.worker().now()));
        delta += static_cast<int64_t>(kFeedVolume);
      }
    }
    const TxnStatus st = co_await t.commit();
    if (st == TxnStatus::kOk) effect->balance_delta = delta;
    co_return st;
  }

  std::string check(const txn::Store& store, const txn::TxnEffect& total) const override {
    std::vector<std::byte> p;
    int64_t initial = 0, volume = 0;
    for (uint64_t s = 0; s < securities_; ++s) {
      if (!host_payload(store, kLastTrade, s, &p)) return "last_trade " + std::to_string(s) + " is missing";
      if (get(p, ltf::price) == 0) return "security " + std::to_string(s) + " has price 0";
      initial += static_cast<int64_t>(initial_volume(s));
      volume += static_cast<int64_t>(get(p, ltf::volume));
    }
    if (volume == initial + total.balance_delta) return "";
    return "the trade volumes sum to " + std::to_string(volume) + ", but the loaded " + std::to_string(initial) +
           " plus the committed market feeds' " + std::to_string(total.balance_delta) + " differ";
  }

 private:
  uint64_t customers_, securities_;
  uint32_t feed_percent_;
};

}  // namespace

std::unique_ptr<txn::TxnWorkload> make_tpce(const OltpOptions& o) { return std::make_unique<Tpce>(o); }

}  // namespace lw::workloads::oltp_detail
