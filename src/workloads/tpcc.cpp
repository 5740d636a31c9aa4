// TPC-C NewOrder, always distributed (DrTM+H §5: "TPC-C/no").
//
// Warehouses: warehouses_per_node x nodes, warehouse w on node w % nodes;
// every row of a warehouse (district, customer, stock, order, new_order,
// order_line) lives on its node; item i on node i % nodes (a normal table
// read remotely, not replicated per node as TPC-C implementations often do).
// A NewOrder's home warehouse is on its coordinator's node; it orders 5-15
// distinct items, each supplied by a warehouse of another node with
// probability remote_item_percent, and at least one is (so every NewOrder
// is distributed, unless there is one node and one warehouse).
//
// Payloads (TPC-C's row sizes in brackets; text fields left out unless
// kept as one word):
//   warehouse   16 B  tax, ytd                                  [89 B]
//   district    24 B  tax, next_o_id, ytd                        [95 B]
//   customer    40 B  discount, credit, last name (16 B), balance [655 B]
//   item        40 B  price, im_id, name (24 B)                  [82 B]
//   stock       56 B  quantity, ytd, order_cnt, remote_cnt, dist_info (24 B) [306 B]
//   order       48 B  o_id, d_key, c_id, entry_d, ol_cnt, all_local [24 B]
//   new_order   16 B  o_id, d_key                                [8 B]
//   order_line  72 B  o_id, d_key, number, i_id, supply_w, quantity, amount, dist_info (16 B) [54 B]
// Money is integer cents; tax and discount are basis points. Customers
// are drawn uniformly (TPC-C: NURand), items too.
//
// Inserts: TPC-C inserts order, new_order and 5-15 order_lines. The store
// has no inserts, so every district has order_slots pre-loaded empty orders
// (and new_orders, and 15 order_lines each); order o_id goes to slot
// o_id % order_slots, declared read_for_update and overwritten. Lines past
// the order's ol_cnt keep whatever an older order left there.
//
// Effect: balance_delta = the quantity a committed NewOrder ordered (summed
// over its lines). check(): per district, every o_id in [kFirstOid,
// next_o_id) is the last order of its slot (the slot's order, new_order and
// lines carry it; the slot's version counts the o_ids that mapped to it,
// so the order ids are dense even when the slots wrapped), slots no order
// reached are untouched; every stock quantity stays in [10, 100]; the
// stocks' ytd sum to the committed quantity.
#include <algorithm>
#include <sstream>

#include "oltp_internal.h"

namespace lw::workloads::oltp_detail {
namespace {

constexpr txn::TableId kWarehouse = 0, kDistrict = 1, kCustomer = 2, kItem = 3, kStock = 4, kOrder = 5,
                       kNewOrder = 6, kOrderLine = 7;
constexpr uint32_t kDistricts = 10;
constexpr uint32_t kMinLines = 5, kMaxLines = 15;
constexpr uint64_t kFirstOid = 1;  // TPC-C: 3001 after 3000 loaded orders; we load none

// Field offsets.
namespace wf { constexpr size_t tax = 0, ytd = 8; }
namespace df { constexpr size_t tax = 0, next_o_id = 8, ytd = 16; }
namespace cf { constexpr size_t discount = 0, credit = 8, last = 16, balance = 32; }
namespace itf { constexpr size_t price = 0, im_id = 8, name = 16; }
namespace sf { constexpr size_t quantity = 0, ytd = 8, order_cnt = 16, remote_cnt = 24, dist = 32; }
namespace of { constexpr size_t o_id = 0, d_key = 8, c_id = 16, entry_d = 24, ol_cnt = 32, all_local = 40; }
namespace nf { constexpr size_t o_id = 0, d_key = 8; }
namespace lf {
constexpr size_t o_id = 0, d_key = 8, number = 16, i_id = 24, supply_w = 32, quantity = 40, amount = 48, dist = 56;
}

class Tpcc final : public txn::TxnWorkload {
 public:
  explicit Tpcc(const OltpOptions& o)
      : warehouses_(o.warehouses_per_node * o.nodes),
        items_(o.items),
        customers_(o.customers_per_district),
        slots_(o.order_slots),
        remote_percent_(o.remote_item_percent) {}

