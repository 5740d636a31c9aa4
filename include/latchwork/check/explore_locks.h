// Exhaustive exploration of a lock (sim/explore.h) at a small scope: the
// role the ALock authors' TLA+ model plays (ALock §1, [5]). Two nodes; the
// lock lives on node 0; `local_workers` threads of node 0 take it with CPU
// accesses (ALock's local cohort), `remote_workers` threads of node 1 with
// verbs. Each worker acquires it `acquisitions` times; inside the critical
// section it increments the ghost count of holders and (cs_counter) a
// counter next to the lock (CPU load + store when local, READ + WRITE when
// remote).
//
// Proved within the scope, for every interleaving and every choice of the
// semantics: mutual exclusion (never two holders; the counter equals the
// acquisitions at the end) and, with progress on, absence of deadlock and
// livelock (from every reachable state every worker can still finish).
#pragma once

#include <cstdint>
#include <string>

#include "latchwork/config/semantics.h"
#include "latchwork/locks/lock.h"
#include "latchwork/sim/explore.h"

namespace lw::check {

struct LockExploreOptions {
  locks::LockKind kind = locks::LockKind::kAlock;
  locks::AlockVariant variant = locks::AlockVariant::kCorrect;
  uint32_t local_workers = 2;
  uint32_t remote_workers = 2;
  uint32_t acquisitions = 2;
  // Small budgets make passing run out within the scope, so pReacquire is
  // explored too (with ALock's 5 / 20 two acquisitions per worker never
  // exhaust them).
  int32_t local_budget = 1;
  int32_t remote_budget = 1;
  Semantics semantics = Semantics::spec();
  bool check_progress = true;
  // Increment a counter in the critical section (two steps: CPU load and
  // store, or READ and WRITE) and check it at the end. Off: the critical
  // section is one step (a yield), which is all mutual exclusion needs and
  // keeps the state space several times smaller.
  bool cs_counter = false;
  uint64_t max_states = 20'000'000;

  static constexpr uint32_t kMaxWorkersPerCohort = 4;
  static constexpr uint32_t kMaxAcquisitions = 8;
  std::string validate() const;  // "" or a message naming the field
};

explore::Result explore_lock(const LockExploreOptions& o);

}  // namespace lw::check
