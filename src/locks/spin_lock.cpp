// The spinlocks: CAS 0 -> 1 on the lock word until it succeeds (bounded by
// max_spins, with jittered exponential backoff between attempts).
//
// kSpin: every worker uses RDMA CAS, local workers through loopback, so all
// atomics on the word go through the one NIC and are atomic with each other.
//
// kSpinLocalCpu (broken on purpose): workers on the lock's node use a CPU
// CAS. A CPU CAS is not atomic with a NIC CAS (Table 1): a remote rCAS reads
// 0, the local CPU CAS reads 0 and stores 1, the rCAS writes back its 1 —
// both hold the lock. In the simulator that is the atomic_loses_cpu
// relaxation (a CPU access inside a NIC atomic's read/write-back window).
//
// Release. A WRITE of 0 is lost when it lands inside another NIC atomic's
// read/write-back window *and that atomic writes back* (atomic_loses_write).
// While the lock is held every other atomic on the word is a CAS expecting 0
// that reads 1 and fails. Where a failed CAS writes nothing, the WRITE is
// safe and saves the atomic unit a round of serialisation, so kSpin releases
// with it. Soft-RoCE (Linux 6.1 rdma_rxe) writes back the value it read
// whatever the outcome: a waiter's failing CAS rewrites 1 over the release,
// the lock stays taken and every waiter spins until max_spins
// (tests/verbs/node_two_process.sh hung so). Where the backend says a failed
// CAS may write back (Capabilities::failed_cas_writes_back: verbs, and the
// simulator under its failed_cas_writes_back switch), kSpin releases with a
// CAS held -> free, atomic with the waiters' CASes on the same NIC.
// kSpinWriteUnlock always releases with the WRITE: the checker's negative
// control (check --structure locks --scheme spin-write-unlock).
// The release carries the fence flag so that it cannot overtake a READ of
// the critical section still in flight on the same queue pair.
#include "latchwork/sync/retry.h"
#include "lock_impl.h"

namespace lw::locks::detail {

Task<Status> spin_lock(Ctx c, uint64_t i, bool local_cpu) {
  const RemoteAddr word = c.t.lock_addr(i) + offsetof(SpinLine, word);
  const bool cpu = local_cpu && c.own_node(word);
  RetryPolicy policy;
  Backoff backoff(policy);
  uint64_t spins = 0;
  for (bool first = true;; first = false) {
    if (first) c.attempt.enqueue_posted = c.w.now();
    Result<uint64_t> r = cpu ? co_await c.ccas(word, kSpinFree, kSpinHeld)
                             : co_await c.rcas(word, kSpinFree, kSpinHeld);
    if (first) c.attempt.enqueue_done = c.w.now();
    if (!r.ok()) co_return r.status;
    if (r.value == kSpinFree) co_return Status::kOk;
    LW_CHECK_MSG(r.value == kSpinHeld, "spinlock word holds " + std::to_string(r.value));
    if (!c.spin(&spins)) co_return Status::kRetryExhausted;
    co_await backoff.wait(c.w);
  }
}

Task<Status> spin_unlock(Ctx c, uint64_t i, SpinRelease how) {
  const RemoteAddr word = c.t.lock_addr(i) + offsetof(SpinLine, word);
  if (how == SpinRelease::kLocalCpuStore && c.own_node(word)) co_return co_await c.store(word, kSpinFree);
  if (how != SpinRelease::kCas) co_return co_await c.rwrite(word, kSpinFree, /*fence=*/true);
  Result<uint64_t> r = co_await c.rcas(word, kSpinHeld, kSpinFree, /*fence=*/true);
  if (!r.ok()) co_return r.status;
  LW_CHECK_MSG(r.value == kSpinHeld, "spinlock " + std::to_string(i) + " released while it held " +
                                         std::to_string(r.value));
  co_return Status::kOk;
}

}  // namespace lw::locks::detail
