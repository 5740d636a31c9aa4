// Locks on symmetric nodes (ALock, Baran et al. SPAA'24 §4): every node holds
// RDMA-registered memory and runs worker threads. A worker reaches its own
// node's memory with CPU loads, stores and atomics (a *local* access,
// Worker::cpu_*) and every other node's with one-sided verbs (*remote*).
// Verbs to its own node go through the NIC's loopback.
//
// Workers run on memory-node threads (Placement::Kind::kMemory, configured
// by ClusterConfig::memory_node_threads); compute-node workers are pure
// remote clients and only the spinlocks serve them (MCS and ALock waiters
// spin on a descriptor in their own node's memory, which a compute node does
// not have: lock() returns kUnsupported).
//
//   LockTableConfig t;  t.kind = LockKind::kAlock;  t.locks = 100;
//   auto table = LockTable::create(backend, t);           // host side, before run()
//   ... in a worker:  LockClient c(*table, w);
//   if (Status s = co_await c.lock(i); ok(s)) { ...; co_await c.unlock(i); }
//
// Every lock is one 64-byte line (its own layout per kind, drawn in its .cpp);
// lock i lives on node i % nodes at table.lock_addr(i). Descriptors (MCS,
// ALock) live in the memory of the worker's own node, one set per worker.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/base/status.h"
#include "latchwork/runtime/task.h"
#include "latchwork/verbs/backend.h"
#include "latchwork/verbs/worker.h"

namespace lw::locks {

enum class LockKind : uint8_t {
  kSpin,          // RDMA CAS spin; local workers through loopback (correct baseline)
  kSpinLocalCpu,  // the same, local workers with CPU CAS: broken (ALock Table 1)
  kMcs,           // RDMA MCS: descriptors in RDMA memory, waiters spin on their own
  kAlock,         // ALock §5, Algorithms 1-4
  kSpinWriteUnlock,  // kSpin released by a WRITE of 0: broken where a failed CAS
                     // writes back (Soft-RoCE; failed_cas_writes_back)
};
const char* to_string(LockKind k);
// "spin" | "spin-local-cpu" | "mcs" | "alock" | "spin-write-unlock"; false if unknown.
bool parse_lock_kind(const std::string& s, LockKind* out);

// Deliberately broken ALock variants: what the checkers must catch.
enum class AlockVariant : uint8_t {
  kCorrect,
  // Peterson tests (other tail, victim) once before writing victim and enters
  // when victim names the other cohort: the other cohort, holding, was the
  // last to write it, so a leader walks in beside it (no mutual exclusion,
  // even under `sequential`).
  kVictimAfterCheck,
  // Peterson without the victim (flags only): wait while the other tail is
  // set, reacquire likewise. Still mutually exclusive (each tail is set
  // before the other is read), but two cohort leaders, or a budget-exhausted
  // holder and the other leader, wait on each other forever (deadlock).
  kNoVictim,
};
const char* to_string(AlockVariant v);
bool parse_alock_variant(const std::string& s, AlockVariant* out);

struct LockTableConfig {
  LockKind kind = LockKind::kAlock;
  AlockVariant variant = AlockVariant::kCorrect;
  uint64_t locks = 100;         // partitioned over all memory nodes, lock i on node i % nodes
  int32_t local_budget = 5;     // ALock §6.1: passes within the local cohort before reacquire
  int32_t remote_budget = 20;   // ... within the remote cohort
  // Bound on every wait (spins, CAS retries) of one lock() or unlock(); past
  // it the call returns kRetryExhausted and (lock) holds nothing.
  uint64_t max_spins = 1'000'000;
  // Workers that will use the table: per node, thread and coroutine slot
  // (descriptors are allocated for these up front).
  uint32_t threads_per_node = 1;
  uint32_t coroutines_per_thread = 1;

