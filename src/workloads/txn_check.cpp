// The transaction check workload (workloads/txn_check.h).
#include "latchwork/workloads/txn_check.h"

#include <algorithm>
#include <sstream>

#include "latchwork/check/serializability.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/sim/sim_backend.h"
#include "latchwork/txn/load.h"
#include "latchwork/txn/run.h"
#include "latchwork/txn/txn.h"

namespace lw::workloads {
namespace {

uint32_t coordinators_of(const ClusterConfig& c, const check::Shape& s) {
  return s.workers(c.memory_nodes);
}

// The seeds of a sweep share the store's layout and image (load_store: the
// check driver's node memory reuse is in effect): every seed loads the same
// records (the workload has no seed).
std::unique_ptr<txn::Store> build_store(Backend& b, const txn::TxnWorkload& wl, const txn::DesignConfig& d,
                                        uint32_t coordinators, uint64_t log_ring_bytes, std::string* err) {
  txn::StoreOptions so;
  so.nodes = b.config().memory_nodes;
  so.replicas = d.replicas;
  so.coordinators = coordinators;
  so.log_ring_bytes = log_ring_bytes;
  return txn::load_store(b, wl, so, err);
}

txn::DesignConfig design_of(const TxnCheckOptions& t) {
  txn::DesignConfig d;
  txn::design_preset(t.design, &d);
  d.broken = t.broken;
  return d;
}

class TxnCheck final : public check::Workload {
 public:
  explicit TxnCheck(TxnCheckOptions t) : t_(std::move(t)) {}

  void setup(check::SeedRun& run) override {
    const ClusterConfig& c = run.config();
    design_ = design_of(t_);
    OltpOptions oo = t_.oltp;
    oo.nodes = c.memory_nodes;
    std::string err;
    wl_ = make_oltp_workload(t_.workload, oo, &err);
    if (!wl_) return run.fail("setup", err);
    coordinators_ = coordinators_of(c, run.shape());
    store_ = build_store(run.backend(), *wl_, design_, coordinators_, t_.log_ring_bytes, &err);
    if (!store_) return run.fail("setup", "building the store failed: " + err);
    model_ = &run.add_model(std::make_unique<check::SerializabilityModel>());
    std::vector<std::string> names;
    for (const txn::TableSpec& s : wl_->tables()) names.push_back(wl_->name() + "." + s.name);
    model_->set_table_names(std::move(names));
    txn::Engine::Options eo;
    eo.design = design_;
    check::SerializabilityModel* m = model_;
    eo.on_commit = [m](const txn::CommitRecord& r) { m->committed(r); };
    engine_ = txn::Engine::create(run.backend(), *store_, eo, &err);
    if (!engine_) return run.fail("setup", "creating the engine failed: " + err);
    if (design_.smart_runtime) {
      runtime_ = std::make_unique<smart::Runtime>(c);
      engine_->set_runtime(runtime_.get());
    }
  }

  Task<void> run(check::SeedRun& run, Worker& w) override {
    if (!engine_) co_return;
    const Placement& p = w.placement();
    if (design_.disaggregated && p.on_memory_node()) co_return;  // memory nodes run no coordinators
    const uint32_t coordinator = run.worker_index(w);
    const uint32_t nodes = store_->nodes();
    // The node a TPC-C NewOrder's home warehouse is on: the coordinator's
    // own, or for node-less clients one by index (0 for disaggregated).
    const NodeId home = design_.disaggregated ? NodeId{0}
                        : p.on_memory_node() ? static_cast<NodeId>(p.node)
                                             : static_cast<NodeId>(coordinator % nodes);
    txn::Txn txn(*engine_, w, coordinator);
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const txn::TxnInput in = wl_->draw(w.rng(), home, nodes);
      txn::TxnStatus st = txn::TxnStatus::kAborted;
      txn::TxnEffect eff;
      for (uint32_t a = 0; a < t_.max_attempts; ++a) {
        eff = txn::TxnEffect{};
        st = co_await wl_->execute(txn, in, &eff);
        if (st != txn::TxnStatus::kAborted) break;
        if (a + 1 < t_.max_attempts) co_await w.sleep(txn::retry_delay(w.rng(), t_.retry_backoff_ns, a));
      }
      const std::string what = wl_->types().at(in.type) + " by coordinator " + std::to_string(coordinator);
      if (st == txn::TxnStatus::kFailed) {
        run.fail("txn-failed", what + " failed: " + std::string(to_string(txn.error())));
        break;
      }
      if (st == txn::TxnStatus::kAborted) {
        run.gave_up(w, what + " after " + std::to_string(t_.max_attempts) + " attempts (last abort in " +
                           std::string(txn::to_string(txn.abort_phase())) + ")");
        continue;
      }
      effect_.balance_delta += eff.balance_delta;
      run.op_done(w);
    }
    const Status ds = co_await txn.drain();
    if (!ok(ds)) run.fail("txn-failed", "coordinator " + std::to_string(coordinator) + ": drain failed with " +
                                            std::string(to_string(ds)));
  }

