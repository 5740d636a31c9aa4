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
// Release. The holder releases with an RDMA WRITE of 0 (a CPU store for a
// kSpinLocalCpu local holder), not a CAS 1 -> 0. A WRITE is lost only if it
// lands inside another NIC atomic's read/write-back window *and that atomic
// writes back* (atomic_loses_write). While the lock is held every other
// atomic on the word is a CAS expecting 0 that reads 1 and fails, and a
// failed CAS writes nothing back; nothing ever FAAs the word. So no atomic
// can overwrite the release, and the WRITE saves the atomic unit a
// round of serialisation. (Were there an FAA on the word, or a NIC whose
// failed CAS wrote the old value back, the WRITE could be lost and the lock
// stay taken forever: then CAS 1 -> 0 would be the only correct release.)
// The WRITE carries the fence flag so that it cannot overtake a READ of the
// critical section still in flight on the same queue pair.
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

Task<Status> spin_unlock(Ctx c, uint64_t i, bool local_cpu) {
  const RemoteAddr word = c.t.lock_addr(i) + offsetof(SpinLine, word);
  if (local_cpu && c.own_node(word)) co_return co_await c.store(word, kSpinFree);
  co_return co_await c.rwrite(word, kSpinFree, /*fence=*/true);
}

}  // namespace lw::locks::detail
