// `latchwork check`: the built-in structures through the public check driver
// (include/latchwork/check/driver.h): seeds swept with swarm-drawn
// relaxations, each failing seed explained by ablation, with a replay line.
#include <cstdio>

#include "check_exhaustive.h"
#include "check_output.h"
#include "check_txn.h"
#include "cluster_flags.h"
#include "commands.h"
#include "latchwork/base/assert.h"
#include "latchwork/check/builtin.h"
#include "latchwork/txn/design.h"
#include "latchwork/workloads/oltp.h"
#include "progress.h"
#include "timeline_flags.h"

namespace lw::tool {
namespace {

int list_builtins() {
  std::printf("%-10s %-26s %-16s %s\n", "structure", "scheme", "kind", "what it does");
  for (const check::BuiltinInfo& b : check::builtins())
    std::printf("%-10s %-26s %-16s %s\n", b.structure.c_str(), b.scheme.c_str(),
                b.correct ? (b.needs_silent_failed_cas ? "correct*" : "correct") : "negative-control",
                b.description.c_str());
  std::printf("\n* correct only where a failed NIC CAS writes nothing back: under failed_cas_writes_back (on in\n"
              "  spec; Soft-RoCE does it) a waiter's failed CAS writes back over the WRITE that frees a word.\n");
  return kExitOk;
}

// The finding --trace shows: the first failure, else the first report.
const check::Finding* to_trace(const check::Report& r) {
  for (const check::Finding& f : r.findings)
    if (f.failure) return &f;
  return r.findings.empty() ? nullptr : &r.findings.front();
}

// Runs a finding's seed (or o's first seed) again into `tl`.
void record_timeline(const check::WorkloadFactory& factory, const check::Options& o, const check::Finding* f,
                     Timeline* tl) {
  const check::SeedPlan plan = f ? f->plan : check::plan_for(o, o.first_seed);
  const check::SeedResult r =
      check::run_seed_observed(factory, o, plan, f ? f->shape : o.shape, [tl](SimBackend& sim) { tl->attach(sim); });
  std::fprintf(stderr, "timeline: seed %llu (%s), trace hash 0x%llx\n", static_cast<unsigned long long>(plan.seed),
               plan.describe().c_str(), static_cast<unsigned long long>(r.trace_hash));
}

}  // namespace

int cmd_check(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork check",
                 "Runs a built-in remote structure under a synchronization scheme of Jasny et al. "
                 "through the check driver: every seed draws which RDMA relaxations are on and how "
                 "wide their windows are (swarm testing), records a history in which every write "
                 "stores a unique value, and checks that each read returned a whole value current "
                 "at some instant during the read, that exclusive latch holds never overlapped, "
                 "that no latch stayed held, and that the run made progress. Each failing seed is "
                 "explained by ablation (which relaxations it needs) and printed with a replay "
                 "command. Operations that gave up while every latch was free are starvation: "
                 "reported, never a failure. Negative controls (--list) are expected to fail; "
                 "exits 1 when a correct scheme has a failing finding. --seed is the first seed; "
                 "--compute-nodes, --threads, --coroutines and --memory-node-threads set the "
                 "workload's shape (default 2 x 2 x 2, 0), whatever a --config file says. "
                 "--structure locks runs the lock table on symmetric nodes (default 2 memory nodes x 2 "
                 "threads, 1 compute worker, 2 locks): holds must not overlap, a counter incremented in "
                 "every hold must equal the acquisitions, and a queue lock's waiter must not be overtaken "
                 "more than its bound (MCS 0; ALock (ceil(N_C/B_C)+1)*B_O, budgets local 2 remote 3). "
                 "--exhaustive on tuples, btree, hash or sherman explores the workload instead: every "
                 "interleaving and every choice the --semantics allow (RPC allocations served by the memory "
                 "node's handler in one step), at 2 workers (one node, two threads) x 2 --ops (sherman: 2 compute "
                 "nodes x 1 thread x 1 --ops, as its per-node lock table is not state and fg+ takes a minute even so), "
                 "for --seeds program seeds (default 4) from --seed (each fixes the workers' random "
                 "choices), and prints per scheme \"proved within scope\" with the state count or a violation "
                 "with its shortest trace (tuples: --keys 1 and --tuple-bytes 192 unless given; hash 4 keys, "
                 "btree and sherman 16). "
                 "--exhaustive on locks explores instead every interleaving of the lock's steps and every "
                 "choice the --semantics allow, for --local-workers threads on the lock's node and "
                 "--remote-workers on another, each acquiring --acquisitions times: it proves mutual exclusion "
                 "and that every worker can always still finish, within that scope, and prints the state count. "
                 "--structure txn runs OCC transactions of a --design on a small --workload (3 memory nodes: a "
                 "primary and two backups) and checks serializability (the direct serialization graph of the "
                 "committed transactions' read and written versions has no cycle; no version is lost, skipped or "
                 "read uncommitted; final records are the last committed writes), the workload's invariant, "
                 "backups equal to primaries and free locks; --scheme none (default) or a seeded bug: "
                 "no-read-validation, no-write-recheck, mixed-atomics, or all.");
  ClusterConfig defaults;
  ClusterFlags cluster(f, defaults);
  TimelineFlags timeline(f);
  std::string structure = "tuples", scheme = "all", design = "drtmh", workload = "smallbank";
  int64_t seeds = 100, tuple_bytes = 256, keys = 4, ops = 30, read_percent = 50, attempts = 400, show = 3;
  int64_t explain = 3, trace_key = -1, watchdog_ms = 50, memory_node_threads = 0, local_percent = 50;
  bool json = false, list = false, no_swarm = false, stop_at_first = false, minimise = false, trace = false;
  bool isolate = false, exhaustive = false;
  int64_t crashes = 0, crash_node_percent = 25, crash_max_submission = 64;
  int64_t seed_wall_seconds = 60;
  check::LockExploreOptions ex;
  int64_t ex_local = ex.local_workers, ex_remote = ex.remote_workers, ex_acq = ex.acquisitions;
  int64_t ex_local_budget = ex.local_budget, ex_remote_budget = ex.remote_budget;
  int64_t ex_max_states = static_cast<int64_t>(ex.max_states);
  std::vector<std::string> names;
  for (const check::BuiltinInfo& b : check::builtins()) names.push_back(b.scheme);
  for (const std::string& s : txn_check_schemes()) names.push_back(s);
  names.push_back("all");
  f.add_enum("structure", &structure, {"tuples", "btree", "hash", "locks", "sherman", "txn"},
             "tuples: the NAM-DB-like tuple store; btree: the B+-tree with 256 B nodes (splits race lookups); "
             "hash: the RACE hash table (lookups, inserts, updates, removes of few keys); "
             "locks: the lock table (ALock, spinlock, MCS) on memory-node threads; "
             "sherman: Sherman's B+Tree with 256 B nodes (two-level, per-line, smart-bt, fg+; map model); "
             "txn: OCC transactions (--design, --workload; serializability model)");
  f.add_enum("design", &design, txn::design_names(), "txn: the transaction design");
  f.add_enum("workload", &workload, workloads::oltp_workload_names(), "txn: the OLTP workload (small scale)");
  f.add_enum("scheme", &scheme, names, "synchronization scheme (--list), or all");
  f.add_int("seeds", &seeds, "seeds to run, from --seed on", 1, 10'000'000);
  f.add_int("tuple-bytes", &tuple_bytes, "tuple size (multiple of 64)", 64, 16384);
  f.add_int("keys", &keys, "keys (few keys: readers and writers meet; btree default 200)", 1, 100000);
  f.add_int("ops", &ops, "operations per worker", 1, 100000);
  f.add_int("read-percent", &read_percent, "share of reads", 0, 100);
  f.add_int("max-attempts", &attempts,
            "latch/validation retries (hash: CAS attempts, default 4096; locks: wait-loop iterations, "
            "default 200000) before an operation gives up", 1, 1 << 30);
  f.add_int("local-percent", &local_percent, "locks: share of lock() calls on a lock of the worker's own node",
            0, 100);
  f.add_int("memory-node-threads", &memory_node_threads,
            "CPU threads per memory node running the workload too (local access)", 0,
            ClusterConfig::kMaxThreadsPerNode);
  f.add_int("watchdog-ms", &watchdog_ms, "virtual ms without a completed operation that make a hang", 1,
            3'600'000);
  f.add_bool("no-swarm", &no_swarm, "every seed runs the --semantics relaxations as they are");
  f.add_bool("stop-at-first", &stop_at_first, "stop a scheme's sweep at its first failing seed");
  f.add_int("explain", &explain, "failing seeds explained by ablation per scheme", 0, 1000);
  f.add_bool("isolate", &isolate, "run each seed in a child process: a crash or a loop that never "
             "awaits becomes a finding of its seed");
  f.add_int("seed-wall-seconds", &seed_wall_seconds, "with --isolate: wall seconds before a seed's "
            "process is killed", 1, 86'400);
  f.add_int("crashes", &crashes, "percent of seeds that crash a compute worker at a drawn submission "
            "(docs/checking.md, Crashes)", 0, 100);
  f.add_int("crash-node-percent", &crash_node_percent, "with --crashes: percent of crashes that stop the "
            "victim's whole compute node", 0, 100);
  f.add_int("crash-max-submission", &crash_max_submission, "with --crashes: the victim stops at its n-th "
            "awaited submission, n uniform in [1, this]", 1, 1 << 24);
  f.add_bool("minimise", &minimise, "shrink the first failing seed's workload while it still fails");
  f.add_bool("trace", &trace, "print every verb of the first (minimised) finding's run");
  f.add_int("trace-key", &trace_key, "with --trace: only requests on this key's bytes (tuples)", 0, 100000);
  f.add_int("show", &show, "failing findings printed per scheme (and one starvation report)", 0, 1000);
  f.add_bool("exhaustive", &exhaustive, "explore every interleaving and relaxation choice at a small scope "
             "(locks: the lock explorer; tuples, btree, hash: 2 workers x 2 --ops, sherman: 2 x 1, --seeds 4 "
             "program seeds)");
  f.add_int("local-workers", &ex_local, "--exhaustive: workers on the lock's node (CPU access)", 0,
            check::LockExploreOptions::kMaxWorkersPerCohort);
  f.add_int("remote-workers", &ex_remote, "--exhaustive: workers on another node (verbs)", 0,
            check::LockExploreOptions::kMaxWorkersPerCohort);
  f.add_int("acquisitions", &ex_acq, "--exhaustive: acquisitions per worker", 1,
            check::LockExploreOptions::kMaxAcquisitions);
  f.add_int("local-budget", &ex_local_budget, "--exhaustive: ALock local budget (small: reacquire is explored)", 1,
            1 << 20);
  f.add_int("remote-budget", &ex_remote_budget, "--exhaustive: ALock remote budget", 1, 1 << 20);
  f.add_int("max-states", &ex_max_states, "--exhaustive: distinct states before the search stops incomplete", 1,
            int64_t{1} << 34);
  f.add_bool("json", &json, "one JSON object per scheme");
  f.add_bool("list", &list, "list every structure and scheme and exit");
  int64_t progress_seconds = 10;
  add_progress_flag(f, &progress_seconds);
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  if (list) return list_builtins();
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  if (c.backend != "sim") return usage_error(f, "check runs on the simulator (--backend sim)");
  if (std::string e = timeline.validate(c); !e.empty()) return usage_error(f, e);
  if (exhaustive && timeline.on()) return usage_error(f, "--exhaustive runs no timed simulation: no --timeline");
  if (exhaustive && structure != "locks") {
    // A built-in workload under the explorer, at a small scope unless told.
    // The explorer serves its RPCs, but not cheaply: each replay loads the
    // OLTP tables again, and drtmh/smallbank at 2 workers x 1 transaction did
    // not finish its second program seed in four minutes.
    if (structure == "txn")
      return usage_error(f, "--exhaustive does not take --structure txn: the transaction check runs only as "
                            "sampled seeds (its OLTP set-up makes exploration too slow); tuples, btree, hash, sherman "
                            "and locks explore");
    if (scheme != "all" && !check::find_builtin(structure, scheme))
      return usage_error(f, check::builtin_schemes_message(structure));
    check::BuiltinOptions b;
    b.structure = structure;
    b.scheme = scheme != "all" ? scheme : check::builtin_schemes(structure).front();  // validated per scheme too
    b.tuple_bytes = f.was_set("tuple-bytes") ? static_cast<uint32_t>(tuple_bytes) : 192;
    // Few keys: the two workers meet (trees: still more than one node).
    b.keys = f.was_set("keys") ? static_cast<uint32_t>(keys) : structure == "tuples" ? 1 : structure == "hash" ? 4 : 16;
    b.read_percent = static_cast<uint32_t>(read_percent);
    b.max_attempts = static_cast<uint32_t>(attempts);
    if (std::string e = b.validate(); !e.empty()) return usage_error(f, e);
    check::WorkloadExploreOptions x = check::builtin_explore_options(b, c);
    if (f.was_set("compute-nodes")) x.shape.compute_nodes = c.compute_nodes;
    if (f.was_set("threads")) x.shape.threads_per_node = c.threads_per_node;
    if (f.was_set("coroutines")) x.shape.coroutines_per_thread = c.coroutines_per_thread;
    if (f.was_set("memory-node-threads")) x.shape.memory_node_threads = static_cast<uint32_t>(memory_node_threads);
    if (f.was_set("ops")) x.shape.ops_per_worker = static_cast<uint32_t>(ops);
    if (f.was_set("seeds")) x.seeds = static_cast<uint64_t>(seeds);
    x.first_seed = c.seed;
    if (f.was_set("max-states")) x.max_states = static_cast<uint64_t>(ex_max_states);
    if (std::string e = x.validate(); !e.empty()) return usage_error(f, e);
    return run_exhaustive_workloads(scheme, b, c, x, json);
  }
  if (exhaustive) {
    ex.local_workers = static_cast<uint32_t>(ex_local);
    ex.remote_workers = static_cast<uint32_t>(ex_remote);
    ex.acquisitions = static_cast<uint32_t>(ex_acq);
    ex.local_budget = static_cast<int32_t>(ex_local_budget);
    ex.remote_budget = static_cast<int32_t>(ex_remote_budget);
    ex.max_states = static_cast<uint64_t>(ex_max_states);
    ex.semantics = c.semantics;
    if (check::LockExploreOptions probe = ex; scheme != "all" && !lock_scheme(scheme, &probe))
      return usage_error(f, check::builtin_schemes_message("locks"));
    if (std::string e = ex.validate(); !e.empty()) return usage_error(f, e);
    return run_exhaustive_locks(scheme, ex, json);
  }
  if (c.seed > UINT64_MAX - static_cast<uint64_t>(seeds - 1))
    return usage_error(f, "--seed + --seeds - 1 must be at most 2^64 - 1 (the last seed would wrap to 0)");
  if ((f.was_set("design") || f.was_set("workload")) && structure != "txn")
    return usage_error(f, "--design and --workload choose a transaction check: they need --structure txn");
  if (f.was_set("trace-key") && structure != "tuples")
    return usage_error(f, "--trace-key filters a tuple's bytes: it needs --structure tuples");
  if (structure == "btree" && !f.was_set("keys")) keys = 200;
  if (structure == "sherman" && !f.was_set("keys")) keys = 300;
  if (structure == "hash" && !f.was_set("max-attempts")) attempts = 4096;  // CAS attempts per operation
  if (structure == "locks" && !f.was_set("max-attempts")) attempts = 200'000;  // wait-loop iterations
  if (structure == "locks" && !f.was_set("keys")) keys = 2;
  if (f.was_set("trace-key") && trace_key >= keys) return usage_error(f, "--trace-key must be below --keys");

  // The locks run on memory-node threads: 2 per node unless told, 1 compute worker.
  const bool lk = structure == "locks";
  check::Shape shape;
  shape.compute_nodes = f.was_set("compute-nodes") ? c.compute_nodes : lk ? 1 : 2;
  shape.threads_per_node = f.was_set("threads") ? c.threads_per_node : lk ? 1 : 2;
  shape.coroutines_per_thread = f.was_set("coroutines") ? c.coroutines_per_thread : lk ? 1 : 2;
  shape.memory_node_threads =
      f.was_set("memory-node-threads") || !lk ? static_cast<uint32_t>(memory_node_threads) : 2;
  shape.ops_per_worker = static_cast<uint32_t>(ops);

  std::vector<CheckRun> runs;
  std::vector<check::WorkloadFactory> factories;
  std::vector<check::BuiltinOptions> opts;
  // Sweep flags every structure takes.
  auto apply_sweep = [&](check::Options& o) {
    o.seeds = static_cast<uint64_t>(seeds);
    o.swarm = !no_swarm;
    o.stop_at_first = stop_at_first;
    o.explain = explain > 0;
    o.explain_limit = static_cast<uint32_t>(explain);
    o.minimise = minimise;
    o.isolate = isolate;
    o.seed_wall_seconds = static_cast<uint32_t>(seed_wall_seconds);
    o.watchdog_ns = static_cast<Nanos>(watchdog_ms) * 1'000'000;
    o.crashes.percent = static_cast<uint32_t>(crashes);
    o.crashes.node_percent = static_cast<uint32_t>(crash_node_percent);
    o.crashes.max_submission = static_cast<uint32_t>(crash_max_submission);
  };
  if (structure == "txn") {
    TxnCheckRequest req;
    req.design = design;
    req.workload = workload;
    req.scheme = f.was_set("scheme") ? scheme : "none";
    req.max_attempts = f.was_set("max-attempts") ? static_cast<uint32_t>(attempts) : 0;
    req.apply = [&](check::Options* o) {
      apply_sweep(*o);
      check::Shape& s = o->shape;
      if (f.was_set("compute-nodes")) s.compute_nodes = c.compute_nodes;
      if (f.was_set("threads")) s.threads_per_node = c.threads_per_node;
      if (f.was_set("coroutines")) s.coroutines_per_thread = c.coroutines_per_thread;
      if (f.was_set("memory-node-threads")) s.memory_node_threads = static_cast<uint32_t>(memory_node_threads);
      if (f.was_set("ops")) s.ops_per_worker = static_cast<uint32_t>(ops);
    };
    req.replay_flags = f.replay_args({"structure", "scheme", "design", "workload", "seed", "seeds", "show", "json",
                                      "list", "stop-at-first", "explain", "minimise", "trace", "trace-key",
                                      "compute-nodes", "threads", "coroutines", "memory-node-threads", "ops",
                                      "progress-seconds"});
    if (std::string e = txn_check_runs(req, c, &runs, &factories); !e.empty()) return usage_error(f, e);
  }
  if (structure != "txn" && scheme != "all" && !check::find_builtin(structure, scheme)) {
    for (const std::string& t : txn_check_schemes())
      if (t == scheme) return usage_error(f, "scheme " + scheme + " is a txn scheme: use --structure txn");
  }
  for (const check::BuiltinInfo& info : check::builtins()) {
    if (structure == "txn") break;
    if (scheme != "all" && info.scheme != scheme) continue;
    if (scheme == "all" && info.structure != structure) continue;
    check::BuiltinOptions b;
    b.structure = structure;
    b.scheme = info.scheme;
    b.tuple_bytes = static_cast<uint32_t>(tuple_bytes);
    b.keys = static_cast<uint32_t>(keys);
    b.read_percent = static_cast<uint32_t>(read_percent);
    b.max_attempts = static_cast<uint32_t>(attempts);
    b.local_percent = static_cast<uint32_t>(local_percent);
    CheckRun run;
    run.info = &info;
    run.options = check::builtin_check_options(b, c);
    check::Options& o = run.options;
    o.shape = shape;
    apply_sweep(o);
    // A replay repeats every flag given, in the order registered (--config
    // first, so that a --semantics after it refines it as in the original
    // run), then the seed and the (possibly shrunk) shape.
    const std::string prefix =
        "latchwork check --structure " + structure + " --scheme " + info.scheme +
        f.replay_args({"structure", "scheme", "seed", "seeds", "show", "json", "list", "stop-at-first", "explain",
                       "minimise", "trace", "trace-key", "compute-nodes", "threads", "coroutines",
                       "memory-node-threads", "ops", "progress-seconds"});
    o.replay_line = [prefix, lk](uint64_t seed, const check::Shape& s) {
      std::string line = prefix + " --seed " + std::to_string(seed) + " --seeds 1 --compute-nodes " +
                         std::to_string(s.compute_nodes) + " --threads " + std::to_string(s.threads_per_node) +
                         " --coroutines " + std::to_string(s.coroutines_per_thread) + " --ops " +
                         std::to_string(s.ops_per_worker);
      if (s.memory_node_threads > 0 || lk)
        line += " --memory-node-threads " + std::to_string(s.memory_node_threads);
      return line;
    };
    if (scheme != "all" && info.structure != structure) {
      if (structure != "tuples") return usage_error(f, check::builtin_schemes_message(structure));
      return usage_error(f, "scheme " + info.scheme + " is a " + info.structure + " scheme: use --structure " +
                                info.structure);
    }
    if (std::string e = b.validate(o); !e.empty()) return usage_error(f, e);
    runs.push_back(std::move(run));
    factories.push_back(check::builtin_workload(b));
    opts.push_back(b);
  }

  if (!json) print_check_header();
  int exit_code = kExitOk;
  for (size_t i = 0; i < runs.size(); ++i) {
    CheckRun& run = runs[i];
    check::Options& o = run.options;
    const check::WorkloadFactory& factory = factories[i];
    // Every --progress-seconds, also while one long seed runs or ablation explains.
    Progress progress("latchwork check " + run.info->scheme, "seeds", o.seeds, progress_seconds);
    progress.set(0, "0 failing seeds");
    // A crash the driver cannot catch (an invariant in noexcept code) still names its seed.
    set_replay_hint("replay: " + o.replay_line(o.first_seed, o.shape));
    o.on_seed = [&](uint64_t seed, uint64_t done, uint64_t failing) {
      if (done < o.seeds) set_replay_hint("replay: " + o.replay_line(seed + 1, o.shape));
      progress.set(done, std::to_string(failing) + " failing seed" + (failing == 1 ? "" : "s"));
    };
    run.report = check::run(factory, o);
    if (expected_correct(run) && run.report.failing_seeds > 0) exit_code = kExitCheckFailed;
    if (trace) {
      if (const check::Finding* t = to_trace(run.report)) {
        std::pair<RemoteAddr, uint64_t> range{};
        if (trace_key >= 0) range = check::builtin_key_range(opts[i], o, *t, static_cast<uint64_t>(trace_key));
        run.trace = check::trace(factory, o, *t, range.first, range.second);
      } else if (!json) {
        run.trace = "    (no finding to trace)\n";
      }
    }
    // The timeline: the first failing seed, else (after the last scheme) the first scheme's --seed.
    if (const check::Finding* t = to_trace(run.report); timeline.on() && !timeline.recorder()->attached()) {
      if (t && t->failure) record_timeline(factory, o, t, timeline.recorder());
      else if (i + 1 == runs.size()) record_timeline(factories[0], runs[0].options, nullptr, timeline.recorder());
    }
    if (json) std::printf("%s\n", check_json(run, static_cast<size_t>(show)).dump().c_str());
    else print_check_text(run, static_cast<size_t>(show));
    std::fflush(stdout);
  }
  return timeline.finish("latchwork check", exit_code);
}

}  // namespace lw::tool
