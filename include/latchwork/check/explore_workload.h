// Exhaustive exploration of any check::Workload (driver.h) at a small shape:
// the explorer (sim/explore.h) runs the workload's workers over every
// interleaving of their steps and every choice the semantics contract
// allows, with state hashing, bounds and spin-loop reduction as for the
// locks (explore_locks.h). The workload is used as the driver uses it: a
// fresh one per execution (factory), setup, run on every worker, check and
// the history models at the end; run.fail() and LW_CHECK inside a run,
// exceptions, deadlocks and (check_progress) workers that can never finish
// are violations. now() is the explorer's logical clock, so histories keep
// each execution's real-time order.
//
// The verdict is one of:
//   proved:   every reachable state of every explored program seed was
//             visited and none violates: proved within this scope (shape,
//             ops_per_worker, semantics, program seeds);
//   violated: a violation, with the shortest trace to it (in steps);
//   bound:    a bound (max_states, max_depth) stopped the search first:
//             not proved, no violation found.
// A program seed fixes the workers' Worker::rng (as the driver's seed does):
// a workload's random choices (reader or writer, which key) are its own, so
// each seed is one program, explored exhaustively. Spin-loop reduction
// treats a loop that re-reads the same values as waiting (its try counter is
// not state): an operation that gives up after N tries is not explored.
// A state is memory, requests in flight, each worker's received results
// (clock values included) and the run's op_done / gave_up / failure counts;
// so what a worker keeps in the workload (history records, members) must be
// a function of what it received; where the order of two workers' writes to
// a member matters, they read now() there (as recording an operation does).
//
//   lw::check::WorkloadExploreOptions x;
//   x.shape = {1, 2, 1, 0, 1};           // 2 workers x 1 operation
//   lw::check::WorkloadExploreResult r = lw::check::explore_workload(factory, x);
//   std::puts(r.summary().c_str());      // "proved within scope: 1234 states ..."
#pragma once

#include <cstdint>
#include <string>

#include "latchwork/check/driver.h"
#include "latchwork/sim/explore.h"

namespace lw::check {

struct WorkloadExploreOptions {
  // Memory nodes, their size and the semantics (which relaxations are
  // choices) come from it; windows and timing are ignored.
  ClusterConfig cluster = Options::default_cluster();
  Shape shape{.compute_nodes = 1, .threads_per_node = 2, .coroutines_per_thread = 1,
              .memory_node_threads = 0, .ops_per_worker = 1};
  // Program seeds first_seed .. first_seed + seeds - 1, each explored in full.
  uint64_t first_seed = 1;
  uint64_t seeds = 1;
  bool check_progress = true;   // prove every worker can always still finish
  bool spin_reduction = true;
  bool shortest_trace = true;   // off: the first violation met (faster, not shortest)
  uint64_t max_states = 5'000'000;  // per seed
  uint32_t max_depth = 10'000;
  std::string validate() const;  // "" or a message
};

struct WorkloadExploreResult {
  enum class Verdict { kProved, kViolated, kBound };
  Verdict verdict = Verdict::kProved;
  uint64_t seeds_explored = 0;
  uint64_t states = 0;        // distinct states, summed over the seeds explored
  uint64_t transitions = 0;
  uint64_t terminal_states = 0;
  uint64_t seed = 0;          // the seed of the violation or bound
  explore::Result last;       // the explorer's result of that seed (else the last)
  double wall_seconds = 0;    // reported only
  bool proved() const { return verdict == Verdict::kProved; }
  bool violated() const { return verdict == Verdict::kViolated; }
  // "proved within scope: ...", "violated: ...", "not proved: bound reached: ...".
  std::string verdict_line() const;
  // The verdict line, then the violation's trace.
  std::string summary() const;
};

WorkloadExploreResult explore_workload(const WorkloadFactory& factory, const WorkloadExploreOptions& o);

}  // namespace lw::check
