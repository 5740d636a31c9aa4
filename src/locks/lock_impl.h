// Internals of the lock table (lock.h): the 64-byte layouts of each kind's
// lock line and descriptors, and the per-kind lock/unlock coroutines.
//
// Every access goes through Ctx, which counts it into LockClientStats: a
// verb (loopback when it targets the worker's own node) or a CPU access.
#pragma once

#include <cstddef>
#include <cstdint>

#include "latchwork/base/layout.h"
#include "latchwork/locks/lock.h"

namespace lw::locks::detail {

// ---- Spinlock line ----------------------------------------------------------
//
//   byte 0        8                                               64
//      +----------+------------------------------------------------+
//      |  word    |                 padding                        |
//      +----------+------------------------------------------------+
//   word: 0 free, 1 held.
struct alignas(kCacheLine) SpinLine {
  uint64_t word;
  uint64_t pad[7];
};
static_assert(sizeof(SpinLine) == kCacheLine && offsetof(SpinLine, word) == 0);
inline constexpr uint64_t kSpinFree = 0;
inline constexpr uint64_t kSpinHeld = 1;

// ---- MCS line ---------------------------------------------------------------
//
//   byte 0        8                                               64
//      +----------+------------------------------------------------+
//      |  tail    |                 padding                        |
//      +----------+------------------------------------------------+
//   tail: raw RemoteAddr of the last descriptor in the queue, 0 when free.
struct alignas(kCacheLine) McsLine {
  uint64_t tail;
  uint64_t pad[7];
};
static_assert(sizeof(McsLine) == kCacheLine && offsetof(McsLine, tail) == 0);

// ---- ALock line (Baran et al. Fig. 3) ---------------------------------------
//
//   byte 0          8          16         24                        64
//      +----------+----------+----------+---------------------------+
//      |  tail_r  |  tail_l  |  victim  |         padding           |
//      +----------+----------+----------+---------------------------+
//   tail_r: rdma_ptr<RemoteDescriptor> (raw RemoteAddr), rCAS'd by the remote
//           cohort only, read (CPU load) by the local cohort.
//   tail_l: rdma_ptr<LocalDescriptor> on this node, CPU CAS'd by the local
//           cohort only, read (rRead) by the remote cohort.
//   victim: kVictimNone / kRemote / kLocal; written by both cohorts (CPU store
//           and RDMA WRITE of 8 aligned bytes are atomic with each other,
//           Table 1); never the target of an atomic, so no WRITE or store to
//           it can be lost inside an atomic's read/write-back window.
// One aligned line, so one 64-byte READ snapshots tail_l and victim at once.
struct alignas(kCacheLine) AlockLine {
  uint64_t tail_r;
  uint64_t tail_l;
  uint64_t victim;
  uint64_t pad[5];
};
static_assert(sizeof(AlockLine) == kCacheLine && alignof(AlockLine) == kCacheLine);
static_assert(offsetof(AlockLine, tail_r) == 0 && offsetof(AlockLine, tail_l) == 8 &&
              offsetof(AlockLine, victim) == 16);
inline constexpr uint64_t kTailR = offsetof(AlockLine, tail_r);
inline constexpr uint64_t kTailL = offsetof(AlockLine, tail_l);
inline constexpr uint64_t kVictim = offsetof(AlockLine, victim);
inline constexpr uint64_t kVictimNone = 0;
inline constexpr uint64_t kRemote = 1;
inline constexpr uint64_t kLocal = 2;

// ---- Descriptors (Alg. 1): one line each ------------------------------------
//
//   byte 0          8          16                                   64
//      +----------+----------+--------------------------------------+
//      |  budget  |   next   |              padding                 |
//      +----------+----------+--------------------------------------+
//   budget: int64; -1 while waiting, >= 0 once the lock was passed (the
//           passes left; MCS uses only -1 / 0). Written by the predecessor.
//   next:   raw RemoteAddr of the successor's descriptor, written by it.
// A worker's block (LockTable::descriptors) holds two: the LocalDescriptor at
// +0 (also MCS's descriptor) and the RemoteDescriptor at +64.
struct alignas(kCacheLine) Descriptor {
  int64_t budget;
  uint64_t next;
  uint64_t pad[6];
};
static_assert(sizeof(Descriptor) == kCacheLine && offsetof(Descriptor, budget) == 0 &&
              offsetof(Descriptor, next) == 8);
static_assert(LockTable::kDescriptorBytes == 2 * sizeof(Descriptor));
inline constexpr uint64_t kBudget = offsetof(Descriptor, budget);
inline constexpr uint64_t kNext = offsetof(Descriptor, next);
inline constexpr uint64_t kLocalDesc = 0;
inline constexpr uint64_t kRemoteDesc = sizeof(Descriptor);
inline constexpr int64_t kWaiting = -1;

// The per-call context: the table, the worker and its counters.
struct Ctx {
  const LockTable& t;
  Worker& w;
  LockClientStats& st;
  LockAttempt& attempt;

