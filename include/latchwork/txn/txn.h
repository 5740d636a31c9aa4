// Transactions with OCC over the store (DrTM+H §2.2, Fig. 1): Execution,
// Validation, Logging, Commit; read-only transactions in two phases (§5.5).
// Each phase uses the primitive its DesignConfig names (design.h).
//
// Workload code, per attempt:
//
//   txn.begin(/*read_only=*/false, type);
//   RecordId a = txn.read_for_update(kChecking, acct);
//   RecordId b = txn.read(kSavings, acct);
//   if (co_await txn.fetch() != TxnStatus::kOk) co_return txn.status();  // aborted
//   int64_t v = load(txn.value(a)) + load(txn.value(b));
//   store(txn.update(a), v);
//   co_return co_await txn.commit();
//
// fetch() issues every read declared since the last fetch: all at once with
// DesignConfig::speculative_reads (outstanding requests, §6.1: the READs to
// every node in one Worker::execute_all, the GET RPCs in one
// Worker::call_all; reads that take locks go node by node), else one by one. A record locked by another committer, or torn in a way that a retry
// within kMaxRecordRetries does not fix, aborts the attempt. The caller
// retries an aborted transaction with the same inputs (TxnRunner does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "latchwork/base/status.h"
#include "latchwork/runtime/task.h"
#include "latchwork/txn/design.h"
#include "latchwork/txn/history.h"
#include "latchwork/txn/store.h"
#include "latchwork/verbs/backend.h"
#include "latchwork/verbs/worker.h"

namespace lw::smart {
class Runtime;
}

namespace lw::txn {

enum class TxnStatus : uint8_t {
  kOk,       // fetched / committed
  kAborted,  // a conflict: retry the transaction
  kFailed,   // a verb or RPC failed (Txn::error() says which); not retried
};
std::string_view to_string(TxnStatus s);

// The OCC phases, for per-phase latency (DrTM+H Fig. 15).
enum class Phase : uint8_t { kExecute, kValidate, kLog, kCommit, kCount };
std::string_view to_string(Phase p);  // "execution", "validation", "logging", "commit"

inline constexpr uint32_t kMaxTxnRecords = 64;     // read + write set of one transaction
inline constexpr uint32_t kMaxRecordRetries = 8;   // re-READs of a torn record
inline constexpr uint32_t kMaxTxnTypes = 8;

// Counters of one coordinator, summed by the runner.
struct TxnCounters {
  uint64_t committed = 0, aborted = 0, failed = 0;
  uint64_t aborts_by_phase[static_cast<size_t>(Phase::kCount)] = {};
  Nanos phase_ns[static_cast<size_t>(Phase::kCount)] = {};  // committed transactions' time per phase
  uint64_t cache_hits = 0, cache_misses = 0;
  uint64_t torn_reads = 0;
  uint64_t reclaims = 0;
};

// Shared by every coordinator of a run (one per process): the store, the
// design, the RPC handlers' ids, the location caches (one per thread).
class Engine {
 public:
  struct Options {
    DesignConfig design;
    CommitSink on_commit;            // may be empty (performance runs)
    // Global index of this process's first coordinator (multi-process runs:
    // lock words and log rings are per global coordinator).
    uint32_t coordinator_base = 0;
    // With design.location_cache: every lookup hits, answered from the
    // store's layout - the steady state of a long run whose cache holds the
    // whole store (DrTM+H §5.1's 300 MB cache), which a simulated window of
    // a millisecond never reaches. Off: caches start empty and fill.
    bool warm_cache = false;
  };
  // Registers the engine's RPC handlers on `b` (host-side, before run()).
  // nullptr and *error when a handler cannot be registered.
  static std::unique_ptr<Engine> create(Backend& b, Store& store, Options o, std::string* error);
  ~Engine();

  const DesignConfig& design() const { return o_.design; }
  Store& store() { return store_; }
  const Options& options() const { return o_; }
  // The SMART runtime of SMART-DTX (null otherwise); set by the runner.
  void set_runtime(smart::Runtime* rt) { runtime_ = rt; }
  smart::Runtime* runtime() const { return runtime_; }

  // The handlers (also what `latchwork node` serves on verbs): every
  // two-sided phase. Exposed so a memory-node process can serve them.
  static std::vector<RpcHandler> handlers(Store& store);

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  Engine(Backend& b, Store& store, Options o);
  Backend& b_;
  Store& store_;
  Options o_;
  smart::Runtime* runtime_ = nullptr;
  std::unique_ptr<Impl> impl_;
};

using RecordId = uint32_t;

// One coroutine's transactions (a coordinator). Not shared between
// coroutines; reused across transactions.
class Txn {
 public:
  // `coordinator`: the global coordinator index (lock words, log rings).
  Txn(Engine& engine, Worker& w, uint32_t coordinator);
  ~Txn();
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;

  // Starts an attempt: clears the read and write sets.
  void begin(bool read_only, uint32_t type = 0);
  // Declares a read (not yet issued).
  RecordId read(TableId t, uint64_t key);
  // Declares a read of a record the transaction will write.
  RecordId read_for_update(TableId t, uint64_t key);
  // Issues the declared reads; kAborted if a record was locked or stayed torn.
  Task<TxnStatus> fetch();
  // After fetch(): the record's payload as read.
  std::span<const std::byte> value(RecordId r) const;
  // The new payload of a read_for_update record (starts as the value read).
  std::span<std::byte> update(RecordId r);
  // Validation, Logging, Commit (or R+V's validation for read-only ones).
  Task<TxnStatus> commit();
  // Ends the attempt without committing (user abort; releases nothing: locks
  // are only taken inside commit() or by lock_at_execution designs' fetch(),
  // which release them on their own abort paths).
  // (Implementation: it does release the locks a lock_at_execution fetch()
  // took. status() is left as it was - kOk after a successful fetch - so a
  // workload's execute() returns kOk with no effect for a finished
  // transaction that rolled back, as TPC-C counts rolled-back NewOrders;
  // returning kAborted would make TxnRunner retry it.)
  Task<void> abort();

  TxnStatus status() const { return status_; }
  Status error() const { return error_; }
  Phase abort_phase() const { return abort_phase_; }
  const TxnCounters& counters() const { return counters_; }
  Worker& worker() { return w_; }
  uint32_t coordinator() const { return coordinator_; }

  // Flushes this coordinator's pending log reclaims (call once at the end of
  // a run, so backups hold every committed write).
  Task<Status> drain();

  struct State;

 private:
  Engine& e_;
  Worker& w_;
  uint32_t coordinator_;
  TxnStatus status_ = TxnStatus::kOk;
  Status error_ = Status::kOk;
  Phase abort_phase_ = Phase::kExecute;
  TxnCounters counters_;
  std::unique_ptr<State> s_;
};

}  // namespace lw::txn
