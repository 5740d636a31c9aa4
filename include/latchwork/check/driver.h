// The public check driver: find the synchronization bugs of your own remote
// structure on the simulator, by seed.
//
// You write a Workload in FoundationDB's shape (set-up, the code each worker
// runs, a final check) and record what your operations did into the seed's
// history models; the driver sweeps seeds. Each seed draws which RDMA
// relaxations are on and how wide their windows are (swarm testing), runs the
// workload, and turns every violated history, failed final check, violated
// invariant (LW_CHECK), exception, hang and deadlock into a Finding of that
// seed. Each failing seed is then explained by ablation (which relaxations
// are necessary for it) and can be shrunk to fewer workers and operations.
//
//   struct MyCounter : lw::check::Workload {
//     lw::RemoteAddr word;
//     void setup(lw::check::SeedRun& run) override { word = run.backend().allocate(0, 8, 8); }
//     lw::Task<void> run(lw::check::SeedRun& run, lw::Worker& w) override {
//       for (uint32_t i = 0; i < run.ops_per_worker(); ++i) { ... run.op_done(w); }
//     }
//     void check(lw::check::SeedRun& run) override { ... run.fail("lost-update", "..."); }
//   };
//   lw::check::Options o;                       // spec profile, 1,000 seeds
//   lw::check::Report r = lw::check::run([] { return std::make_unique<MyCounter>(); }, o);
//   for (const auto& f : r.findings) std::puts(f.summary().c_str());
//
// Everything is deterministic: a finding's seed and Options replay it exactly
// (Finding::replay names the call; built-ins print a command line).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "latchwork/check/history.h"
#include "latchwork/check/models.h"
#include "latchwork/config/cluster_config.h"
#include "latchwork/sim/crash.h"
#include "latchwork/runtime/task.h"
#include "latchwork/verbs/backend.h"

namespace lw {
class SimBackend;
class RelaxationLog;
}  // namespace lw

