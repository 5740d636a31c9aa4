// The OLTP workloads of DrTM+H §5 and SMART §6.2.2 for the transaction
// engine (txn/workload.h):
//
//   tpcc       TPC-C NewOrder only, always distributed (DrTM+H §5: "TPC-C/no").
//   smallbank  SmallBank's six transactions; 90% of transactions on 4% of the
//              accounts (DrTM+H §5).
//   tatp       TATP's seven transactions, 80% read-only (SMART §6.2.2).
//   tpce       TPC-E customer-position, read-only and distributed (DrTM+H §5.5);
//              market_feed_percent mixes in a price-updating writer (checks).
//
// Each file under src/workloads/ says how it simplifies its benchmark.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "latchwork/txn/workload.h"

namespace lw::workloads {

struct OltpOptions {
  // The store's nodes: the data is scale x nodes, partitioned by key (record
  // k of a table lives on node k % nodes, TPC-C by warehouse). Must equal
  // StoreOptions::nodes of the run (run_txn: the memory nodes).
  uint32_t nodes = 1;
  // Scale, per store node (so the data grows with the cluster, as DrTM+H's).
  uint32_t warehouses_per_node = 4;      // tpcc
  uint64_t accounts_per_node = 10'000;   // smallbank (DrTM+H: 100,000 per thread)
  uint64_t subscribers_per_node = 10'000;  // tatp
  uint64_t customers_per_node = 1'000;   // tpce
  // tpcc: order slots per district (NewOrder writes order n into slot
  // n % slots; checks need slots >= NewOrders per district in the run).
  uint32_t order_slots = 256;
  // smallbank: hot accounts and their share (DrTM+H §5: 90% on 4%).
  double hot_fraction = 0.04;
  double hot_share = 0.9;
  // tpcc: remote items (DrTM+H's always-distributed NewOrder: at least one
  // item supplied by another node's warehouse).
  uint32_t remote_item_percent = 10;
  // tpcc: items (TPC-C: 100,000, one stock row per item and warehouse) and
  // customers per district (TPC-C: 3,000), scaled down to fit small memory.
  uint32_t items = 1'000;
  uint32_t customers_per_district = 30;
  // tpce: securities per node (their last_trade rows are what customer-
  // position fetches from other nodes) and the share of market-feed
  // transactions that update prices (0: customer-position only, DrTM+H
  // §5.5; the check uses some so that read-only validation has work).
  uint64_t securities_per_node = 500;
  uint32_t market_feed_percent = 0;
  std::string validate() const;
  // Every field: compared by repro's same_run; the load key (oltp.cpp) holds them all.
  bool operator==(const OltpOptions&) const = default;
};

const std::vector<std::string>& oltp_workload_names();  // tpcc smallbank tatp tpce
// nullptr and *error for an unknown name or bad options.
std::unique_ptr<txn::TxnWorkload> make_oltp_workload(const std::string& name, const OltpOptions& o,
                                                     std::string* error);

}  // namespace lw::workloads