  static constexpr uint64_t kMaxLocks = 1u << 24;
  static constexpr int32_t kMaxBudget = 1 << 20;
  // "" or a message naming the bad field.
  std::string validate() const;
  bool operator==(const LockTableConfig&) const = default;
};

// What one client did (for tests, statistics and the repro's accounting).
struct LockClientStats {
  uint64_t acquisitions = 0;
  uint64_t local_acquisitions = 0;   // of locks on the worker's own node
  uint64_t passes = 0;               // handed over by a predecessor (MCS, ALock)
  uint64_t reacquires = 0;           // ALock: budget exhausted, pReacquire
  uint64_t remote_verbs = 0;         // verbs posted (loopback included)
  uint64_t loopback_verbs = 0;       // of those, to the worker's own node
  uint64_t cpu_accesses = 0;         // local CPU loads/stores/atomics
  uint64_t spins = 0;                // wait-loop iterations
};

class LockTable {
 public:
  // Allocates and initialises the locks and every worker's descriptors
  // host-side (before run()). kOutOfBounds when they do not fit in memory;
  // a config that does not validate() is a programming error (LW_CHECK).
  static Result<std::shared_ptr<LockTable>> create(Backend& b, const LockTableConfig& c);

  const LockTableConfig& config() const { return cfg_; }
  uint32_t nodes() const { return nodes_; }
  NodeId home(uint64_t lock) const { return static_cast<NodeId>(lock % nodes_); }
  RemoteAddr lock_addr(uint64_t lock) const;
  // The descriptor block of a worker (for its client), or null if its
  // placement was not provisioned.
  RemoteAddr descriptors(const Placement& p) const;
  static constexpr uint64_t kDescriptorBytes = 128;  // local + remote descriptor, one line each
  // kSpin frees its word with a CAS (else a WRITE): the backend's failed CAS
  // may write back (Capabilities::failed_cas_writes_back).
  bool spin_release_by_cas() const { return spin_release_by_cas_; }

 private:
  LockTable() = default;
  LockTableConfig cfg_;
  uint32_t nodes_ = 1;
  bool spin_release_by_cas_ = true;
  std::vector<RemoteAddr> base_;         // per node: first lock of that node
  std::vector<RemoteAddr> descriptors_;  // per (node, thread, coroutine)
};

// When the last lock() call began to wait, for fairness checks: the
// interval [enqueue_posted, enqueue_done] contains the instant its request
// took its place (queue locks: the tail CAS that enqueued it; spinlocks: the
// first CAS attempt). A request whose enqueue_posted is after another's
// enqueue_done certainly came later.
struct LockAttempt {
  Nanos enqueue_posted = 0;
  Nanos enqueue_done = 0;
  bool passed = false;      // handed over by a predecessor
  bool reacquired = false;  // ALock: passed with budget 0, went through pReacquire
};

// One worker's use of a table (not shared between coroutines).
class LockClient {
 public:
  LockClient(const LockTable& t, Worker& w);
  // Acquires lock `i`; kOk when held. Errors: a verb's status, kRetryExhausted
  // past max_spins (nothing held, the lock's state left consistent only for
  // the spinlocks; queue locks return it as a failure to report).
  //
  // A queue lock (MCS, ALock) that fails in lock() or unlock() leaves this
  // client's descriptor linked into that lock's queue, where the predecessor
  // will still pass the lock into it and a successor still link itself.
  // Re-arming the descriptor for another acquisition would let that stale
  // pass hand it a lock it does not hold (and enqueue it twice), so the
  // client is spent: every later lock() / unlock() returns kRetryExhausted
  // without touching memory (spent() says so). The lock it gave up on stays
  // taken by the abandoned descriptor.
  Task<Status> lock(uint64_t i);
  // Releases lock `i`, which this client holds.
  Task<Status> unlock(uint64_t i);
  bool spent() const { return spent_; }
  bool is_local(uint64_t i) const { return t_.home(i) == w_.placement().node && w_.placement().on_memory_node(); }
  const LockClientStats& stats() const { return stats_; }
  const LockAttempt& last_attempt() const { return attempt_; }

 private:
  const LockTable& t_;
  Worker& w_;
  LockClientStats stats_;
  LockAttempt attempt_;
  int64_t held_ = -1;   // the lock held, or -1
  bool held_local_ = false;
  bool spent_ = false;  // a queue lock's call failed: the descriptor may be queued
};

}  // namespace lw::locks