namespace lw::check {

// The size of a seed's workload. Minimisation shrinks it.
struct Shape {
  uint32_t compute_nodes = 2;
  uint32_t threads_per_node = 2;
  uint32_t coroutines_per_thread = 2;
  // Threads on each memory node (CPU access). Each runs one coroutine (one
  // worker): coroutines_per_thread is for compute threads only.
  uint32_t memory_node_threads = 0;
  uint32_t ops_per_worker = 30;
  uint32_t compute_workers() const { return compute_nodes * threads_per_node * coroutines_per_thread; }
  // Every worker that runs Workload::run on a cluster of `memory_nodes`
  // memory nodes: the compute workers, then one per memory-node thread
  // (SeedRun::workers() passes its cluster's).
  uint32_t workers(uint32_t memory_nodes) const { return compute_workers() + memory_nodes * memory_node_threads; }
  // Left out the memory-node threads, so regions sized by it overflowed.
  [[deprecated("counts compute workers only: use compute_workers(), or workers(memory_nodes) / "
               "SeedRun::workers() to count memory-node threads too")]]
  uint32_t workers() const { return compute_workers(); }
  bool operator==(const Shape&) const = default;
};

// A crash of a seed's plan (Options::crashes; sim/crash.h says what a crash does).
struct PlannedCrash {
  bool on = false;
  uint32_t worker = 0;       // the victim: a compute worker index (SeedRun::worker_index), modulo the shape's
  bool whole_node = false;   // its whole compute node stops with it
  uint64_t at_submission = 1;  // it stops as it posts its n-th awaited submission
  bool operator==(const PlannedCrash&) const = default;
};

// How one seed perturbs the cluster (drawn by the swarm, or given).
struct SeedPlan {
  uint64_t seed = 0;
  Semantics semantics;  // which relaxations are on, and their windows
  Nanos jitter_ns = 0;  // timing jitter of the simple model (NIC models keep theirs)
  PlannedCrash crash;   // Options::crashes: off unless drawn
  std::string describe() const;  // "read_lines_unordered(spread 3000 ns) atomic_loses_write(...)..."
};

class SeedRun;

// A workload in FoundationDB's shape. The driver makes a fresh one per run
// (from the factory), so members may hold per-run state.
class Workload {
 public:
  virtual ~Workload() = default;
  // Host-side, before any worker runs: allocate and initialise remote memory
  // (run.backend().allocate / host_write). May call run.fail() for bad set-up.
  virtual void setup(SeedRun& run) = 0;
  // The code every worker runs (compute workers; memory-node threads too when
  // Shape::memory_node_threads > 0). Call run.op_done(w) after each completed
  // operation: the liveness watchdog measures progress by it.
  virtual Task<void> run(SeedRun& run, Worker& w) = 0;
  // Host-side, after every worker ended: final-state checks (run.fail()).
  // The driver checks the history models itself after this returns.
  virtual void check(SeedRun& /*run*/) {}
  // Whether a latch or lock word is still taken after the run: the driver
  // asks when operations gave up, to tell starvation (false) from a latch
  // never freed (true; a "stuck-latch" failure). Return a description of the
  // taken word, or "" if every word is free.
  virtual std::string still_held(SeedRun& /*run*/) { return {}; }
  // Seeds with an injected crash (Options::crashes), after check(): what
  // the crash left that is not a failure by itself, for the crash report
  // ("an orphaned allocation at 0:0x4000"), or "". The driver adds what it
  // sees itself: a latch still held (still_held) and half-written ranges.
  virtual std::string after_crash(SeedRun& /*run*/) { return {}; }
};

using WorkloadFactory = std::function<std::unique_ptr<Workload>()>;

// The kinds of findings the driver itself produces (workloads add their own).
namespace kind {
inline constexpr const char* kInvariant = "invariant";        // LW_CHECK failed in the run
inline constexpr const char* kException = "exception";        // an exception escaped a worker
inline constexpr const char* kHang = "hang";                  // no progress for Options::watchdog_ns
inline constexpr const char* kDeadlock = "deadlock";          // every unfinished worker waits forever
inline constexpr const char* kBudget = "budget";              // event budget exhausted
inline constexpr const char* kCrash = "crash";                // Options::isolate: the child died or ran too long
inline constexpr const char* kStuckLatch = "stuck-latch";     // ops gave up; a latch is still taken
inline constexpr const char* kStarvation = "starvation";      // ops gave up; every latch is free (a report)
// Survivors of an injected crash hung, deadlocked or gave up on a latch,
// and the same seed without the crash does not: the crash left them waiting
// (a latch held forever). Finding::crash says what the crash left.
inline constexpr const char* kCrashLiveness = "crash-liveness";
}  // namespace kind

struct Finding {
  std::string kind;    // a kind:: name, a model's violation kind, or the workload's own
  std::string detail;  // what was seen
  bool failure = true;  // false: a report (starvation), not a bug
  uint64_t seed = 0;
  SeedPlan plan;       // the relaxations and windows of its seed
  Shape shape;         // the workload size it was found (or shrunk) at
  // Filled in by explain(): the relaxations whose removal alone (timing
  // held: SimBackend::hold_timing) makes the finding vanish; only ones that
  // touched it (`touched`). Empty with protocol_bug or timing_race.
  std::vector<std::string> necessary;
  // When none is necessary alone: the relaxations each of which suffices on
  // its own (the finding needs one of them, any one).
  std::vector<std::string> sufficient;
  bool protocol_bug = false;
  // It needs no relaxation but timing: under `sequential` it never happens
  // without jitter, and does with widened delays -- the plan's relaxations'
  // own delays held (their effects off), the plan's jitter or a wider one (a
  // race of the protocol itself, e.g. a lost wake-up or an ABA).
  // protocol_bug: it happens under `sequential` without jitter too.
  bool timing_race = false;
  bool explained = false;
  // For people: how a timing race was shown (held delays, or jitter: then
  // timing could not be held), relaxations ablation flagged that never
  // touched the finding, and where the sample decided because switching a
  // relaxation off still changed the failing seed's run.
  std::string explain_note;
  std::vector<std::string> causes;    // the relaxation log's detail (time overlaps)
  // With the relaxation log: whether the finding has a history with
  // addresses (an operation's words, the words a hang waits on), and the
  // relaxations that touched those addresses, each once. explain() names
  // only these; a finding without addresses (a final check, an exception)
  // may be blamed on any relaxation that acted in its run.
  bool addressed = false;
  std::vector<std::string> touched;
  // hang/deadlock: the blocked workers (alike ones grouped) and, for each
  // word they wait on, the last write to it (who, when, what): the root.
  std::vector<std::string> blocked;
  std::string replay;                 // how to run it again
  // Its seed's injected crash and what it left ("" without one): who
  // stopped when, what its requests in flight did, a latch still held.
  std::string crash;
  uint64_t trace_hash = 0;
  // One line: "seed 17: torn-read: ... [needs read_lines_unordered]".
  std::string summary() const;
  // "read_lines_unordered + read_overtaken", "none: the protocol itself is
  // wrong", "none: a timing-dependent protocol race", or "".
  std::string explanation() const;
};

struct Options {
  // The base cluster: backend must be "sim". Its semantics profile bounds the
  // swarm (a relaxation off in the base is never drawn on). The shape fields
  // are replaced by `shape`.
  ClusterConfig cluster = default_cluster();
  Shape shape;
  uint64_t first_seed = 1;
  uint64_t seeds = 1000;
  // Swarm testing: each seed draws which of the base's relaxations are on
  // (each with probability 3/4) and log-uniform windows up to the maxima
  // below. Off: every seed uses the base semantics as they are.
  bool swarm = true;
  Nanos max_read_spread_ns = 30'000;
  Nanos max_write_line_gap_ns = 3'000;
  Nanos max_atomic_window_ns = 3'000;
  Nanos max_jitter_ns = 5'000;
  // Stop the sweep at the first failing seed (the time to first hit).
  bool stop_at_first = false;
  // Explain failing seeds by ablation: the first failure of each of the
  // first `explain_limit` failing seeds.
  bool explain = true;
  uint32_t explain_limit = 3;
  // Failures kept per seed (the rest are counted in Report::kinds): one noisy
  // seed must not crowd out the findings of later seeds.
  uint32_t max_findings_per_seed = 4;
  // Ablation's jitter for telling a timing-dependent protocol race: a
  // finding that does not happen under `sequential` without jitter, nor
  // with the plan's relaxations' delays held, nor with the plan's jitter, is
  // tried there with this one (at most ClusterConfig::kMaxWindowNs).
  Nanos race_jitter_ns = 1'000'000;
  uint32_t race_seeds = 256;  // seeds tried with it (stops at the first hit)
  // Ablation's sample: the failing seed and its neighbours (other seeds
  // under the same plan). The sample starts at 1 + ablation_seeds and
  // doubles (up to 1 + max_ablation_seeds) until the unablated plan fails on
  // at least 3 of its seeds, so that a relaxation is called necessary only
  // when the finding, common enough with it on, never appears with it off.
  uint32_t ablation_seeds = 8;
  uint32_t max_ablation_seeds = 128;
  // Crash injection (sim/crash.h): seeds whose plan stops a compute worker
  // or a whole compute node at a drawn point. A dimension of the plan,
  // drawn from the seed on a stream of its own, so that plans without
  // crashes stay as they were. Default: no crashes.
  struct Crashes {
    uint32_t percent = 0;         // seeds with a crash, in percent (0: none)
    uint32_t node_percent = 25;   // of those, the share that stop a whole compute node
    // The crash point: the victim's n-th awaited submission, n uniform in
    // [1, max_submission] (a victim that posts fewer never crashes).
    uint32_t max_submission = 64;
    bool operator==(const Crashes&) const = default;
  };
  Crashes crashes;
  // Shrink the first failing seed's shape while the finding persists.
  bool minimise = false;
  // Liveness: a run in which no worker calls op_done for this long (virtual
  // ns) ends with a "hang" finding naming every blocked worker.
  Nanos watchdog_ns = 50'000'000;
  uint64_t max_events_per_seed = uint64_t{1} << 24;
  // Run each seed in a child process (fork), so that a crash — a
  // segfault, an abort in noexcept code, a call to exit — or a worker that
  // loops without ever awaiting (no virtual time passes, so the watchdog
  // cannot fire) becomes a "crash" finding of that seed, not the end of the
  // sweep. In-process runs already turn LW_CHECK failures, exceptions, hangs
  // and deadlocks into findings; isolation costs a fork per run.
  bool isolate = false;
  // With isolate: a child still running after this many wall seconds is
  // killed ("crash" finding: the only wall-clock bound, never a decision
  // inside a run).
  uint32_t seed_wall_seconds = 60;
  // Keep the relaxation log and verb trace of each failing seed (causes).
  bool keep_causes = true;
  // Called after each seed (progress bars); may be empty.
  std::function<void(uint64_t seed, uint64_t done, uint64_t failing)> on_seed;
  // How to replay a finding: a prefix the driver completes with the seed
  // (built-ins: a command line; library users: left empty, the driver names
  // lw::check::run_seed).
  std::function<std::string(uint64_t seed, const Shape&)> replay_line;

