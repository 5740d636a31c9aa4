// The OLTP workloads' factory and options (workloads/oltp.h).
#include "latchwork/workloads/oltp.h"

#include <memory>
#include <utility>

#include "latchwork/txn/txn.h"
#include "oltp_internal.h"

namespace lw::workloads {

namespace {

// The built-in workloads load from their name and options only (load_value:
// no Rng), so equal names and options load equal records: the load key is
// the name and every option's bytes.
std::string oltp_load_key(const std::string& name, const OltpOptions& o) {
  // A field added to OltpOptions changes its size: add it below too.
  static_assert(sizeof(OltpOptions) == 88, "an OltpOptions field is missing from the load key");
  std::string k = "oltp/" + name + "/";
  auto add = [&k](auto v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  add(o.nodes);
  add(o.warehouses_per_node);
  add(o.accounts_per_node);
  add(o.subscribers_per_node);
  add(o.customers_per_node);
  add(o.order_slots);
  add(o.hot_fraction);
  add(o.hot_share);
  add(o.remote_item_percent);
  add(o.items);
  add(o.customers_per_district);
  add(o.securities_per_node);
  add(o.market_feed_percent);
  return k;
}

}  // namespace

std::string OltpOptions::validate() const {
  if (nodes == 0 || nodes > 1024) return "nodes must be in [1, 1024]";
  if (warehouses_per_node == 0 || warehouses_per_node > 1024) return "warehouses per node must be in [1, 1024]";
  if (accounts_per_node == 0 || accounts_per_node * nodes < 2 || accounts_per_node > (uint64_t{1} << 32))
    return "accounts per node must be positive, at least 2 accounts in all, at most 2^32";
  if (subscribers_per_node == 0 || subscribers_per_node > (uint64_t{1} << 32))
    return "subscribers per node must be in [1, 2^32]";
  if (customers_per_node == 0 || customers_per_node > (uint64_t{1} << 32))
    return "customers per node must be in [1, 2^32]";
  if (securities_per_node == 0 || securities_per_node > (uint64_t{1} << 32))
    return "securities per node must be in [1, 2^32]";
  if (order_slots == 0 || order_slots > (1u << 20)) return "order slots must be in [1, 2^20]";
  if (items < 15 || items > 1'000'000) return "items must be in [15, 1000000] (an order has up to 15 distinct items)";
  if (customers_per_district == 0 || customers_per_district > 100'000)
    return "customers per district must be in [1, 100000]";
  if (!(hot_fraction > 0 && hot_fraction <= 1)) return "hot fraction must be in (0, 1]";
  if (!(hot_share >= 0 && hot_share <= 1)) return "hot share must be in [0, 1]";
  if (remote_item_percent > 100) return "remote item percent must be in [0, 100]";
  if (market_feed_percent > 100) return "market feed percent must be in [0, 100]";
  return "";
}

const std::vector<std::string>& oltp_workload_names() {
  static const std::vector<std::string> names = {"tpcc", "smallbank", "tatp", "tpce"};
  return names;
}

std::unique_ptr<txn::TxnWorkload> make_oltp_workload(const std::string& name, const OltpOptions& o,
                                                     std::string* error) {
  if (std::string e = o.validate(); !e.empty()) {
    if (error) *error = e;
    return nullptr;
  }
  std::unique_ptr<txn::TxnWorkload> w;
  if (name == "tpcc") w = oltp_detail::make_tpcc(o);
  else if (name == "smallbank") w = oltp_detail::make_smallbank(o);
  else if (name == "tatp") w = oltp_detail::make_tatp(o);
  else if (name == "tpce") w = oltp_detail::make_tpce(o);
  if (!w) {
    if (error) *error = "unknown workload " + name + " (tpcc, smallbank, tatp or tpce)";
    return nullptr;
  }
  w->set_store_nodes(o.nodes);  // run_txn checks it against the store
  w->set_load_key(oltp_load_key(name, o));
  return w;
}

}  // namespace lw::workloads
