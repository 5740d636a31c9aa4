// Shared by the driver's source files (driver.cpp, ablation.cpp, minimise.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "latchwork/check/driver.h"

namespace lw {
class VerbTrace;
struct BlockedWorker;
}

namespace lw::check::detail {

// Optional recorders of one run (trace(), or a caller's own).
struct Hooks {
  VerbTrace* trace = nullptr;
  RelaxationLog* log = nullptr;
  // Called on the simulator before it runs (run_seed_observed).
  std::function<void(SimBackend&)> before_run;
  // Ablation: switches on here but off in the plan keep their draws and
  // delays (SimBackend::hold_timing), so the rest of the run's timing holds.
  const Semantics* hold_timing = nullptr;
};

// The cluster one seed runs on: the base with the shape and the plan applied.
// `c` laid out as `shape` says (compute nodes, threads, coroutines,
// memory-node threads) and seeded: what the driver and the explorer run.
ClusterConfig shaped_cluster(ClusterConfig c, const Shape& shape, uint64_t seed);
ClusterConfig seed_cluster(const Options& o, const SeedPlan& plan, const Shape& shape);
// One run: in a child process when o.isolate (and no recorder is asked
// for), else in this one.
SeedResult run_one(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                   const Shape& shape, const Hooks& hooks);
SeedResult run_in_process(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                          const Shape& shape, const Hooks& hooks);
// In a forked child: a crash (a signal, an exit) or a run past
// o.seed_wall_seconds becomes a finding of the seed instead of the end of
// the sweep (isolation.cpp).
SeedResult run_isolated(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                        const Shape& shape);
std::string replay_of(const Options& o, uint64_t seed, const Shape& shape);

// Bytes of remote memory a finding's history touched.
struct Span {
  RemoteAddr addr;
  uint64_t bytes = 0;
};
// The distinct spans of the requests `who` posted during [start, end].
std::vector<Span> spans_of(const VerbTrace& trace, const Placement& who, Nanos start, Nanos end);
// finding_causes.cpp: the relaxations of an operation's interval that
// touched the bytes its requests touched (anyone's); they fill
// Finding::causes and Finding::touched.
void add_interval_causes(const RelaxationLog& log, const VerbTrace* trace, const Placement& who, Nanos start,
                         Nanos end, Finding* f);
// A finding without an interval or words (a final check, a stuck latch):
// only the lost or repeated writes of the run, which can leave a word wrong.
void add_final_causes(const RelaxationLog& log, Finding* f);
// A hang's blocked workers, grouped by the word they wait on, each word
// with its last write; causes: relaxations that touched those words.
void describe_hang(const std::vector<BlockedWorker>& blocked, const VerbTrace* trace,
                   const RelaxationLog* log, Finding* f);
// An invariant's report without the simulator's run context and the
// tool's replay hint: the finding carries its seed, plan and replay.
std::string without_run_context(const std::string& report);
const Finding* first_failure(const SeedResult& r);

// crash_report.cpp: the victim of a planned crash in `shape`.
CrashSpec crash_spec_of(const PlannedCrash& c, const Shape& shape);
// A run whose crash happened: what it left (`held`: still_held's answer,
// `other`: after_crash's) into r->crashed, crash and crash_left.
void describe_crash(const CrashRecord& rec, const std::string& held, const std::string& other,
                    SeedResult* r);
// Hangs, deadlocks and stuck latches of a crashed seed become crash-liveness
// findings when the same seed without the crash has none.
void attribute_to_crash(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                        const Shape& shape, std::vector<Finding>* findings);

}  // namespace lw::check::detail