  void check(check::SeedRun& run) override {
    if (!engine_) return;
    const txn::Store& s = *store_;
    bool replicas_reported = false;
    for (txn::TableId t = 0; t < s.tables().size(); ++t) {
      std::vector<std::byte> p0(s.payload_bytes(t)), pr(s.payload_bytes(t));
      const std::string table = wl_->name() + "." + s.tables()[t].name;
      for (uint64_t key : s.keys(t)) {
        txn::RecordView v0, vr;
        if (!s.host_read(t, key, 0, &v0, p0)) {
          run.fail("setup", table + " key " + std::to_string(key) + " is missing");
          return;
        }
        const std::string name = table + " key " + std::to_string(key);
        if (!v0.consistent) run.fail("torn-record", name + ": the primary's lines carry different versions");
        model_->final_state(t, key, v0.version, txn::payload_hash(p0));
        for (uint32_t r = 1; r < s.replicas() && !replicas_reported; ++r) {
          s.host_read(t, key, r, &vr, pr);
          if (vr.version != v0.version || pr != p0) {
            run.fail("backup-differs", name + ": backup " + std::to_string(r) + " has version " +
                                           std::to_string(vr.version) + ", the primary " + std::to_string(v0.version) +
                                           (vr.version == v0.version ? " (different payloads)" : ""));
            replicas_reported = true;  // one is enough: the rest usually follow
          }
        }
      }
    }
    if (std::string held = still_held(run); !held.empty()) run.fail("lock-held", held);
    if (std::string e = wl_->check(s, effect_); !e.empty()) run.fail("workload-invariant", e);
  }

  std::string still_held(check::SeedRun&) override {
    if (!store_) return {};
    const txn::Store& s = *store_;
    for (txn::TableId t = 0; t < s.tables().size(); ++t) {
      std::vector<std::byte> p(s.payload_bytes(t));
      for (uint64_t key : s.keys(t)) {
        for (uint32_t r = 0; r < s.replicas(); ++r) {
          txn::RecordView v;
          if (!s.host_read(t, key, r, &v, p) || v.lock == 0) continue;
          std::ostringstream o;
          o << wl_->name() << "." << s.tables()[t].name << " key " << key << ": the lock of replica " << r
            << " is still taken (word 0x" << std::hex << v.lock << std::dec << ", coordinator "
            << ((v.lock & ~txn::kLockedBit) - 1) << ")";
          return o.str();
        }
      }
    }
    return {};
  }

 private:
  TxnCheckOptions t_;
  txn::DesignConfig design_;
  std::unique_ptr<txn::TxnWorkload> wl_;
  uint32_t coordinators_ = 0;
  std::unique_ptr<txn::Store> store_;
  std::unique_ptr<txn::Engine> engine_;
  std::unique_ptr<smart::Runtime> runtime_;
  check::SerializabilityModel* model_ = nullptr;
  txn::TxnEffect effect_;  // committed transactions' sum (the simulator is one OS thread)
};

}  // namespace

OltpOptions txn_check_scale(const std::string& workload) {
  OltpOptions o;
  o.warehouses_per_node = 1;
  o.items = 100;               // 5-15 of 100 items per order: stock rows conflict, not always
  o.customers_per_district = 3;
  o.order_slots = 16;
  o.remote_item_percent = 30;
  o.accounts_per_node = 10;    // 30 accounts, 3 of them hot
  o.hot_fraction = 0.1;
  o.subscribers_per_node = 4;
  o.customers_per_node = 4;
  o.securities_per_node = 6;
  o.market_feed_percent = workload == "tpce" ? 30 : 0;  // writers for the read-only validation to meet
  return o;
}

