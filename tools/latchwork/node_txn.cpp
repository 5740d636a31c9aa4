#include "node_txn.h"

#include <algorithm>
#include <cstdio>

#include "commands.h"
#include "latchwork/backends.h"
#include "latchwork/txn/run.h"
#include "latchwork/txn/store.h"
#include "latchwork/txn/txn.h"
#include "latchwork/workloads/oltp.h"
#ifdef LW_HAVE_VERBS
#include "latchwork/rdma/memnode.h"
#endif

namespace lw::tool {

bool is_node_txn_workload(const std::string& workload) {
  const auto& names = workloads::oltp_workload_names();
  return std::find(names.begin(), names.end(), workload) != names.end();
}

std::string check_node_txn_design(const std::string& design) {
  txn::DesignConfig d;
  if (!txn::design_preset(design, &d)) return "unknown design \"" + design + "\"";
  if (d.disaggregated)
    return "--design " + design + " is disaggregated (coordinators on compute nodes): run it with "
           "`latchwork txn --backend verbs` against `latchwork memnode` processes; `latchwork node` runs "
           "drtmh, farm, drtmr and fasst";
  return {};
}

std::vector<RpcHandler> node_txn_handlers(std::string* error) {
  // The handlers' names are needed before this process's memory node serves
  // (peers read the table when they connect), but Engine::handlers() wants a
  // store, which the real run builds only later. A one-record store on the
  // simulator gives the names; the real code is bound by the run's
  // register_handler (late_bound_handlers, rdma/memnode.h).
  ClusterConfig sim;
  sim.memory_node_bytes = 1u << 20;
  std::string err;
  std::unique_ptr<Backend> b = make_backend(sim, &err);
  if (!b) {
    *error = "naming the txn handlers: " + err;
    return {};
  }
  txn::StoreLoader loader;
  const std::byte payload[8] = {};
  loader.add(0, 1, payload);
  txn::StoreOptions so;
  std::unique_ptr<txn::Store> store = txn::Store::build(
      *b, {{"names", 8}}, [](txn::TableId, uint64_t, uint32_t) { return NodeId{0}; }, loader, so, &err);
  if (!store) {
    *error = "naming the txn handlers: " + err;
    return {};
  }
  std::vector<std::string> names;
  for (const RpcHandler& h : txn::Engine::handlers(*store)) names.push_back(h.name);
#ifdef LW_HAVE_VERBS
  return late_bound_handlers(names);
#else
  *error = "this build has no verbs backend";
  return {};
#endif
}

namespace {

// The workload and the run's options for node `index`; "" or what is wrong.
std::string prepare(const ClusterConfig& c, uint32_t index, const NodeTxnOptions& o,
                    std::unique_ptr<txn::TxnWorkload>* w, txn::TxnRunOptions* ro) {
  if (std::string e = check_node_txn_design(o.design); !e.empty()) return e;
  workloads::OltpOptions oo;
  oo.nodes = c.memory_nodes;
  oo.accounts_per_node = oo.subscribers_per_node = oo.customers_per_node = o.records;
  oo.warehouses_per_node = o.warehouses;
  std::string err;
  *w = workloads::make_oltp_workload(o.workload, oo, &err);
  if (!*w) return err;
  txn::design_preset(o.design, &ro->design);
  ro->txns_per_worker = o.txns;
  ro->verify = o.verify;
  ro->processes = c.memory_nodes;
  ro->process_index = index;
  // One name for the run: every process allocates the same regions by it.
  ro->shared_name = "node-txn/" + o.workload + "/" + o.design;
  ro->barrier_timeout_ms = c.verbs.barrier_timeout_ms;
  return ro->validate(c);
}

}  // namespace

std::string validate_node_txn(const ClusterConfig& c, uint32_t index, const NodeTxnOptions& o) {
  std::unique_ptr<txn::TxnWorkload> w;
  txn::TxnRunOptions ro;
  return prepare(c, index, o, &w, &ro);
}

int run_node_txn(const ClusterConfig& c, uint32_t index, const NodeTxnOptions& o) {
  const std::string me = "latchwork node " + std::to_string(index);
  const uint32_t nodes = c.memory_nodes;
  std::unique_ptr<txn::TxnWorkload> w;
  txn::TxnRunOptions ro;
  if (std::string e = prepare(c, index, o, &w, &ro); !e.empty()) {
    std::fprintf(stderr, "%s: %s\n", me.c_str(), e.c_str());
    return kExitCheckFailed;
  }
  const txn::TxnRunResult r = txn::run_txn(c, *w, ro);
  if (o.json) {
    std::printf("%s\n", r.to_json().c_str());
  } else {
    std::printf("# %s on %s, node %u of %u (verbs, symmetric): %s\n", r.design.c_str(), r.workload.c_str(), index,
                nodes, r.phases.c_str());
    std::printf("%-24s %llu on this node, %llu transactions each\n", "coordinators",
                static_cast<unsigned long long>(r.coordinators), static_cast<unsigned long long>(o.txns));
    std::printf("%-24s %llu committed, %llu aborted attempts, %llu gave up, %llu failed (this node)\n",
                "transactions", static_cast<unsigned long long>(r.committed),
                static_cast<unsigned long long>(r.aborted), static_cast<unsigned long long>(r.gave_up),
                static_cast<unsigned long long>(r.failed));
    std::printf("%-24s p50 %.1f  p99 %.1f  mean %.1f; %.2f RPCs per txn; %.2f s wall\n", "latency (us)",
                r.latency_us_p50, r.latency_us_p99, r.latency_us_mean, r.rpcs_per_txn, r.wall_seconds);
    if (o.workload == "smallbank")
      std::printf("%-24s %lld (committed deltas summed over all %u processes)\n", "balance delta",
                  static_cast<long long>(r.effect.balance_delta), nodes);
    if (r.verified)
      std::printf("final state: verified (%s invariant over all processes' commits, replicas, locks)\n",
                  r.workload.c_str());
    else if (!o.verify)
      std::printf("final state: not checked (--verify=false)\n");
  }
  std::fflush(stdout);
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %s\n", me.c_str(), r.error.c_str());
    return kExitCheckFailed;
  }
  if (r.failed > 0 || (o.verify && !r.verified)) return kExitCheckFailed;
  return kExitOk;
}

}  // namespace lw::tool
