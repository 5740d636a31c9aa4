// The seed sweep: one seed's run with every failure inside it turned into a
// finding, and the loop over seeds.
#include <chrono>
#include <exception>
#include <set>
#include <sstream>

#include "driver_internal.h"
#include "latchwork/base/assert.h"
#include "latchwork/sim/blocked_worker.h"
#include "latchwork/sim/relaxation_log.h"
#include "latchwork/verbs/node_memory_reuse.h"
#include "latchwork/sim/sim_backend.h"
#include "latchwork/sim/verb_trace.h"

namespace lw::check {

std::string Options::validate() const {
  if (cluster.backend != "sim") return "the check driver runs on the simulator (backend \"sim\")";
  if (seeds == 0) return "seeds must be at least 1";
  if (first_seed > UINT64_MAX - (seeds - 1)) return "first_seed + seeds - 1 must be at most 2^64 - 1";
  if (shape.compute_nodes == 0 || shape.threads_per_node == 0 || shape.coroutines_per_thread == 0)
    return "the shape needs at least one compute node, thread and coroutine";
  if (shape.ops_per_worker == 0) return "ops_per_worker must be at least 1";
  if (max_read_spread_ns < 200 || max_write_line_gap_ns < 20 || max_atomic_window_ns < 100)
    return "the swarm's maximum windows must be at least 200 ns (read spread), 20 ns (write line "
           "gap) and 100 ns (atomic window)";
  const Nanos widest = ClusterConfig::kMaxWindowNs;
  if (max_read_spread_ns > widest || max_write_line_gap_ns > widest || max_atomic_window_ns > widest ||
      max_jitter_ns > widest)
    return "the swarm's maximum windows and jitter must be at most " + std::to_string(widest) + " ns";
  if (watchdog_ns == 0) return "watchdog_ns must be positive";
  if (seed_wall_seconds == 0 || seed_wall_seconds > 86'400)
    return "seed_wall_seconds must be in [1, 86400]";
  if (max_events_per_seed == 0 || max_events_per_seed > RunBudget::kMaxEvents)
    return "max_events_per_seed must be in [1, 2^48]";
  // Every seed's cluster has the shape and the base's fields; the plan only
  // changes windows within the bounds checked above.
  return detail::seed_cluster(*this, plan_for(*this, first_seed), shape).validate();
}

namespace detail {

ClusterConfig seed_cluster(const Options& o, const SeedPlan& plan, const Shape& shape) {
  ClusterConfig c = o.cluster;
  c.compute_nodes = shape.compute_nodes;
  c.threads_per_node = shape.threads_per_node;
  c.coroutines_per_thread = shape.coroutines_per_thread;
  c.memory_node_threads = shape.memory_node_threads;
  c.seed = plan.seed;
  c.semantics = plan.semantics;
  c.timing.jitter_ns = plan.jitter_ns;
  c.budget.max_events = o.max_events_per_seed;
  return c;
}

namespace {

// What the relaxation log saw on an operation: the requests of `who` during
// [start, end], and lost updates of anyone's atomics then.
void add_causes(const RelaxationLog& log, const Placement& who, Nanos start, Nanos end, Finding* f) {
  std::vector<RelaxationEvent> events = log.of(who, start, end);
  for (const RelaxationEvent& e : log.overlapping(start, end))
    if (e.relaxation == "atomic_loses_write" || e.relaxation == "atomic_loses_cpu" ||
        e.relaxation == "failed_cas_writes_back" || e.relaxation == "switch_duplicate")
      events.push_back(e);
  for (const RelaxationEvent& e : events) {
    if (f->causes.size() >= 4) break;
    f->causes.push_back(e.relaxation + ": " + e.what);
  }
}

// Findings without an interval (final checks): what the run's relaxations
// did overall.
void add_run_causes(const RelaxationLog& log, Finding* f) {
  std::set<std::string> names;
  for (const RelaxationEvent& e : log.events()) names.insert(e.relaxation);
  for (const std::string& n : names)
    f->causes.push_back(n + " acted " + std::to_string(log.count(n)) + " time(s) in this run");
}

}  // namespace

SeedResult run_one(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                   const Shape& shape, const Hooks& hooks) {
  if (o.isolate && hooks.trace == nullptr && hooks.log == nullptr && !hooks.before_run)
    return run_isolated(factory, o, plan, shape);
  return run_in_process(factory, o, plan, shape, hooks);
}

SeedResult run_in_process(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                          const Shape& shape, const Hooks& hooks) {
  SeedResult r;
  r.seed = plan.seed;
  r.plan = plan;
  r.shape = shape;
  const ClusterConfig c = seed_cluster(o, plan, shape);
  RelaxationLog own_log;
  RelaxationLog* log = hooks.log ? hooks.log : (o.keep_causes ? &own_log : nullptr);
  std::vector<Finding> findings;
  auto finding = [&](const char* k, std::string d) {
    Finding f;
    f.kind = k;
    f.detail = std::move(d);
    findings.push_back(std::move(f));
  };
  {
    // Everything a run can throw, invariants included, ends this seed only.
    ThrowOnInvariant throw_scope;
    // Declared first so that it outlives the simulator, which destroys the
    // workers' coroutine frames (they may point into the workload).
    std::unique_ptr<Workload> wl;
    SimBackend sim(c);
    if (log) sim.set_relaxation_log(log);
    if (hooks.trace) sim.set_verb_trace(hooks.trace);
    if (hooks.before_run) hooks.before_run(sim);
    SeedRun run(sim, o, plan, shape);
    try {
      wl = factory();
      LW_CHECK_MSG(wl != nullptr, "the workload factory returned null");
      wl->setup(run);
      if (run.findings().empty()) {
        sim.set_watchdog(run.last_progress_ptr(), o.watchdog_ns);
        sim.set_report_stalls(true);
        Workload* w = wl.get();
        sim.spawn_compute([w, &run](Worker& wk) { return w->run(run, wk); });
        for (uint32_t m = 0; m < c.memory_nodes; ++m)
          for (uint32_t t = 0; t < shape.memory_node_threads; ++t)
            sim.spawn({Placement::Kind::kMemory, m, t, 0}, [w, &run](Worker& wk) { return w->run(run, wk); });
        RunStats st = sim.run();
        r.trace_hash = st.trace_hash;
        r.virtual_ns = st.elapsed_ns;
        std::string stop = !st.stalled.empty() ? st.stalled : st.budget_exhausted;
        if (!stop.empty()) {
          const bool deadlock = st.stalled.rfind("deadlock", 0) == 0;
          finding(!st.stalled.empty() ? (deadlock ? kind::kDeadlock : kind::kHang) : kind::kBudget, stop);
          for (const BlockedWorker& b : sim.blocked()) findings.back().blocked.push_back(b.describe());
        } else {
          wl->check(run);
          std::vector<ModelViolation> v;
          for (const HistoryModel* m : run.models()) m->check(&v);
          for (ModelViolation& mv : v) {
            finding("", std::move(mv.detail));
            findings.back().kind = std::move(mv.kind);
            if (log) add_causes(*log, mv.who, mv.start, mv.end, &findings.back());
          }
          if (run.gave_up_count() > 0) {
            std::string held = wl->still_held(run);
            std::string what = std::to_string(run.gave_up_count()) + " operation(s) gave up; the first: " +
                               run.first_gave_up();
            if (!held.empty()) {
              finding(kind::kStuckLatch, what + "; after every worker ended, " + held);
            } else {
              finding(kind::kStarvation, what + "; every latch was free after the run, so they starved");
              findings.back().failure = false;
            }
          }
        }
      }
    } catch (const InvariantViolation& e) {
      finding(kind::kInvariant, e.what());
    } catch (const std::exception& e) {
      finding(kind::kException, e.what());
    }
    r.ops = run.ops();
    r.gave_up = run.gave_up_count();
    // Findings the workload raised itself (set-up, in-run, final checks) first.
    std::vector<Finding> own = std::move(run.findings());
    own.insert(own.end(), std::make_move_iterator(findings.begin()), std::make_move_iterator(findings.end()));
    findings = std::move(own);
  }
  for (Finding& f : findings) {
    f.seed = plan.seed;
    f.plan = plan;
    f.shape = shape;
    f.trace_hash = r.trace_hash;
    if (log && f.causes.empty() && f.failure) add_run_causes(*log, &f);
    f.replay = replay_of(o, plan.seed, shape);
  }
  r.findings = std::move(findings);
  return r;
}

std::string replay_of(const Options& o, uint64_t seed, const Shape& shape) {
  if (o.replay_line) return o.replay_line(seed, shape);
  std::ostringstream os;
  os << "lw::check::run_seed(factory, options, " << seed << ")";
  if (!(shape == o.shape))
    os << " with options.shape = {" << shape.compute_nodes << ", " << shape.threads_per_node << ", "
       << shape.coroutines_per_thread << ", " << shape.memory_node_threads << ", " << shape.ops_per_worker
       << "}";
  return os.str();
}

const Finding* first_failure(const SeedResult& r) {
  for (const Finding& f : r.findings)
    if (f.failure) return &f;
  return nullptr;
}

}  // namespace detail

SeedResult run_seed(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                    const Shape& shape) {
  return detail::run_one(factory, o, plan, shape, {});
}

SeedResult run_seed(const WorkloadFactory& factory, const Options& o, uint64_t seed) {
  return run_seed(factory, o, plan_for(o, seed), o.shape);
}

Report run(const WorkloadFactory& factory, const Options& o) {
  LW_CHECK_MSG(o.validate().empty(), o.validate());
  // Failures and reports are kept apart, so that starvation reports of early
  // seeds never crowd out a later failure.
  constexpr size_t kMaxFailuresKept = 64, kMaxReportsKept = 16;
  constexpr uint64_t kReusedNodeBytes = uint64_t{512} << 20;
  size_t failures_kept = 0, reports_kept = 0;
  Report rep;
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  uint32_t explained = 0;
  // Seeds run without the relaxation log: formatting its events was a
  // quarter of a sweep's time (TPC-C transactions), and most seeds pass. A
  // failing seed whose findings are kept runs again with the log for their
  // causes; the log changes no decision, so the rerun is the same run.
  Options quiet = o;
  quiet.keep_causes = false;
  // Every seed creates memory nodes of the same sizes again: hand the
  // released ones on (zeroed) instead of faulting fresh pages in per seed.
  NodeMemoryReuse reuse(kReusedNodeBytes);
  for (uint64_t i = 0; i < o.seeds; ++i) {
    const uint64_t seed = o.first_seed + i;
    SeedResult r = run_seed(factory, quiet, seed);
    if (o.keep_causes && r.failed() && failures_kept < kMaxFailuresKept) {
      SeedResult with_causes = run_seed(factory, o, seed);
      const bool same = with_causes.trace_hash == r.trace_hash &&
                        with_causes.findings.size() == r.findings.size();
      // In-process runs are deterministic; an isolated child may also be
      // killed by its wall-clock bound, so there the first run stands.
      LW_CHECK_MSG(same || o.isolate, "seed " + std::to_string(seed) +
                                          " ran differently with the relaxation log; replay: " +
                                          detail::replay_of(o, seed, o.shape));
      if (same) r = std::move(with_causes);
      ++rep.seeds_rerun_for_causes;
    }
    rep.trace_hash = i == 0 ? r.trace_hash : (rep.trace_hash ^ r.trace_hash) * 0x100000001b3ull + seed;
    ++rep.seeds_run;
    rep.ops += r.ops;
    const bool failed = r.failed();
    if (failed && rep.failing_seeds++ == 0) {
      rep.first_failing_seed = seed;
      rep.seconds_to_first_failure = seconds();
    }
    for (Finding& f : r.findings) {
      ++rep.findings_total;
      if (!f.failure) ++rep.reports_total;
      if (f.failure ? failures_kept >= kMaxFailuresKept : reports_kept >= kMaxReportsKept) continue;
      ++(f.failure ? failures_kept : reports_kept);
      // One explanation per failing seed (its first failure): ablation reruns
      // the seed a few dozen times.
      if (f.failure && o.explain && explained < o.explain_limit && &f == detail::first_failure(r)) {
        check::explain(factory, o, &f);
        ++explained;
      }
      rep.findings.push_back(std::move(f));
    }
    if (o.on_seed) o.on_seed(seed, i + 1, rep.failing_seeds);
    if (failed && o.stop_at_first) break;
  }
  if (o.minimise)
    for (Finding& f : rep.findings)
      if (f.failure) {
        f = minimise(factory, o, f);
        break;
      }
  rep.wall_seconds = seconds();
  return rep;
}

SeedResult run_seed_observed(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                             const Shape& shape, const std::function<void(SimBackend&)>& before_run) {
  detail::Hooks hooks;
  hooks.before_run = before_run;
  return detail::run_one(factory, o, plan, shape, hooks);
}

std::string trace(const WorkloadFactory& factory, const Options& o, const Finding& f, RemoteAddr lo,
                  uint64_t bytes) {
  VerbTrace verbs(1 << 16);
  RelaxationLog log;
  detail::Hooks hooks;
  hooks.trace = &verbs;
  hooks.log = &log;
  SeedResult r = detail::run_one(factory, o, f.plan, f.shape, hooks);
  std::ostringstream os;
  os << "seed " << f.seed << " (" << f.plan.describe() << "), " << f.shape.workers() << " workers x "
     << f.shape.ops_per_worker << " ops, trace hash " << r.trace_hash << "\n";
  os << verbs.format(lo, bytes);
  os << "relaxations applied:\n";
  size_t n = 0;
  for (const RelaxationEvent& e : log.events()) {
    if (bytes != 0 && !e.touches(lo, bytes)) continue;
    os << "  [" << e.at << ", " << e.until << "] " << describe(e.who) << " " << e.relaxation << ": "
       << e.what << "\n";
    ++n;
  }
  if (n == 0) os << "  (none)\n";
  for (const Finding& g : r.findings) os << g.summary() << "\n";
  return os.str();
}

}  // namespace lw::check
