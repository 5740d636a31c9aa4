// A check::Workload under exhaustive exploration (explore_workload.h): the
// driver's per-run protocol (fresh workload, setup, run, check, models)
// mapped onto the explorer's Spec, one exploration per program seed.
#include "latchwork/check/explore_workload.h"

#include <chrono>
#include <memory>
#include <sstream>
#include <utility>

#include "driver_internal.h"

namespace lw::check {

std::string WorkloadExploreOptions::validate() const {
  Options d;
  d.cluster = cluster;
  d.shape = shape;
  d.seeds = 1;
  if (std::string e = d.validate(); !e.empty()) return e;
  if (seeds == 0 || seeds > 1'000'000) return "seeds must be in [1, 1000000]";
  if (first_seed > UINT64_MAX - (seeds - 1)) return "first_seed + seeds - 1 must be at most 2^64 - 1";
  if (shape.workers(cluster.memory_nodes) > 16) return "exhaustive exploration takes at most 16 workers";
  if (max_states == 0 || max_depth == 0) return "max_states and max_depth must be at least 1";
  return {};
}

namespace {

// One execution's workload and its SeedRun, replaced by every set-up.
struct ExploredRun {
  Options options;
  SeedPlan plan;
  std::unique_ptr<SeedRun> run;
  std::unique_ptr<Workload> wl;  // after run: destroyed first
};

// The first failure of a finished execution, as the driver would find it.
std::string first_failure_of(ExploredRun& w) {
  SeedRun& run = *w.run;
  w.wl->check(run);
  std::vector<ModelViolation> v;
  for (const HistoryModel* m : run.models()) m->check(&v);
  if (!run.findings().empty()) return run.findings().front().kind + ": " + run.findings().front().detail;
  if (!v.empty()) return v.front().kind + ": " + v.front().detail;
  if (run.gave_up_count() > 0) {
    const std::string held = w.wl->still_held(run);
    if (!held.empty())
      return std::string(kind::kStuckLatch) + ": " + std::to_string(run.gave_up_count()) +
             " operation(s) gave up; after every worker ended, " + held;
    // Starvation is a report in the driver, not a failure: not a violation.
  }
  return {};
}

explore::Spec spec_for(const WorkloadFactory& factory, const WorkloadExploreOptions& o, uint64_t seed,
                       const std::shared_ptr<ExploredRun>& world) {
  explore::Spec s;
  s.name = "workload";
  s.nodes = o.cluster.memory_nodes;
  s.node_bytes = o.cluster.memory_node_bytes;
  s.device_bytes = o.cluster.device_memory_bytes;
  s.semantics = o.cluster.semantics;
  s.seed = seed;
  s.logical_clock = true;
  s.shortest_trace = o.shortest_trace;
  s.check_progress = o.check_progress;
  s.spin_reduction = o.spin_reduction;
  s.max_states = o.max_states;
  s.max_depth = o.max_depth;
  s.config = detail::shaped_cluster(o.cluster, o.shape, seed);
  // Workers in SeedRun::worker_index order: compute, then memory-node threads.
  const Shape& sh = o.shape;
  for (uint32_t n = 0; n < sh.compute_nodes; ++n)
    for (uint32_t t = 0; t < sh.threads_per_node; ++t)
      for (uint32_t k = 0; k < sh.coroutines_per_thread; ++k)
        s.workers.push_back({Placement::Kind::kCompute, n, t, k});
  for (uint32_t m = 0; m < o.cluster.memory_nodes; ++m)
    for (uint32_t t = 0; t < sh.memory_node_threads; ++t) s.workers.push_back({Placement::Kind::kMemory, m, t, 0});
  world->options.cluster = *s.config;
  world->options.shape = sh;
  world->plan.seed = seed;
  world->plan.semantics = o.cluster.semantics;
  s.setup = [world, factory](Backend& b) {
    ExploredRun& w = *world;
    // The previous execution's coroutines are gone (the explorer destroys
    // them first); its workload goes before the SeedRun it may point into.
    w.wl.reset();
    w.run = std::make_unique<SeedRun>(b, w.options, w.plan, w.options.shape);
    w.wl = factory();
    LW_CHECK_MSG(w.wl != nullptr, "the workload factory returned null");
    w.wl->setup(*w.run);
  };
  s.program = [world](Worker& wk, uint32_t) { return world->wl->run(*world->run, wk); };
  s.invariant = [world]() -> std::string {
    const std::vector<Finding>& f = world->run->findings();
    return f.empty() ? "" : f.front().kind + ": " + f.front().detail;
  };
  // What the workers did outside remote memory and their chains: progress
  // counts (order-free sums) and failures.
  s.ghost_hash = [world] {
    const SeedRun& r = *world->run;
    return r.ops() * 0x9e3779b97f4a7c15ull ^ r.gave_up_count() << 40 ^ world->run->findings().size() << 56;
  };
  s.final_check = [world](Backend&) { return first_failure_of(*world); };
  return s;
}

}  // namespace

WorkloadExploreResult explore_workload(const WorkloadFactory& factory, const WorkloadExploreOptions& o) {
  LW_CHECK_MSG(o.validate().empty(), "WorkloadExploreOptions: " + o.validate());
  const auto start = std::chrono::steady_clock::now();  // reported only
  WorkloadExploreResult out;
  // Bounded by o.seeds; stops at the first violation or bound.
  for (uint64_t i = 0; i < o.seeds; ++i) {
    const uint64_t seed = o.first_seed + i;
    auto world = std::make_shared<ExploredRun>();
    explore::Result r;
    {
      const explore::Spec s = spec_for(factory, o, seed, world);
      r = explore::run(s);
      // The explorer (and the coroutines) are gone: the workload may go.
      world->wl.reset();
      world->run.reset();
    }
    ++out.seeds_explored;
    out.states += r.states;
    out.transitions += r.transitions;
    out.terminal_states += r.terminal_states;
    out.seed = seed;
    const bool stop = !r.violation.empty() || !r.bound.empty();
    if (!r.violation.empty()) out.verdict = WorkloadExploreResult::Verdict::kViolated;
    else if (!r.bound.empty()) out.verdict = WorkloadExploreResult::Verdict::kBound;
    out.last = std::move(r);
    if (stop) break;
  }
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::string WorkloadExploreResult::verdict_line() const {
  std::ostringstream os;
  const std::string seeds = std::to_string(seeds_explored) + " program seed(s)";
  switch (verdict) {
    case Verdict::kProved:
      os << "proved within scope: " << states << " states, " << transitions << " transitions, "
         << terminal_states << " final states over " << seeds;
      break;
    case Verdict::kViolated:
      os << "violated (seed " << seed << ", " << last.trace.size() << "-line trace, "
         << states << " states explored): " << last.violation;
      break;
    case Verdict::kBound:
      os << "not proved: bound reached (" << last.bound << ") at seed " << seed << " after " << states
         << " states";
      break;
  }
  return os.str();
}

std::string WorkloadExploreResult::summary() const {
  std::string s = verdict_line() + "\n";
  for (const std::string& line : last.trace) s += "  " + line + "\n";
  return s;
}

}  // namespace lw::check
