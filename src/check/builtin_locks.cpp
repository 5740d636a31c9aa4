// The lock table (locks/lock.h) as a check workload: symmetric nodes, every
// memory-node thread a worker that locks and unlocks a few locks, a share of
// them on its own node (local) and the rest on other nodes (remote).
// Compute-node workers are remote-only clients of the spinlocks and idle
// under MCS and ALock (which need a worker's own memory to spin on).
//
// Checked per seed:
//   - mutual exclusion: every hold goes to the hold model (holds never
//     overlap);
//   - no lost increment: inside each hold the worker increments the lock's
//     counter (CPU load + store when the counter is on its node, READ +
//     WRITE otherwise); the counter model checks the increments and the
//     final value, and check() demands final == acquisitions exactly;
//   - bounded bypass: per lock, X is overtaken by Y when Y's enqueue was
//     certainly after X's (Y posted its enqueue step after X's completed:
//     queue locks the tail CAS that enqueued, spinlocks the first CAS
//     attempt) and Y acquired first. MCS is FIFO: bound 0. ALock: a waiter X
//     in cohort C (N_C workers may use the lock in C, budget B_C; the other
//     cohort O has budget B_O) is overtaken only by O, at most
//         (ceil(N_C / B_C) + 1) * B_O
//     times: MCS is FIFO within C; C needs at most ceil(N_C / B_C) tenures
//     of B_C holds to reach X, each preceded by at most one O tenure of at
//     most B_O holds (a new O leader or a budget-exhausted O holder writes
//     victim := O and so lets C's waiting leader in), plus one O tenure won
//     when X, a fresh leader, writes victim := C just after O's
//     budget-exhausted holder wrote victim := O. Spinlocks bound nothing:
//     a waiter overtaken more than the ALock bound would allow is reported
//     (a report, never a failure).
//   - nothing left taken: still_held() names a lock whose word or tail is set.
//
// Budgets are small here (local 2, remote 3) so that every seed exercises
// pReacquire; ops give up after BuiltinOptions::max_attempts wait-loop
// iterations (latchwork check: 200,000).
#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "builtin_internal.h"
#include "latchwork/check/history.h"
#include "latchwork/locks/lock.h"
#include "latchwork/sim/sim_backend.h"

namespace lw::check {
namespace {

constexpr int32_t kCheckLocalBudget = 2;
constexpr int32_t kCheckRemoteBudget = 3;

locks::LockTableConfig table_config(const BuiltinOptions& b, const ClusterConfig& c) {
  locks::LockTableConfig t;
  t.locks = b.keys;
  t.local_budget = kCheckLocalBudget;
  t.remote_budget = kCheckRemoteBudget;
  t.max_spins = b.max_attempts;
  t.threads_per_node = std::max<uint32_t>(1, c.memory_node_threads);
  t.coroutines_per_thread = 1;  // the driver runs one coroutine per memory-node thread
  if (b.scheme == "spin") t.kind = locks::LockKind::kSpin;
  else if (b.scheme == "spin-local-cpu") t.kind = locks::LockKind::kSpinLocalCpu;
  else if (b.scheme == "spin-write-unlock") t.kind = locks::LockKind::kSpinWriteUnlock;
  else if (b.scheme == "mcs") t.kind = locks::LockKind::kMcs;
  else t.kind = locks::LockKind::kAlock;
  if (b.scheme == "alock-victim-after-check") t.variant = locks::AlockVariant::kVictimAfterCheck;
  if (b.scheme == "alock-no-victim") t.variant = locks::AlockVariant::kNoVictim;
  return t;
}

bool is_spin(locks::LockKind k) {
  return k == locks::LockKind::kSpin || k == locks::LockKind::kSpinLocalCpu || k == locks::LockKind::kSpinWriteUnlock;
}

struct Wait {
  Nanos posted, done, acquired;
  Placement who;
  bool local;
};

class LocksWorkload final : public Workload {
 public:
  explicit LocksWorkload(BuiltinOptions b) : b_(std::move(b)) {}