  static ClusterConfig default_cluster();  // sim, spec profile, 1 memory node of 8 MiB
  std::string validate() const;  // "" or a message
};

struct SeedResult {
  uint64_t seed = 0;
  SeedPlan plan;
  Shape shape;
  uint64_t ops = 0;       // op_done calls
  uint64_t gave_up = 0;   // operations recorded as given up
  uint64_t trace_hash = 0;
  Nanos virtual_ns = 0;
  std::vector<Finding> findings;
  // Its injected crash, when one happened: what it left, in a sentence,
  // and by category ("latch held forever", "half-written range", "reported
  // by the workload" (Workload::after_crash), "nothing left") for
  // Report::crash_left.
  bool crashed = false;
  std::string crash;
  std::vector<std::string> crash_left;
  bool failed() const;    // any finding with failure == true
};

struct Report {
  uint64_t seeds_run = 0;
  uint64_t failing_seeds = 0;
  uint64_t ops = 0;
  uint64_t first_failing_seed = 0;  // valid when failing_seeds > 0
  double wall_seconds = 0;
  double seconds_to_first_failure = 0;
  // Failures (the first 64, at most max_findings_per_seed per seed) and
  // reports (the first 16).
  std::vector<Finding> findings;
  uint64_t findings_total = 0;
  // Every finding of the sweep by kind, kept or not ("torn-read" -> 12).
  std::map<std::string, uint64_t> kinds;
  uint64_t explained_seeds = 0;  // failing seeds whose first failure was explained
  // Findings with failure == false (starvation), counted in findings_total:
  // at most one per seed, so also the seeds that reported one.
  uint64_t reports_total = 0;
  uint64_t trace_hash = 0;  // folds every seed's
  // Failing seeds run a second time with the relaxation log for their
  // findings' causes (keep_causes; at most one per failure kept).
  uint64_t seeds_rerun_for_causes = 0;
  // Seeds whose injected crash happened, and what those crashes left, by
  // category (SeedResult::crash_left).
  uint64_t crashed_seeds = 0;
  std::map<std::string, uint64_t> crash_left;
  bool clean() const { return failing_seeds == 0; }
  std::string summary() const;  // a few lines for people
};

// The seed's plan: the swarm's draw for `seed` over o.cluster's semantics.
SeedPlan plan_for(const Options& o, uint64_t seed);

// One seed with a given plan and shape: what lw::check::run does per seed,
// and the replay entry point of a finding (run_seed(factory, o, f.seed)).
SeedResult run_seed(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                    const Shape& shape);
SeedResult run_seed(const WorkloadFactory& factory, const Options& o, uint64_t seed);
// run_seed in this process with `before_run` called on its simulator first
// (to attach recorders such as a timeline, sim/timeline.h, which must not
// change the run).
SeedResult run_seed_observed(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                             const Shape& shape, const std::function<void(SimBackend&)>& before_run);

// Fills in f.protocol_bug / f.timing_race (rerunning its seed and
// neighbours under `sequential`: without jitter; with the plan's
// relaxations' delays held; with the plan's jitter and with
// race_jitter_ns), else f.necessary / f.sufficient by rerunning them with
// each relaxation of its plan switched off alone, timing held (only
// relaxations that touched the finding's addresses are named, or, for a
// finding without addresses, ones that acted in its run).
void explain(const WorkloadFactory& factory, const Options& o, Finding* f);

// Shrinks f's shape (fewer nodes, threads, coroutines, operations) while a
// finding of the same kind persists on its seed; returns the smallest.
Finding minimise(const WorkloadFactory& factory, const Options& o, const Finding& f);

// The sweep.
Report run(const WorkloadFactory& factory, const Options& o);

// Every verb and relaxation of one seed's run, for people: times, addresses,
// values. Filters: only requests touching [lo, lo + bytes) (bytes 0: all).
std::string trace(const WorkloadFactory& factory, const Options& o, const Finding& f,
                  RemoteAddr lo = {}, uint64_t bytes = 0);

// What a workload sees of its seed's run.
class SeedRun {
 public:
  SeedRun(Backend& backend, const Options& o, const SeedPlan& plan, const Shape& shape);

