// `latchwork node --workload smallbank|tpcc|tatp|tpce`: the transaction
// engine on symmetric verbs nodes (DrTM+H's machines are client and server
// both). Every node process builds the same store (under one shared name, so
// addresses agree), serves the engine's RPC handlers from its in-process
// memory node, runs its node's coordinators for a fixed number of
// transactions each, and checks the final state, the workload's invariant
// summed over every process's committed effects (run_txn exchanges them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "latchwork/config/cluster_config.h"
#include "latchwork/verbs/rpc.h"

namespace lw::tool {

struct NodeTxnOptions {
  std::string workload = "smallbank";
  std::string design = "drtmh";
  uint64_t txns = 200;         // per coordinator
  uint64_t records = 2'000;    // per node: smallbank accounts, tatp subscribers, tpce customers
  uint32_t warehouses = 1;     // per node: tpcc
  bool verify = true;
  bool json = false;
};

bool is_node_txn_workload(const std::string& workload);
// "" if `design` runs on symmetric nodes (its coordinators on the memory
// nodes), else a message (disaggregated designs run from compute processes).
std::string check_node_txn_design(const std::string& design);

// The engine's handlers, late-bound (rdma/memnode.h): the in-process memory
// node serves them from before any backend connects, and each runs the
// engine's code once this process's run has built its store. Empty and
// *error on failure.
std::vector<RpcHandler> node_txn_handlers(std::string* error);

// Checks the options against the cluster (c.memory_nodes processes) before
// anything starts: "" or a message for the user (exit 2).
std::string validate_node_txn(const ClusterConfig& c, uint32_t index, const NodeTxnOptions& o);

// Runs the transactions of node `index` (c.verbs.local_node), whose memory
// node must already serve node_txn_handlers(). Prints the result; returns the
// exit code (0: ran and every check passed; 1 otherwise).
int run_node_txn(const ClusterConfig& c, uint32_t index, const NodeTxnOptions& o);

}  // namespace lw::tool
