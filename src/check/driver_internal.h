// Shared by the driver's source files (driver.cpp, ablation.cpp, minimise.cpp).
#pragma once

#include <functional>
#include <string>

#include "latchwork/check/driver.h"

namespace lw {
class VerbTrace;
}

namespace lw::check::detail {

// Optional recorders of one run (trace(), or a caller's own).
struct Hooks {
  VerbTrace* trace = nullptr;
  RelaxationLog* log = nullptr;
  // Called on the simulator before it runs (run_seed_observed).
  std::function<void(SimBackend&)> before_run;
};

// The cluster one seed runs on: the base with the shape and the plan applied.
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
const Finding* first_failure(const SeedResult& r);

}  // namespace lw::check::detail
