// ALock (Baran et al. SPAA'24 §5, Algorithms 1-3): two budgeted MCS queues,
// one per cohort, joined by the modified Peterson lock (alock_peterson.cpp).
//
// A worker on the lock's node (a memory-node worker there) is in the local
// cohort and touches the lock only with CPU loads, stores and CASes of
// tail_l, victim and tail_r (read) — no verbs at all. Every other
// memory-node worker is in the remote cohort: rCAS of tail_r, rWrite of
// victim, rRead of the line. Descriptors (lock_impl.h) are in the worker's
// own node: the LocalDescriptor for local locks, the RemoteDescriptor for
// remote ones; a waiter spins on its own budget with CPU loads (local
// spinning), and is linked and passed by WRITEs into it (a CPU store when
// the writer is on the same node).
//
//   Lock:   passed = qLock(); if !passed: pLock()        (Alg. 2)
//   qLock:  budget := -1, next := null; CAS self onto the cohort's tail
//           (retrying with the tail last seen: the verbs have no swap);
//           empty queue: budget := kInit, return false; else link into
//           prev.next, spin while budget == -1; budget 0: pReacquire(),
//           budget := kInit; return true                  (Alg. 3)
//   Unlock: qUnlock: CAS tail self -> null; if it failed, wait for next,
//           pass budget - 1 into next.budget
//
// Budgets (§6.1): local 5, remote 20 by default (LockTableConfig). A cohort
// holds the lock for at most its budget of consecutive acquisitions while
// the other cohort waits; then the holder passed budget 0 sets victim to
// its own cohort and the other leader goes first (pReacquire).
//
// Release ordering: the remote cohort's tail CAS and pass WRITE carry the
// fence flag, so that they cannot overtake a READ of the critical section
// still in flight on the queue pair (the paper's fence before unlocking).
#include "lock_impl.h"

namespace lw::locks::detail {
namespace {

struct Cohort {
  bool local = false;
  uint64_t id = kRemote;
  RemoteAddr line, tail, me;
  int64_t init_budget = 0;
};

Cohort cohort_of(const Ctx& c, uint64_t i) {
  Cohort k;
  k.line = c.t.lock_addr(i);
  k.local = c.own_node(k.line);
  k.id = k.local ? kLocal : kRemote;
  k.tail = k.line + (k.local ? kTailL : kTailR);
  const RemoteAddr d = c.t.descriptors(c.w.placement());
  k.me = d.is_null() ? RemoteAddr{} : d + (k.local ? kLocalDesc : kRemoteDesc);
  k.init_budget = k.local ? c.cfg().local_budget : c.cfg().remote_budget;
  return k;
}

Task<Result<uint64_t>> tail_cas(Ctx c, const Cohort& k, uint64_t expected, uint64_t desired, bool fence) {
  if (k.local) co_return co_await c.ccas(k.tail, expected, desired);
  co_return co_await c.rcas(k.tail, expected, desired, fence);
}

}  // namespace

Task<Status> alock_lock(Ctx c, uint64_t i) {
  const Cohort k = cohort_of(c, i);
  if (k.me.is_null()) co_return Status::kUnsupported;  // compute-node worker: nowhere to spin
  // qLock (Alg. 3 lines 2-3): a fresh descriptor, then onto the tail.
  if (Status s = co_await c.store(k.me + kBudget, static_cast<uint64_t>(kWaiting)); !ok(s)) co_return s;
  if (Status s = co_await c.store(k.me + kNext, 0); !ok(s)) co_return s;
  uint64_t prev = 0;
  uint64_t spins = 0;
  for (;;) {
    c.attempt.enqueue_posted = c.w.now();
    Result<uint64_t> r = co_await tail_cas(c, k, prev, k.me.raw(), false);
    c.attempt.enqueue_done = c.w.now();
    if (!r.ok()) co_return r.status;
    if (r.value == prev) break;
    prev = r.value;
    if (!c.spin(&spins)) co_return Status::kRetryExhausted;
  }
  if (prev == 0) {
    // Lines 4-6: not passed; then Alg. 2 competes in Peterson's lock.
    if (Status s = co_await c.store(k.me + kBudget, static_cast<uint64_t>(k.init_budget)); !ok(s)) co_return s;
    co_return co_await alock_peterson(c, k.line, k.id);
  }
  LW_CHECK_MSG(prev != k.me.raw(), "ALock: own descriptor already queued");
  // Line 8: link behind the predecessor (same cohort: local ones are on this
  // node, remote ones may be on any node).
  if (Status s = co_await c.store_desc(RemoteAddr::from_raw(prev) + kNext, k.me.raw()); !ok(s)) co_return s;
  // Line 9: spin locally on the own budget.
  Result<uint64_t> b = co_await c.wait_while(k.me + kBudget, static_cast<uint64_t>(kWaiting), &spins);
  if (!b.ok()) co_return b.status;
  const int64_t budget = static_cast<int64_t>(b.value);
  LW_CHECK_MSG(budget >= 0 && budget < k.init_budget, "ALock: passed budget " + std::to_string(budget));
  c.attempt.passed = true;
  if (budget == 0) {
    // Lines 10-12: the cohort used its budget: let the other cohort in first.
    c.attempt.reacquired = true;
    if (Status s = co_await alock_peterson(c, k.line, k.id); !ok(s)) co_return s;
    if (Status s = co_await c.store(k.me + kBudget, static_cast<uint64_t>(k.init_budget)); !ok(s)) co_return s;
  }
  co_return Status::kOk;
}

Task<Status> alock_unlock(Ctx c, uint64_t i) {
  const Cohort k = cohort_of(c, i);
  LW_CHECK(!k.me.is_null());
  // Lines 15-16: leave the queue (and so Peterson's lock) if no successor.
  Result<uint64_t> r = co_await tail_cas(c, k, k.me.raw(), 0, /*fence=*/true);
  if (!r.ok()) co_return r.status;
  if (r.value == k.me.raw()) co_return Status::kOk;
  LW_CHECK_MSG(r.value != 0, "ALock unlock: the cohort's tail was empty while held");
  // Line 17: wait (locally) for the successor's link.
  uint64_t spins = 0;
  Result<uint64_t> n = co_await c.wait_while(k.me + kNext, 0, &spins);
  if (!n.ok()) co_return n.status;
  const uint64_t next = n.value;
  // Line 18: pass with one acquisition less.
  Result<uint64_t> mine = co_await c.load(k.me + kBudget);
  if (!mine.ok()) co_return mine.status;
  const int64_t budget = static_cast<int64_t>(mine.value);
  LW_CHECK_MSG(budget >= 1 && budget <= k.init_budget, "ALock: holder's budget " + std::to_string(budget));
  const RemoteAddr to = RemoteAddr::from_raw(next) + kBudget;
  if (c.own_node(to)) co_return co_await c.store(to, static_cast<uint64_t>(budget - 1));
  co_return co_await c.rwrite(to, static_cast<uint64_t>(budget - 1), /*fence=*/true);
}

}  // namespace lw::locks::detail