  const LockTableConfig& cfg() const { return t.config(); }
  bool own_node(RemoteAddr a) const {
    return w.placement().on_memory_node() && a.node() == w.placement().node;
  }
  void count_verb(RemoteAddr a) {
    ++st.remote_verbs;
    if (own_node(a)) ++st.loopback_verbs;
  }
  // An awaiter whose result is only its status.
  template <typename A>
  struct [[nodiscard]] StatusOf {
    A a;
    bool await_ready() const noexcept { return a.await_ready(); }
    bool await_suspend(std::coroutine_handle<> h) { return a.await_suspend(h); }
    Status await_resume() const noexcept { return a.await_resume().status; }
  };
  // Verbs (counted). `fence`: does not overtake an earlier READ on the QP.
  // The CAS and the CPU accesses return the worker's awaiter itself, not a
  // coroutine around it: a waiter's poll loop is most of a lock run's work
  // (alock-fig5), and a coroutine frame per poll was a tenth of it.
  Worker::AtomicAwaiter rcas(RemoteAddr a, uint64_t expected, uint64_t desired, bool fence = false) {
    count_verb(a);
    return w.cas(a, expected, desired, fence);
  }
  Task<Result<uint64_t>> rread(RemoteAddr a, bool fence = false);
  Task<Status> rread_line(RemoteAddr a, void* line, bool fence = false);
  Task<Status> rwrite(RemoteAddr a, uint64_t v, bool fence = false);
  // CPU accesses to the worker's own node (counted).
  Worker::CpuAwaiter load(RemoteAddr a) {
    ++st.cpu_accesses;
    return w.cpu_load(a);
  }
  StatusOf<Worker::CpuAwaiter> store(RemoteAddr a, uint64_t v) {
    ++st.cpu_accesses;
    return {w.cpu_store(a, v)};
  }
  Worker::CpuAwaiter ccas(RemoteAddr a, uint64_t expected, uint64_t desired) {
    ++st.cpu_accesses;
    return w.cpu_cas(a, expected, desired);
  }
  // A descriptor word (never an atomic's target): a CPU store when it is on
  // the worker's own node, else an RDMA WRITE. Both are atomic with the
  // owner's CPU loads (Table 1).
  Task<Status> store_desc(RemoteAddr a, uint64_t v);
  // Local spinning: CPU loads of `a` while it holds `value`
  // (Worker::cpu_wait_while), counted as the loop of load() and spin() it
  // stands for: an access per load, a spin per load that saw `value`.
  // kRetryExhausted when the spins pass max_spins, as spin() would say.
  Task<Result<uint64_t>> wait_while(RemoteAddr a, uint64_t value, uint64_t* spins);
  // One wait-loop iteration: counts it; false past max_spins.
  bool spin(uint64_t* spins) {
    ++st.spins;
    return ++*spins <= cfg().max_spins;
  }
};

Task<Status> spin_lock(Ctx c, uint64_t i, bool local_cpu);
// How a spinlock holder frees the word (spin_lock.cpp says why kCas).
enum class SpinRelease : uint8_t {
  kCas,            // RDMA CAS held -> free (kSpin where a failed CAS may write back)
  kWrite,          // RDMA WRITE of free (kSpin elsewhere; kSpinWriteUnlock always: broken)
  kLocalCpuStore,  // a CPU store on the lock's node, else kWrite (kSpinLocalCpu: broken)
};
Task<Status> spin_unlock(Ctx c, uint64_t i, SpinRelease how);
Task<Status> mcs_lock(Ctx c, uint64_t i);
Task<Status> mcs_unlock(Ctx c, uint64_t i);
Task<Status> alock_lock(Ctx c, uint64_t i);
// ALock Alg. 4: pLock (= pReacquire) of `cohort` (kLocal / kRemote) on the
// ALock line at `line`, under the table's variant.
Task<Status> alock_peterson(Ctx c, RemoteAddr line, uint64_t cohort);
Task<Status> alock_unlock(Ctx c, uint64_t i);

}  // namespace lw::locks::detail
