// An OLTP workload for the transaction engine: its tables, where each record
// lives, its initial records, how to draw a transaction, how to run one, and
// what must hold at the end. TPC-C NewOrder, SmallBank, TATP and TPC-E's
// customer-position implement it (include/latchwork/workloads/oltp.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "latchwork/base/random.h"
#include "latchwork/runtime/task.h"
#include "latchwork/txn/store.h"
#include "latchwork/txn/txn.h"

namespace lw::txn {

// One transaction's inputs, drawn once and reused by every retry.
struct TxnInput {
  static constexpr uint32_t kMaxArgs = 64;
  uint32_t type = 0;
  bool read_only = false;
  uint32_t nargs = 0;
  std::array<uint64_t, kMaxArgs> args{};
};

// What a committed transaction changed that the final check accounts for
// (SmallBank: the sum of balances it added; 0 for transfers).
struct TxnEffect {
  int64_t balance_delta = 0;
};

class TxnWorkload {
 public:
  virtual ~TxnWorkload() = default;
  virtual std::string name() const = 0;
  virtual std::vector<TableSpec> tables() const = 0;
  // The primary node of a record.
  virtual NodeId home(TableId t, uint64_t key, uint32_t nodes) const = 0;
  // Host-side: every initial record.
  virtual void load(StoreLoader& loader) const = 0;
  // Transaction type names, index = TxnInput::type (<= kMaxTxnTypes).
  virtual std::vector<std::string> types() const = 0;
  // Draws one transaction. `coordinator_node`: the coordinator's node in
  // symmetric designs (TPC-C picks a home warehouse there), 0 otherwise.
  virtual TxnInput draw(Rng& rng, NodeId coordinator_node, uint32_t nodes) const = 0;
  // One attempt: begin, declare, fetch, compute, commit. Returns the
  // outcome; on kOk, *effect says what the transaction changed.
  virtual Task<TxnStatus> execute(Txn& txn, const TxnInput& in, TxnEffect* effect) const = 0;
  // Host-side, after the run: the workload's invariants over the final
  // store (SmallBank: total balance == initial + sum of committed deltas;
  // TPC-C: dense order ids per district). "" or what is violated.
  virtual std::string check(const Store& store, const TxnEffect& committed_total) const = 0;

  // The store nodes the data was scaled and partitioned for (0: any count).
  // run_txn refuses a run whose store has another count: a workload built
  // for one node but run on four holds a quarter of the data, and every
  // coordinator's "local" warehouse or account is then shared by all.
  uint32_t store_nodes() const { return store_nodes_; }
  void set_store_nodes(uint32_t n) { store_nodes_ = n; }

  // Bytes that say everything load() reads, so that two workloads with
  // equal keys load the same records in the same order (the built-in OLTP
  // workloads: their name and every option). A sweep that loads again then
  // takes the earlier plan without calling load(). Empty (the default): not
  // known, loaded every time and compared record by record.
  const std::string& load_key() const { return load_key_; }
  void set_load_key(std::string key) { load_key_ = std::move(key); }

 private:
  uint32_t store_nodes_ = 0;
  std::string load_key_;
};

}  // namespace lw::txn