  Backend& backend() { return backend_; }
  const ClusterConfig& config() const { return backend_.config(); }
  uint64_t seed() const { return plan_.seed; }
  const Shape& shape() const { return shape_; }
  uint32_t ops_per_worker() const { return shape_.ops_per_worker; }
  // Every worker that runs Workload::run: the compute workers, then one per
  // memory-node thread (Shape::memory_node_threads on each memory node).
  uint32_t compute_workers() const { return shape_.compute_workers(); }
  uint32_t workers() const;
  // 0 .. compute_workers()-1 for compute workers; memory-node threads follow,
  // up to workers()-1.
  uint32_t worker_index(const Worker& w) const;

  // The history models (models.h); record into whichever fit the structure.
  History& registers() { return registers_; }   // key -> unique-valued register
  CounterModel& counters() { return counters_; }
  MapModel& map() { return map_; }
  HoldModel& holds() { return holds_; }
  // A model of your own (e.g. serializability of transactions): the driver
  // checks it with the others. Returns it, owned by the run.
  template <typename M>
  M& add_model(std::unique_ptr<M> m) {
    M& ref = *m;
    extra_models_.push_back(std::move(m));
    return ref;
  }
  // Every model, built-in first.
  std::vector<const HistoryModel*> models() const;

  // The seed's injected crash: during the run a pointer to its record
  // (sim/crash.h; happened is false until it does), null without one.
  const CrashRecord* crash() const { return crash_; }
  // Whether `w` was stopped by it.
  bool crashed(const Worker& w) const;
  // How many workers it stopped (0 without a crash).
  uint32_t crashed_workers() const;

