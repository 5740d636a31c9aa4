// HOCL, Sherman's hierarchical on-chip lock (Wang et al., SIGMOD'22, §4.3,
// Fig. 6). Every memory node holds a *global lock table* (GLT); a lock
// guarding remote address A lives on A's memory node at index
// hash(A) % locks_per_node. Every compute node holds a *local lock table*
// (LLT) with one local lock per global lock: a FIFO queue of the node's
// coroutines (a ticket lock). A coroutine first takes the local lock, then
// the global one by CAS; on release it hands the global lock to the next
// local waiter instead of releasing it, at most max_handover times in a row.
//
// The switchable parts (Sherman Fig. 10's breakdown and Fig. 16):
//   on_chip       GLT in NIC device memory as 16-bit lanes taken with masked
//                 CAS (131,072 locks in 256 KB), released by a 2-byte WRITE;
//                 off: 64-bit lock words in host memory, released by an
//                 8-byte WRITE (FG+'s locks).
//   hierarchical  the LLT; off: every coroutine spins on the GLT with CAS.
//   handover      hand the held global lock to the next local waiter.
//
// Releasing by WRITE is safe: a CAS writes back only when it succeeds, and
// it succeeds only on a free lock, which nobody is releasing. (The 2-byte
// lane release shares its 8-byte word with three other locks, but the
// simulator, like the NIC, serves device-memory atomics without a split
// read/write-back, so no WRITE lands inside one; in host memory the lanes
// would not be safe, which is why host locks are whole words.)
//
// Where the backend lacks device memory or masked atomics (Soft-RoCE),
// create() falls back to 64-bit host-memory locks and says so in
// Hocl::fallback().
//
// Combination (Sherman §4.5): release_global() appends the release WRITE to
// the caller's batch, after its write-backs on the same queue pair (WRITEs
// on one RC QP execute in order), so write-back and release cost one round
// trip. The caller awaits the batch, then calls release_local(). A handover
// happens only after the batch completed, so the next holder reads what
// this one wrote (Fig. 6 lists the local unlock before posting the list; on
// separate QPs that order would let the next holder read the node before the
// write-back lands).
//
//   Hocl h = *Hocl::create(backend, cfg);               // host side
//   Result<Hocl::Grant> g = co_await h.lock(ctx, node_addr);
//   Batch b(node_addr.node()); b.write(...);            // write-backs
//   h.release_global(*g, b);  co_await ctx.execute(b);  h.release_local(w, *g);
//
// A handover adds nothing to the batch: do not execute an empty batch
// (Worker::execute refuses it). Call release_local after every
// release_global, whatever the batch's status: a local waiter may be
// waiting for the handover. Reads of the critical section must have
// completed before the batch is posted (the release WRITE has no fence).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/base/status.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/runtime/task.h"
#include "latchwork/verbs/backend.h"
#include "latchwork/verbs/worker.h"

namespace lw::locks {

struct HoclConfig {
  uint32_t locks_per_node = 131072;  // Fig. 6 MAX_LOCK_PRE_MS
  bool on_chip = true;
  bool hierarchical = true;
  bool handover = true;
  uint32_t max_handover = 4;         // Fig. 6 MAX_DEPTH
  // Bound on one lock(): GLT CAS attempts plus LLT polls. Past it lock()
  // returns kRetryExhausted holding nothing (its ticket is marked abandoned
  // and skipped by the holder passing on, so the queue keeps moving).
  uint64_t max_spins = 1'000'000;
  // A local waiter polls its turn this often (virtual ns on the simulator).
  Nanos local_poll_ns = 100;
  // SMART's conflict avoidance: GLT CAS through Context::backoff_cas, and
  // on-chip masked CAS followed by a jittered exponential sleep; either
  // sleeps only when the runtime's backoff is on (smart.backoff: the
  // smart-bt preset), so Sherman and FG+ spin without sleeping. Off: plain
  // CAS, no retry counted for SMART.
  bool backoff = true;
  // Several processes on one lock table (verbs): each GLT is
  // Backend::allocate_shared(node, shared_name + "/glt") (host memory; the
  // first process gets it zeroed); "" = private GLTs. LLTs stay per process.
  std::string shared_name;

  static constexpr uint32_t kMaxLocksPerNode = 1u << 22;
  // "" or a message naming the bad field.
  std::string validate() const;
  bool operator==(const HoclConfig&) const = default;
};

// Counters over every compute node (monotone; read after run()).
struct HoclStats {
  uint64_t acquisitions = 0;
  uint64_t handovers = 0;        // acquisitions handed over (no remote access)
  uint64_t global_cas = 0;       // GLT CAS posted
  uint64_t global_cas_failed = 0;
  uint64_t local_waits = 0;      // acquisitions that queued behind a local holder
  uint64_t gave_up = 0;          // lock() calls that returned kRetryExhausted
};

class Hocl {
 public:
  Hocl() = default;

  // Allocates a GLT on every memory node (device memory when on_chip and
  // the backend has it, else host memory) and an LLT for every compute
  // node. kBadLength for a config that does not validate(); kOutOfBounds
  // when a node has no room.
  static Result<Hocl> create(Backend& b, const HoclConfig& cfg);

  struct Grant {
    NodeId node = 0;          // the GLT's memory node (the guarded address's)
    uint32_t index = 0;       // the lock's index in that GLT
    bool handed_over = false; // took the global lock from a local holder
    uint32_t remote_attempts = 0;  // GLT CAS posted for this grant
    uint32_t compute_node = 0;  // the holder's compute node (its LLT)
    uint32_t ticket = 0;        // its ticket in the local lock (hierarchical)
  };

  // Locks the lock guarding `guarded` for the context's worker (a compute
  // worker). kRetryExhausted past max_spins (nothing held).
  Task<Result<Grant>> lock(smart::Context& ctx, RemoteAddr guarded) const;
  // Decides how the global lock is released: hands it over (nothing added;
  // returns false) when handover is on, a local waiter is queued and fewer
  // than max_handover handovers happened in a row; otherwise appends the
  // release WRITE to `batch` (which must be for g.node) and returns true.
  bool release_global(const Grant& g, Batch& batch) const;
  // After the batch of release_global completed: passes the local lock on
  // (with the global one when handing over). Without hierarchy, a no-op.
  void release_local(Worker& w, const Grant& g) const;
  // release_global + execute + release_local, uncombined (one round trip
  // for the release alone, or none when handing over).
  Task<Status> unlock(smart::Context& ctx, const Grant& g) const;

  // The GLT word that holds lock `index` on `node`, and the mask of its
  // bits (for tests and the checker's final "every lock free" scan).
  RemoteAddr word_addr(NodeId node, uint32_t index) const;
  uint64_t lane_mask(uint32_t index) const;
  uint32_t index_of(RemoteAddr guarded) const;

  const HoclConfig& config() const;
  // Whether the GLTs are 16-bit lanes in device memory (else 64-bit words in
  // host memory), and why not when the config asked for them.
  bool on_chip() const;
  const std::string& fallback() const;
  HoclStats stats() const;
  bool valid() const { return static_cast<bool>(state_); }

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace lw::locks