  void setup(SeedRun& run) override {
    cfg_ = table_config(b_, run.config());
    auto t = locks::LockTable::create(run.backend(), cfg_);
    if (!t.ok()) {
      run.fail("setup", std::string("creating the lock table failed: ") + std::string(to_string(t.status)));
      return;
    }
    table_ = t.value;
    for (uint64_t k = 0; k < b_.keys; ++k) {
      RemoteAddr a = run.backend().allocate(table_->home(k), kCacheLine, kCacheLine);
      if (a.is_null()) {
        run.fail("setup", "no room for the counters");
        return;
      }
      counter_.push_back(a);
    }
    waits_.assign(b_.keys, {});
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    if (!table_) co_return;
    const Placement who = w.placement();
    if (!who.on_memory_node() && !is_spin(cfg_.kind)) co_return;  // MCS / ALock: no memory to spin on
    locks::LockClient client(*table_, w);
    const uint32_t nodes = table_->nodes();
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const uint64_t k = pick(w, nodes);
      const bool local = client.is_local(k);
      Status s = co_await client.lock(k);
      if (s == Status::kRetryExhausted) {
        run.gave_up(w, "lock " + std::to_string(k) + " by " + describe(who) + " after " +
                           std::to_string(cfg_.max_spins) + " spins");
        if (is_spin(cfg_.kind)) continue;
        co_return;  // a queue lock's descriptor may still be queued: this worker stops
      }
      if (!ok(s)) {
        run.fail("error-status", "lock " + std::to_string(k) + " by " + describe(who) + " returned " +
                                     std::string(to_string(s)));
        co_return;
      }
      const Nanos acquired = w.now();
      const locks::LockAttempt at = client.last_attempt();
      // Critical section: increment the lock's counter.
      const RemoteAddr ctr = counter_[k];
      Status cs = Status::kOk;
      if (who.on_memory_node() && ctr.node() == who.node) {
        Result<uint64_t> v = co_await w.cpu_load(ctr);
        cs = v.ok() ? (co_await w.cpu_store(ctr, v.value + 1)).status : v.status;
      } else {
        uint64_t v = 0;
        cs = co_await w.read(&v, ctr, 8);
        if (ok(cs)) {
          ++v;
          cs = co_await w.write(ctr, &v, 8);
        }
      }
      const Nanos released = w.now();
      Status u = co_await client.unlock(k);
      run.holds().exclusive(k, acquired, released, who);
      run.counters().add(k, 1, acquired, released, who, ok(cs));
      {
        std::lock_guard<std::mutex> g(mu_);
        waits_[k].push_back({at.enqueue_posted, at.enqueue_done, acquired, who, local});
        if (ok(cs)) ++acquisitions_[k];
      }
      if (!ok(cs) || !ok(u)) {
        run.fail("error-status", std::string(!ok(cs) ? "the increment" : "unlock") + " of lock " +
                                     std::to_string(k) + " by " + describe(who) + " returned " +
                                     std::string(to_string(!ok(cs) ? cs : u)));
        co_return;
      }
      run.op_done(w);
    }
  }

  void check(SeedRun& run) override {
    if (!table_) return;
    for (uint64_t k = 0; k < b_.keys; ++k) {
      const uint64_t v = run.backend().host_load(counter_[k]);
      run.counters().final_value(k, v);
      const uint64_t n = acquisitions_.count(k) ? acquisitions_[k] : 0;
      if (v != n)
        run.fail("lost-increment", "lock " + std::to_string(k) + ": counter " + std::to_string(v) + " after " +
                                       std::to_string(n) + " acquisitions");
      check_bypass(run, k);
    }
  }

  std::string still_held(SeedRun& run) override {
    if (!table_) return {};
    for (uint64_t k = 0; k < b_.keys; ++k) {
      const RemoteAddr line = table_->lock_addr(k);
      // Word 0: spin word / MCS tail / tail_r; word 1: ALock tail_l (victim
      // at word 2 legitimately stays set).
      const uint64_t w0 = run.backend().host_load(line);
      const uint64_t w1 = cfg_.kind == locks::LockKind::kAlock ? run.backend().host_load(line + 8) : 0;
      if (w0 != 0 || w1 != 0) {
        std::ostringstream s;
        s << "lock " << k << " (" << locks::to_string(cfg_.kind) << ") is still taken: word0 0x" << std::hex << w0;
        if (cfg_.kind == locks::LockKind::kAlock) s << ", tail_l 0x" << w1;
        return s.str();
      }
    }
    return {};
  }

