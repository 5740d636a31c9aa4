// The seed sweep: one seed's run with every failure inside it turned into a
// finding, and the loop over seeds.
#include <chrono>
#include <exception>
#include <memory>
#include <sstream>

#include "driver_internal.h"
#include "latchwork/base/assert.h"
#include "latchwork/sim/blocked_worker.h"
#include "latchwork/sim/relaxation_log.h"
#include "verbs/node_memory_reuse.h"
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
  if (max_findings_per_seed == 0) return "max_findings_per_seed must be at least 1";
  if (race_jitter_ns > widest) return "race_jitter_ns must be at most " + std::to_string(widest) + " ns";
  if (race_seeds > 4096) return "race_seeds must be at most 4096";
  if (seed_wall_seconds == 0 || seed_wall_seconds > 86'400)
    return "seed_wall_seconds must be in [1, 86400]";
  if (max_events_per_seed == 0 || max_events_per_seed > RunBudget::kMaxEvents)
    return "max_events_per_seed must be in [1, 2^48]";
  if (crashes.percent > 100 || crashes.node_percent > 100)
    return "crashes.percent and crashes.node_percent must be at most 100";
  if (crashes.max_submission == 0 || crashes.max_submission > (1u << 24))
    return "crashes.max_submission must be in [1, 2^24]";
  // Every seed's cluster has the shape and the base's fields; the plan only
  // changes windows within the bounds checked above.
  return detail::seed_cluster(*this, plan_for(*this, first_seed), shape).validate();
}

