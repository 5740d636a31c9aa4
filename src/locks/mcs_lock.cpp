// RDMA MCS (the paper's competitor, §6): one tail word per lock, CAS'd by
// RDMA by every worker (loopback for workers on the lock's node), so all
// atomics on it go through one NIC. Each worker's descriptor {budget, next}
// (lock_impl.h; budget -1 waiting, 0 passed) lives in its own node's memory.
//
// Local spinning: a waiter polls only its own descriptor, with CPU loads of
// its own node's memory — no verbs, no network traffic while it waits. The
// predecessor hands over with one RDMA WRITE into that descriptor, and a
// successor links itself with one RDMA WRITE of its address into the
// predecessor's next. Descriptor words are never an atomic's target, so
// those WRITEs and the owner's CPU stores cannot be lost (Table 1: an 8-byte
// WRITE and a CPU store or load are atomic with each other).
//
// Compute-node workers have no memory of their own to spin on: kUnsupported.
// Each worker holds at most one lock (LockClient), so one descriptor serves
// all its acquisitions: after unlock() nobody writes it any more (the
// predecessor's pass and the successor's link both came before).
#include "lock_impl.h"

namespace lw::locks::detail {
namespace {

RemoteAddr tail_of(const Ctx& c, uint64_t i) { return c.t.lock_addr(i) + offsetof(McsLine, tail); }

}  // namespace

Task<Status> mcs_lock(Ctx c, uint64_t i) {
  const RemoteAddr d = c.t.descriptors(c.w.placement());
  if (d.is_null()) co_return Status::kUnsupported;
  const RemoteAddr me = d + kLocalDesc;
  const RemoteAddr tail = tail_of(c, i);
  // Fresh descriptor: waiting, no successor (own memory: CPU stores).
  if (Status s = co_await c.store(me + kBudget, static_cast<uint64_t>(kWaiting)); !ok(s)) co_return s;
  if (Status s = co_await c.store(me + kNext, 0); !ok(s)) co_return s;
  // Enqueue: RDMA has no swap, so CAS the tail from its last seen value.
  uint64_t prev = 0;
  uint64_t spins = 0;
  for (;;) {
    c.attempt.enqueue_posted = c.w.now();
    Result<uint64_t> r = co_await c.rcas(tail, prev, me.raw());
    c.attempt.enqueue_done = c.w.now();
    if (!r.ok()) co_return r.status;
    if (r.value == prev) break;
    prev = r.value;
    if (!c.spin(&spins)) co_return Status::kRetryExhausted;
  }
  if (prev == 0) co_return Status::kOk;  // the queue was empty: held
  LW_CHECK_MSG(prev != me.raw(), "MCS: own descriptor already queued");
  if (Status s = co_await c.rwrite(RemoteAddr::from_raw(prev) + kNext, me.raw()); !ok(s)) co_return s;
  // Spin locally until the predecessor passes the lock.
  Result<uint64_t> b = co_await c.wait_while(me + kBudget, static_cast<uint64_t>(kWaiting), &spins);
  if (!b.ok()) co_return b.status;
  c.attempt.passed = true;
  co_return Status::kOk;
}

Task<Status> mcs_unlock(Ctx c, uint64_t i) {
  const RemoteAddr me = c.t.descriptors(c.w.placement()) + kLocalDesc;
  LW_CHECK(!me.is_null());
  // Release fence: the tail CAS and the pass must not overtake a READ of the
  // critical section still in flight on this queue pair.
  Result<uint64_t> r = co_await c.rcas(tail_of(c, i), me.raw(), 0, /*fence=*/true);
  if (!r.ok()) co_return r.status;
  if (r.value == me.raw()) co_return Status::kOk;  // no successor
  LW_CHECK_MSG(r.value != 0, "MCS unlock: the tail was empty while held");
  // A successor swapped itself in: wait (locally) for its link, then pass.
  uint64_t spins = 0;
  Result<uint64_t> next = co_await c.wait_while(me + kNext, 0, &spins);
  if (!next.ok()) co_return next.status;
  co_return co_await c.rwrite(RemoteAddr::from_raw(next.value) + kBudget, 0, /*fence=*/true);
}

}  // namespace lw::locks::detail