 private:
  // A lock on the worker's own node with probability local_percent, else one
  // on another node (compute workers: any lock).
  uint64_t pick(Worker& w, uint32_t nodes) {
    const Placement& p = w.placement();
    const uint64_t n = b_.keys;
    if (!p.on_memory_node() || nodes == 1) return w.rng().below(n);
    const bool want_local = w.rng().below(100) < b_.local_percent;
    uint64_t mine = 0, others = 0;
    for (uint64_t k = 0; k < n; ++k) (table_->home(k) == p.node ? mine : others)++;
    if (want_local ? mine == 0 : others == 0) return w.rng().below(n);
    uint64_t j = w.rng().below(want_local ? mine : others);
    for (uint64_t k = 0; k < n; ++k)
      if ((table_->home(k) == p.node) == want_local && j-- == 0) return k;
    return 0;
  }

  // Workers that may use lock k in the local / remote cohort.
  uint64_t cohort_size(SeedRun& run, bool local) const {
    const uint64_t t = run.config().memory_node_threads;
    return local ? t : (uint64_t{table_->nodes()} - 1) * t;
  }

  uint64_t bound(SeedRun& run, bool local) const {
    if (cfg_.kind == locks::LockKind::kMcs) return 0;
    const uint64_t n = cohort_size(run, local);
    const uint64_t own = static_cast<uint64_t>(local ? cfg_.local_budget : cfg_.remote_budget);
    const uint64_t other = static_cast<uint64_t>(local ? cfg_.remote_budget : cfg_.local_budget);
    return ((n + own - 1) / own + 1) * other;
  }

  void check_bypass(SeedRun& run, uint64_t k) {
    const std::vector<Wait>& v = waits_[k];
    uint64_t worst = 0;
    const Wait* worst_x = nullptr;
    for (const Wait& x : v) {
      uint64_t overtaken = 0;
      for (const Wait& y : v)
        if (y.posted > x.done && y.acquired < x.acquired) ++overtaken;
      const uint64_t limit = bound(run, x.local);
      if (!is_spin(cfg_.kind) && overtaken > limit) {
        run.fail("unbounded-bypass",
                 "lock " + std::to_string(k) + ": " + describe(x.who) + " (" + (x.local ? "local" : "remote") +
                     ") enqueued by " + std::to_string(x.done) + " ns was overtaken " + std::to_string(overtaken) +
                     " times before acquiring at " + std::to_string(x.acquired) + " ns; the bound is " +
                     std::to_string(limit));
        return;
      }
      if (overtaken > worst) worst = overtaken, worst_x = &x;
    }
    // Spinlocks promise no bound: past the ALock's bound it is a report.
    if (is_spin(cfg_.kind) && worst_x && worst > bound(run, worst_x->local) && !reported_) {
      reported_ = true;
      run.fail("bypass", "lock " + std::to_string(k) + ": " + describe(worst_x->who) + " was overtaken " +
                             std::to_string(worst) + " times (spinlocks bound nothing; a report)");
      run.findings().back().failure = false;
    }
  }

  BuiltinOptions b_;
  locks::LockTableConfig cfg_;
  std::shared_ptr<locks::LockTable> table_;
  std::vector<RemoteAddr> counter_;
  std::mutex mu_;
  std::vector<std::vector<Wait>> waits_;
  std::map<uint64_t, uint64_t> acquisitions_;
  bool reported_ = false;
};

}  // namespace

void lock_scheme_prepare_semantics(const std::string& scheme, Semantics* s) {
  if (scheme == "spin-write-unlock" && s->atomic_loses_write) s->failed_cas_writes_back = true;
}

namespace builtin_detail {

void locks_prepare_cluster(ClusterConfig* c) { c->memory_nodes = std::max<uint32_t>(2, c->memory_nodes); }

std::string locks_validate(const ClusterConfig& c, const BuiltinOptions& b) {
  if (c.memory_nodes < 2) return "the locks structure needs 2 memory nodes at least";
  if (c.memory_node_threads < 2) return "the locks structure needs 2 memory-node threads at least (--memory-node-threads)";
  if (b.keys < c.memory_nodes) return "the locks structure needs a lock per memory node at least (--keys)";
  SimBackend sim(c);
  auto t = locks::LockTable::create(sim, table_config(b, c));
  if (!t.ok()) return "the lock table does not fit the check's memory nodes";
  return {};
}

WorkloadFactory locks_workload(const BuiltinOptions& b) {
  return [b] { return std::make_unique<LocksWorkload>(b); };
}

}  // namespace builtin_detail
}  // namespace lw::check
