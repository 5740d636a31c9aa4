// The OLTP workloads of DrTM+H §5 and SMART §6.2.2 for the transaction
// engine (txn/workload.h):
//
//   tpcc       TPC-C NewOrder only, always distributed (DrTM+H §5: "TPC-C/no").
//   smallbank  SmallBank's six transactions; 90% of transactions on 4% of the
//              accounts (DrTM+H §5).
//   tatp       TATP's seven transactions, 80% read-only (SMART §6.2.2).
//   tpce       TPC-E customer-position, read-only and distributed (DrTM+H §5.5).
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
  std::string validate() const;
};

const std::vector<std::string>& oltp_workload_names();  // tpcc smallbank tatp tpce
// nullptr and *error for an unknown name or bad options.
std::unique_ptr<txn::TxnWorkload> make_oltp_workload(const std::string& name, const OltpOptions& o,
                                                     std::string* error);

}  // namespace lw::workloads
