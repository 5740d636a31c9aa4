// Exhaustive exploration of the lock schemes, for `latchwork check`.
#include "check_exhaustive.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "commands.h"
#include "latchwork/check/builtin.h"

namespace lw::tool {
namespace {

struct SchemeRow {
  const char* name;
  locks::LockKind kind;
  locks::AlockVariant variant;
  bool correct;
};

constexpr SchemeRow kSchemes[] = {
    {"alock", locks::LockKind::kAlock, locks::AlockVariant::kCorrect, true},
    {"spin", locks::LockKind::kSpin, locks::AlockVariant::kCorrect, true},
    {"mcs", locks::LockKind::kMcs, locks::AlockVariant::kCorrect, true},
    {"spin-local-cpu", locks::LockKind::kSpinLocalCpu, locks::AlockVariant::kCorrect, false},
    {"spin-write-unlock", locks::LockKind::kSpinWriteUnlock, locks::AlockVariant::kCorrect, false},
    {"alock-victim-after-check", locks::LockKind::kAlock, locks::AlockVariant::kVictimAfterCheck, false},
    {"alock-no-victim", locks::LockKind::kAlock, locks::AlockVariant::kNoVictim, false},
};

const SchemeRow* find(const std::string& s) {
  for (const SchemeRow& r : kSchemes)
    if (s == r.name) return &r;
  return nullptr;
}

}  // namespace

bool lock_scheme(const std::string& scheme, check::LockExploreOptions* o) {
  const SchemeRow* r = find(scheme);
  if (r == nullptr) return false;
  o->kind = r->kind;
  o->variant = r->variant;
  return true;
}

int run_exhaustive_locks(const std::string& scheme, const check::LockExploreOptions& base, bool json) {
  int code = kExitOk;
  if (!json)
    std::printf("%-26s %-16s %-9s %12s %12s %10s %8s  %s\n", "scheme", "kind", "complete", "states", "transitions",
                "terminal", "seconds", "result");
  for (const SchemeRow& row : kSchemes) {
    if (scheme != "all" && scheme != row.name) continue;
    check::LockExploreOptions o = base;
    o.kind = row.kind;
    o.variant = row.variant;
    check::lock_scheme_prepare_semantics(row.name, &o.semantics);
    explore::Result r = check::explore_lock(o);
    const bool violated = !r.violation.empty();
    // A correct scheme must be clean and complete; a negative control must be caught.
    const bool as_expected = row.correct ? (!violated && r.complete) : violated;
    if (!as_expected) code = kExitCheckFailed;
    const std::string result = violated ? r.violation : r.complete ? "proved: mutual exclusion, no deadlock"
                                                                   : "no violation within the bound (" + r.bound + ")";
    if (json) {
      nlohmann::json j = {{"scheme", row.name},
                          {"kind", row.correct ? "correct" : "negative-control"},
                          {"local_workers", o.local_workers},
                          {"remote_workers", o.remote_workers},
                          {"acquisitions", o.acquisitions},
                          {"local_budget", o.local_budget},
                          {"remote_budget", o.remote_budget},
                          {"complete", r.complete},
                          {"states", r.states},
                          {"transitions", r.transitions},
                          {"terminal_states", r.terminal_states},
                          {"replays", r.replays},
                          {"max_depth", r.max_depth},
                          {"seconds", r.wall_seconds},
                          {"violation", r.violation},
                          {"bound", r.bound},
                          {"trace", r.trace},
                          {"as_expected", as_expected}};
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("%-26s %-16s %-9s %12llu %12llu %10llu %8.2f  %s\n", row.name,
                  row.correct ? "correct" : "negative-control", r.complete ? "yes" : "no",
                  static_cast<unsigned long long>(r.states), static_cast<unsigned long long>(r.transitions),
                  static_cast<unsigned long long>(r.terminal_states), r.wall_seconds, result.c_str());
      for (const std::string& l : r.trace) std::printf("    %s\n", l.c_str());
    }
    std::fflush(stdout);
  }
  return code;
}

int run_exhaustive_workloads(const std::string& scheme, const check::BuiltinOptions& base,
                             const ClusterConfig& cluster, const check::WorkloadExploreOptions& scope, bool json) {
  int code = kExitOk;
  if (!json) {
    const check::Shape& sh = scope.shape;
    std::printf("scope: %u compute node(s) x %u thread(s) x %u coroutine(s), %u operation(s) per worker, "
                "program seeds %llu..%llu\n",
                sh.compute_nodes, sh.threads_per_node, sh.coroutines_per_thread, sh.ops_per_worker,
                static_cast<unsigned long long>(scope.first_seed),
                static_cast<unsigned long long>(scope.first_seed + scope.seeds - 1));
    std::printf("%-26s %-16s %-10s %12s %12s %10s %8s  %s\n", "scheme", "kind", "verdict", "states", "transitions",
                "final", "seconds", "result");
  }
  for (const check::BuiltinInfo& info : check::builtins()) {
    if (info.structure != base.structure || (scheme != "all" && scheme != info.scheme)) continue;
    check::BuiltinOptions b = base;
    b.scheme = info.scheme;
    if (std::string e = b.validate(); !e.empty()) {
      std::fprintf(stderr, "latchwork check: %s: %s\n", info.scheme.c_str(), e.c_str());
      return kExitUsage;
    }
    check::WorkloadExploreOptions x = check::builtin_explore_options(b, cluster);
    x.shape = scope.shape;
    x.first_seed = scope.first_seed;
    x.seeds = scope.seeds;
    x.max_states = scope.max_states;
    if (std::string e = x.validate(); !e.empty()) {
      std::fprintf(stderr, "latchwork check: %s: %s\n", info.scheme.c_str(), e.c_str());
      return kExitUsage;
    }
    const check::WorkloadExploreResult r = check::explore_workload(check::builtin_workload(b), x);
    const bool correct = info.correct_under(x.cluster.semantics);
    // A correct scheme must be proved; a negative control must be caught.
    const bool as_expected = correct ? r.proved() : r.violated();
    if (!as_expected) code = kExitCheckFailed;
    const char* verdict = r.proved() ? "proved" : r.violated() ? "violated" : "bound";
    if (json) {
      nlohmann::json j = {{"structure", info.structure},
                          {"scheme", info.scheme},
                          {"kind", correct ? "correct" : "negative-control"},
                          {"verdict", verdict},
                          {"compute_nodes", x.shape.compute_nodes},
                          {"threads", x.shape.threads_per_node},
                          {"coroutines", x.shape.coroutines_per_thread},
                          {"ops", x.shape.ops_per_worker},
                          {"first_seed", x.first_seed},
                          {"seeds_explored", r.seeds_explored},
                          {"states", r.states},
                          {"transitions", r.transitions},
                          {"terminal_states", r.terminal_states},
                          {"seconds", r.wall_seconds},
                          {"seed", r.seed},
                          {"violation", r.last.violation},
                          {"bound", r.last.bound},
                          {"trace", r.last.trace},
                          {"as_expected", as_expected}};
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("%-26s %-16s %-10s %12llu %12llu %10llu %8.2f  %s\n", info.scheme.c_str(),
                  correct ? "correct" : "negative-control", verdict, static_cast<unsigned long long>(r.states),
                  static_cast<unsigned long long>(r.transitions),
                  static_cast<unsigned long long>(r.terminal_states), r.wall_seconds, r.verdict_line().c_str());
      // Say which way a row failed the rule the exit code applies.
      if (!as_expected)
        std::printf("    NOT AS EXPECTED: %s\n", correct ? "a correct scheme must be proved within scope"
                                                       : "a negative control must be violated within scope "
                                                         "(its bug may need a larger scope)");
      for (const std::string& l : r.last.trace) std::printf("    %s\n", l.c_str());
    }
    std::fflush(stdout);
  }
  return code;
}

}  // namespace lw::tool