std::string TxnCheckOptions::validate() const {
  txn::DesignConfig d;
  if (!txn::design_preset(design, &d)) return "unknown design " + design + " (drtmh, farm, drtmr, fasst, ford or smart-dtx)";
  d.broken = broken;
  if (std::string e = d.validate(); !e.empty()) return "design " + design + ": " + e;
  if (broken == txn::Broken::kMixedAtomics && d.disaggregated)
    return "mixed-atomics needs a symmetric design (drtmh, farm, drtmr, fasst): disaggregated memory nodes run no "
           "handlers to lock with the CPU";
  const auto& names = oltp_workload_names();
  if (std::find(names.begin(), names.end(), workload) == names.end())
    return "unknown workload " + workload + " (tpcc, smallbank, tatp or tpce)";
  if (std::string e = oltp.validate(); !e.empty()) return e;
  if (max_attempts == 0 || max_attempts > 1'000'000) return "max attempts must be in [1, 10^6]";
  if (retry_backoff_ns > 1'000'000) return "the retry backoff must be at most 1 ms";
  if (log_ring_bytes < 2048 || log_ring_bytes % 64 != 0) return "log ring bytes must be a multiple of 64, >= 2048";
  return "";
}

TxnCheckOptions txn_check_defaults(const std::string& design, const std::string& workload, txn::Broken broken) {
  TxnCheckOptions t;
  t.design = design;
  t.workload = workload;
  t.broken = broken;
  t.oltp = txn_check_scale(workload);
  return t;
}

check::Options txn_check_options(const TxnCheckOptions& t, const ClusterConfig& base) {
  check::Options o;
  o.cluster = base;
  o.cluster.memory_nodes = std::max(base.memory_nodes, kTxnCheckMemoryNodes);
  o.cluster.memory_node_bytes = kTxnCheckMemoryNodeBytes;
  o.cluster.budget.progress_seconds = 0;
  txn::DesignConfig d;
  if (txn::design_preset(t.design, &d) && d.disaggregated) {
    o.shape.compute_nodes = 2;
    o.shape.threads_per_node = 2;
    o.shape.coroutines_per_thread = 2;
    o.shape.memory_node_threads = 0;
  } else {
    o.shape.compute_nodes = 1;
    o.shape.threads_per_node = 2;
    o.shape.coroutines_per_thread = 2;
    o.shape.memory_node_threads = 2;
  }
  o.shape.ops_per_worker = 30;
  o.first_seed = base.seed;
  return o;
}

std::string txn_check_validate(const TxnCheckOptions& t, const check::Options& o) {
  if (std::string e = t.validate(); !e.empty()) return e;
  if (std::string e = o.validate(); !e.empty()) return e;
  if (o.cluster.memory_nodes < kTxnCheckMemoryNodes)
    return "a txn check needs " + std::to_string(kTxnCheckMemoryNodes) + " memory nodes (a primary and two backups)";
  const txn::DesignConfig d = design_of(t);
  if (!d.disaggregated && o.shape.memory_node_threads == 0)
    return "symmetric designs run coordinators on memory-node threads: --memory-node-threads must be positive";
  ClusterConfig c = o.cluster;
  c.compute_nodes = o.shape.compute_nodes;
  c.threads_per_node = o.shape.threads_per_node;
  c.coroutines_per_thread = o.shape.coroutines_per_thread;
  c.memory_node_threads = o.shape.memory_node_threads;
  if (std::string e = c.validate(); !e.empty()) return e;
  SimBackend sim(c);
  OltpOptions oo = t.oltp;
  oo.nodes = c.memory_nodes;
  std::string err;
  std::unique_ptr<txn::TxnWorkload> wl = make_oltp_workload(t.workload, oo, &err);
  if (!wl) return err;
  if (!build_store(sim, *wl, d, coordinators_of(c, o.shape), t.log_ring_bytes, &err))
    return "the store does not fit: " + err;
  return "";
}

check::WorkloadFactory txn_check_workload(const TxnCheckOptions& t) {
  return [t] { return std::make_unique<TxnCheck>(t); };
}

}  // namespace lw::workloads