namespace detail {
namespace {
// Requests a failing seed's rerun records (a hang's polls fill most).
constexpr size_t kCauseTraceEntries = size_t{1} << 18;
}  // namespace

ClusterConfig shaped_cluster(ClusterConfig c, const Shape& shape, uint64_t seed) {
  c.compute_nodes = shape.compute_nodes;
  c.threads_per_node = shape.threads_per_node;
  c.coroutines_per_thread = shape.coroutines_per_thread;
  c.memory_node_threads = shape.memory_node_threads;
  c.seed = seed;
  return c;
}

ClusterConfig seed_cluster(const Options& o, const SeedPlan& plan, const Shape& shape) {
  ClusterConfig c = shaped_cluster(o.cluster, shape, plan.seed);
  c.semantics = plan.semantics;
  c.timing.jitter_ns = plan.jitter_ns;
  c.budget.max_events = o.max_events_per_seed;
  return c;
}

std::string without_run_context(const std::string& report) {
  std::istringstream in(report);
  std::string out, line;
  while (std::getline(in, line)) {
    const std::string body = line.rfind("  ", 0) == 0 ? line.substr(2) : line;
    if (body.rfind("sim seed=", 0) == 0 || (!replay_hint().empty() && body == replay_hint())) continue;
    out += (out.empty() ? "" : "\n") + line;
  }
  return out;
}

SeedResult run_one(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                   const Shape& shape, const Hooks& hooks) {
  if (o.isolate && hooks.trace == nullptr && hooks.log == nullptr && !hooks.before_run &&
      hooks.hold_timing == nullptr)
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
  // With the log (a failing seed's rerun), the verb trace too: which words
  // an operation touched, and who last wrote the words a hang waits on.
  std::unique_ptr<VerbTrace> own_trace;
  if (hooks.trace == nullptr && o.keep_causes) own_trace = std::make_unique<VerbTrace>(kCauseTraceEntries);
  VerbTrace* trace = hooks.trace ? hooks.trace : own_trace.get();
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
    if (trace) sim.set_verb_trace(trace);
    if (hooks.hold_timing) sim.hold_timing(*hooks.hold_timing);
    if (hooks.before_run) hooks.before_run(sim);
    SeedRun run(sim, o, plan, shape);
    if (plan.crash.on) {
      sim.set_crash(crash_spec_of(plan.crash, shape));
      run.set_crash(&sim.crash());
    }
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
          describe_hang(sim.blocked(), trace, log, &findings.back());
        } else {
          // A dead worker's operation in flight may have landed: recorded as uncertain.
          if (plan.crash.on) run.record_crashed_in_flight(st.elapsed_ns);
          wl->check(run);
          std::vector<ModelViolation> v;
          for (const HistoryModel* m : run.models()) m->check(&v);
          for (ModelViolation& mv : v) {
            finding("", std::move(mv.detail));
            findings.back().kind = std::move(mv.kind);
            // A final state's violation has no operation: its causes are the
            // run's lost writes (added below), not a worker's at that instant.
            if (log && !mv.final_state)
              add_interval_causes(*log, trace, mv.who, mv.start, mv.end, &findings.back());
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
      finding(kind::kInvariant, without_run_context(e.what()));
    } catch (const std::exception& e) {
      finding(kind::kException, e.what());
    }
    if (plan.crash.on && sim.crash().happened) {
      // What it left: the workload's latch words and leftovers, read from
      // memory after the run (a failed read leaves them unsaid).
      std::string held, other;
      if (wl) {
        try {
          held = wl->still_held(run);
          other = wl->after_crash(run);
        } catch (const std::exception&) {
        }
      }
      describe_crash(sim.crash(), held, other, &r);
    }
    run.set_crash(nullptr);
    r.ops = run.ops();
    r.gave_up = run.gave_up_count();
    // Findings the workload raised itself (set-up, in-run, final checks) first.
    std::vector<Finding> own = std::move(run.findings());
    own.insert(own.end(), std::make_move_iterator(findings.begin()), std::make_move_iterator(findings.end()));
    findings = std::move(own);
  }
  if (r.crashed) attribute_to_crash(factory, o, plan, shape, &findings);
  for (Finding& f : findings) {
    f.crash = r.crash;
    const bool hang = f.kind == kind::kHang || f.kind == kind::kDeadlock || f.kind == kind::kCrashLiveness;
    if (log && f.causes.empty() && f.failure && !hang) add_final_causes(*log, &f);
    f.seed = plan.seed;
    f.plan = plan;
    f.shape = shape;
    f.trace_hash = r.trace_hash;
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
  uint64_t& explained = rep.explained_seeds;
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
    if (o.keep_causes && r.failed() &&
        (failures_kept < kMaxFailuresKept || (o.explain && explained < o.explain_limit))) {
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
    if (r.crashed) {
      ++rep.crashed_seeds;
      for (const std::string& left : r.crash_left) ++rep.crash_left[left];
    }
    rep.ops += r.ops;
    const bool failed = r.failed();
    if (failed && rep.failing_seeds++ == 0) {
      rep.first_failing_seed = seed;
      rep.seconds_to_first_failure = seconds();
    }
    const Finding* first = detail::first_failure(r);
    const bool explain_seed = first != nullptr && o.explain && explained < o.explain_limit;
    uint32_t kept_of_seed = 0;
    for (Finding& f : r.findings) {
      ++rep.findings_total;
      ++rep.kinds[f.kind];
      if (!f.failure) ++rep.reports_total;
      // The explained failure is kept past the caps: explain_limit counts
      // failing seeds, whatever earlier seeds filled.
      const bool explain_this = explain_seed && &f == first;
      if (!explain_this) {
        if (f.failure ? failures_kept >= kMaxFailuresKept || kept_of_seed >= o.max_findings_per_seed
                      : reports_kept >= kMaxReportsKept)
          continue;
      }
      if (f.failure) ++kept_of_seed;
      ++(f.failure ? failures_kept : reports_kept);
      // One explanation per failing seed (its first failure): ablation reruns
      // the seed a few dozen times.
      if (explain_this) {
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
  os << "seed " << f.seed << " (" << f.plan.describe() << "), " << f.shape.workers(o.cluster.memory_nodes)
     << " workers x " << f.shape.ops_per_worker << " ops, trace hash " << r.trace_hash << "\n";
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