  // An operation that may take effect although its worker dies before
  // recording it (its write in flight lands): call it before the operation
  // posts, on seeds with a crash in the plan (crash() != null; elsewhere it
  // does nothing). If the crash stops `w` before its next op_done or
  // gave_up, the driver calls `record(end)` after the run and before the
  // checks, and the workload records the operation there as one that may or
  // may not have taken effect (ok = false) ending at `end`, the run's end.
  void in_flight(const Worker& w, std::function<void(Nanos end)> record);
  // The driver, after a crashed run: records the dead workers' in_flight.
  void record_crashed_in_flight(Nanos end);

  // Progress for the watchdog: a worker completed one operation.
  void op_done(const Worker& w);
  // An operation gave up (retries exhausted): counted; at the end the driver
  // asks Workload::still_held to tell starvation from a stuck latch.
  void gave_up(const Worker& w, std::string what);
  // A finding of this seed (final checks, or in-run assertions).
  void fail(std::string kind, std::string detail);

  // Driver internals.
  Nanos last_progress() const { return last_progress_; }
  const Nanos* last_progress_ptr() const { return &last_progress_; }
  uint64_t ops() const { return ops_; }
  uint64_t gave_up_count() const { return gave_up_; }
  const std::string& first_gave_up() const { return first_gave_up_; }
  std::vector<Finding>& findings() { return findings_; }
  void set_crash(const CrashRecord* r) { crash_ = r; }

 private:
  const CrashRecord* crash_ = nullptr;
  std::vector<std::function<void(Nanos)>> in_flight_;  // by worker index, while a crash is planned
  Backend& backend_;
  SeedPlan plan_;
  Shape shape_;
  History registers_;
  CounterModel counters_;
  MapModel map_;
  HoldModel holds_;
  std::vector<std::unique_ptr<HistoryModel>> extra_models_;
  Nanos last_progress_ = 0;
  uint64_t ops_ = 0;
  uint64_t gave_up_ = 0;
  std::string first_gave_up_;
  std::vector<Finding> findings_;
};

}  // namespace lw::check