  std::string name() const override { return "tpcc"; }
  std::vector<txn::TableSpec> tables() const override {
    return {{"warehouse", 16}, {"district", 24}, {"customer", 40},  {"item", 40},
            {"stock", 56},     {"order", 48},    {"new_order", 16}, {"order_line", 72}};
  }
  NodeId home(txn::TableId t, uint64_t key, uint32_t nodes) const override {
    if (t == kItem) return static_cast<NodeId>(key % nodes);
    return static_cast<NodeId>(warehouse_of(t, key) % nodes);
  }

  void load(txn::StoreLoader& loader) const override {
    for (uint64_t i = 0; i < items_; ++i)
      loader.add(kItem, i,
                 Row(40).set(itf::price, 100 + load_value(kItem, i, 0) % 9'901)
                     .set(itf::im_id, 1 + load_value(kItem, i, 1) % 10'000)
                     .set(itf::name, load_value(kItem, i, 2))
                     .span());
    for (uint64_t w = 0; w < warehouses_; ++w) {
      loader.add(kWarehouse, w, Row(16).set(wf::tax, load_value(kWarehouse, w, 0) % 2'001).set(wf::ytd, 30'000'000).span());
      for (uint64_t i = 0; i < items_; ++i) {
        const uint64_t k = stock_key(w, i);
        loader.add(kStock, k,
                   Row(56).set(sf::quantity, 10 + load_value(kStock, k, 0) % 91).set(sf::dist, load_value(kStock, k, 1)).span());
      }
      for (uint64_t d = 0; d < kDistricts; ++d) {
        const uint64_t dk = w * kDistricts + d;
        loader.add(kDistrict, dk,
                   Row(24).set(df::tax, load_value(kDistrict, dk, 0) % 2'001).set(df::next_o_id, kFirstOid)
                       .set(df::ytd, 3'000'000).span());
        for (uint64_t c = 0; c < customers_; ++c) {
          const uint64_t ck = dk * customers_ + c;
          loader.add(kCustomer, ck,
                     Row(40).set(cf::discount, load_value(kCustomer, ck, 0) % 5'001)
                         .set(cf::credit, load_value(kCustomer, ck, 1) % 10 == 0 ? 0x4342 /* "BC" */ : 0x4347 /* "GC" */)
                         .set(cf::last, load_value(kCustomer, ck, 2))
                         .span());
        }
        const Row empty_order(48), empty_new(16), empty_line(72);
        for (uint64_t s = 0; s < slots_; ++s) {
          const uint64_t ok = dk * slots_ + s;
          loader.add(kOrder, ok, empty_order.span());
          loader.add(kNewOrder, ok, empty_new.span());
          for (uint64_t l = 0; l < kMaxLines; ++l) loader.add(kOrderLine, ok * kMaxLines + l, empty_line.span());
        }
      }
    }
  }
  std::vector<std::string> types() const override { return {"new-order"}; }

  txn::TxnInput draw(Rng& rng, NodeId coordinator_node, uint32_t nodes) const override {
    txn::TxnInput in;
    in.type = 0;
    // Home warehouse: one of the coordinator's node (w % nodes == node).
    const uint64_t node = nodes == 0 ? 0 : coordinator_node % nodes;
    const uint64_t local = node < warehouses_ ? (warehouses_ - node + nodes - 1) / nodes : 0;
    const uint64_t w = local > 0 ? node + nodes * rng.below(local) : rng.below(warehouses_);
    push(in, w);
    push(in, rng.below(kDistricts));
    push(in, rng.below(customers_));
    const uint32_t lines = static_cast<uint32_t>(rng.between(kMinLines, std::min<uint64_t>(kMaxLines, items_)));
    push(in, lines);
    bool any_remote = false;
    const size_t first_line = in.nargs;
    for (uint32_t l = 0; l < lines; ++l) {
      uint64_t item = rng.below(items_);
      for (uint32_t again = 0; again < 64 && has_item(in, first_line, l, item); ++again) item = rng.below(items_);
      for (uint64_t i = 0; i < items_ && has_item(in, first_line, l, item); ++i) item = (item + 1) % items_;
      const bool remote = rng.below(100) < remote_percent_;
      uint64_t supply = w;
      if (remote) supply = remote_warehouse(rng, w, nodes);
      any_remote |= supply != w;
      push(in, item);
      push(in, supply);
      push(in, rng.between(1, 10));
    }
    if (!any_remote) {  // DrTM+H's TPC-C/no: every NewOrder is distributed
      const uint32_t l = static_cast<uint32_t>(rng.below(lines));
      in.args[first_line + 3 * l + 1] = remote_warehouse(rng, w, nodes);
    }
    return in;
  }

  Task<txn::TxnStatus> execute(txn::Txn& t, const txn::TxnInput& in, txn::TxnEffect* effect) const override {
    using txn::TxnStatus;
    const uint64_t w = in.args[0], d = in.args[1], c = in.args[2];
    const uint32_t lines = static_cast<uint32_t>(in.args[3]);
    const uint64_t dk = w * kDistricts + d;
    t.begin(false, 0);
    const txn::RecordId wr = t.read(kWarehouse, w);
    const txn::RecordId dr = t.read_for_update(kDistrict, dk);
    const txn::RecordId cr = t.read(kCustomer, dk * customers_ + c);
    txn::RecordId ir[kMaxLines], sr[kMaxLines];
    for (uint32_t l = 0; l < lines; ++l) {
      const uint64_t item = in.args[4 + 3 * l], supply = in.args[5 + 3 * l];
      ir[l] = t.read(kItem, item);
      sr[l] = t.read_for_update(kStock, stock_key(supply, item));
    }
    if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
    // The order id decides the slot: a second round of reads.
    const uint64_t o_id = get(t.value(dr), df::next_o_id);
    const uint64_t ok = dk * slots_ + o_id % slots_;
    const txn::RecordId orr = t.read_for_update(kOrder, ok);
    const txn::RecordId nr = t.read_for_update(kNewOrder, ok);
    txn::RecordId lr[kMaxLines];
    for (uint32_t l = 0; l < lines; ++l) lr[l] = t.read_for_update(kOrderLine, ok * kMaxLines + l);
    if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();

    put(t.update(dr), df::next_o_id, o_id + 1);
    const uint64_t w_tax = get(t.value(wr), wf::tax), d_tax = get(t.value(dr), df::tax);
    const uint64_t discount = get(t.value(cr), cf::discount);
    bool all_local = true;
    int64_t quantity_total = 0;
    for (uint32_t l = 0; l < lines; ++l) {
      const uint64_t item = in.args[4 + 3 * l], supply = in.args[5 + 3 * l], qty = in.args[6 + 3 * l];
      std::span<std::byte> s = t.update(sr[l]);
      const uint64_t q = get(s, sf::quantity);
      put(s, sf::quantity, q >= qty + 10 ? q - qty : q - qty + 91);
      put(s, sf::ytd, get(s, sf::ytd) + qty);
      put(s, sf::order_cnt, get(s, sf::order_cnt) + 1);
      if (supply != w) {
        put(s, sf::remote_cnt, get(s, sf::remote_cnt) + 1);
        all_local = false;
      }
      // amount = qty * price * (1 + w_tax + d_tax) * (1 - discount), in cents.
      const uint64_t price = get(t.value(ir[l]), itf::price);
      const uint64_t amount = qty * price * (10'000 + w_tax + d_tax) / 10'000 * (10'000 - discount) / 10'000;
      std::span<std::byte> line = t.update(lr[l]);
      put(line, lf::o_id, o_id);
      put(line, lf::d_key, dk);
      put(line, lf::number, l + 1);
      put(line, lf::i_id, item);
      put(line, lf::supply_w, supply);
      put(line, lf::quantity, qty);
      put(line, lf::amount, amount);
      put(line, lf::dist, get(t.value(sr[l]), sf::dist));
      quantity_total += static_cast<int64_t>(qty);
    }
    std::span<std::byte> o = t.update(orr);
    put(o, of::o_id, o_id);
    put(o, of::d_key, dk);
    put(o, of::c_id, c);
    put(o, of::entry_d, static_cast<uint64_t>(t.worker().now()));
    put(o, of::ol_cnt, lines);
    put(o, of::all_local, all_local ? 1 : 0);
    std::span<std::byte> n = t.update(nr);
    put(n, nf::o_id, o_id);
    put(n, nf::d_key, dk);
    const TxnStatus s = co_await t.commit();
    if (s == TxnStatus::kOk) effect->balance_delta = quantity_total;
    co_return s;
  }

  std::string check(const txn::Store& store, const txn::TxnEffect& total) const override {
    std::vector<std::byte> p, q;
    txn::RecordView v;
    std::ostringstream bad;
    for (uint64_t dk = 0; dk < warehouses_ * kDistricts; ++dk) {
      if (!host_payload(store, kDistrict, dk, &p)) return "district " + std::to_string(dk) + " is missing";
      const uint64_t next = get(p, df::next_o_id);
      if (next < kFirstOid) return "district " + std::to_string(dk) + " has next_o_id " + std::to_string(next);
      for (uint64_t s = 0; s < slots_; ++s) {
        const uint64_t ok = dk * slots_ + s;
        // The o_ids in [kFirstOid, next) that map to slot s: how many, the last.
        const uint64_t first = kFirstOid + (s + slots_ - kFirstOid % slots_) % slots_;
        const uint64_t count = first < next ? (next - 1 - first) / slots_ + 1 : 0;
        const uint64_t last = count > 0 ? first + (count - 1) * slots_ : 0;
        if (!host_payload(store, kOrder, ok, &q, &v)) return "order slot " + std::to_string(ok) + " is missing";
        const uint64_t o_id = get(q, of::o_id);
        if (v.version != count || o_id != last || (count > 0 && get(q, of::d_key) != dk)) {
          bad << "district " << dk << " (next_o_id " << next << ") slot " << s << ": order " << o_id << " at version "
              << v.version << ", expected order " << last << " written " << count << " time(s)";
          return bad.str();
        }
        if (count == 0) continue;
        const uint64_t lines = get(q, of::ol_cnt);
        if (!host_payload(store, kNewOrder, ok, &q, &v) || get(q, nf::o_id) != last || v.version != count)
          return "district " + std::to_string(dk) + " order " + std::to_string(last) + ": its new_order row is " +
                 std::to_string(get(q, nf::o_id)) + " at version " + std::to_string(v.version);
        for (uint64_t l = 0; l < lines && l < kMaxLines; ++l) {
          if (!host_payload(store, kOrderLine, ok * kMaxLines + l, &q) || get(q, lf::o_id) != last ||
              get(q, lf::number) != l + 1)
            return "district " + std::to_string(dk) + " order " + std::to_string(last) + ": line " +
                   std::to_string(l + 1) + " holds order " + std::to_string(get(q, lf::o_id));
        }
      }
    }
    int64_t ytd = 0;
    for (uint64_t w = 0; w < warehouses_; ++w) {
      for (uint64_t i = 0; i < items_; ++i) {
        if (!host_payload(store, kStock, stock_key(w, i), &p)) return "a stock row is missing";
        const uint64_t qty = get(p, sf::quantity);
        if (qty < 10 || qty > 100)
          return "stock of item " + std::to_string(i) + " at warehouse " + std::to_string(w) + " has quantity " +
                 std::to_string(qty) + ", outside [10, 100]";
        ytd += static_cast<int64_t>(get(p, sf::ytd));
      }
    }
    if (ytd != total.balance_delta)
      return "the stocks' ytd sum to " + std::to_string(ytd) + ", but committed NewOrders ordered " +
             std::to_string(total.balance_delta);
    return "";
  }

 private:
  uint64_t stock_key(uint64_t w, uint64_t item) const { return w * items_ + item; }
  uint64_t warehouse_of(txn::TableId t, uint64_t key) const {
    switch (t) {
      case kWarehouse: return key;
      case kDistrict: return key / kDistricts;
      case kCustomer: return key / customers_ / kDistricts;
      case kStock: return key / items_;
      case kOrder:
      case kNewOrder: return key / slots_ / kDistricts;
      case kOrderLine: return key / kMaxLines / slots_ / kDistricts;
      default: return 0;
    }
  }
  static bool has_item(const txn::TxnInput& in, size_t first, uint32_t lines, uint64_t item) {
    for (uint32_t l = 0; l < lines; ++l)
      if (in.args[first + 3 * l] == item) return true;
    return false;
  }
  // A warehouse of another node (another warehouse on one node).
  uint64_t remote_warehouse(Rng& rng, uint64_t w, uint32_t nodes) const {
    if (warehouses_ < 2) return w;
    for (int i = 0; i < 64; ++i) {
      const uint64_t x = rng.below(warehouses_);
      if (x != w && (nodes < 2 || x % nodes != w % nodes)) return x;
    }
    return (w + 1) % warehouses_;  // nodes > warehouses: any other one
  }

  uint64_t warehouses_, items_, customers_, slots_;
  uint32_t remote_percent_;
};

}  // namespace

std::unique_ptr<txn::TxnWorkload> make_tpcc(const OltpOptions& o) { return std::make_unique<Tpcc>(o); }

}  // namespace lw::workloads::oltp_detail
