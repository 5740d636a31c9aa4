#include <cstdio>
#include <nlohmann/json.hpp>

#include "cluster_flags.h"
#include "commands.h"
#include "litmus/litmus.h"

namespace lw::tool {
namespace {

std::string list(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s.empty() ? "-" : s;
}

// --exhaustive: each test with an exhaustive form through the explorer.
int run_exhaustive(const std::vector<const LitmusTest*>& tests, const std::vector<std::string>& profiles,
                   bool json) {
  int exit_code = kExitOk;
  if (!json)
    std::printf("%-20s %-10s %-8s %-8s %-26s %-16s %s\n", "test", "semantics", "states", "seconds",
                "outcomes (all reachable)", "impossible", "verdict");
  for (const LitmusTest* t : tests) {
    if (litmus_exhaustive_program(t->name) == nullptr) continue;
    for (const std::string& p : profiles) {
      Semantics sem;
      Semantics::from_profile(p, &sem);
      const LitmusExhaustiveReport r = run_litmus_exhaustive(*t, p, sem);
      if (!r.ok()) exit_code = kExitCheckFailed;
      if (json) {
        nlohmann::json j = {{"test", t->name}, {"semantics", p}, {"exhaustive", true},
                            {"complete", r.complete}, {"states", r.states},
                            {"transitions", r.transitions}, {"seconds", r.wall_seconds},
                            {"outcomes", r.outcomes}, {"allowed", t->allowed_outcomes(sem)},
                            {"violations", r.violations}, {"missing", r.missing},
                            {"forbidden_impossible", r.forbidden_impossible},
                            {"explorer_issue", r.explorer_issue}};
        std::printf("%s\n", j.dump().c_str());
        continue;
      }
      std::string verdict = "ok";
      if (!r.explorer_issue.empty()) verdict = "EXPLORER: " + r.explorer_issue;
      else if (!r.violations.empty()) verdict = "VIOLATION: " + list(r.violations) + " not allowed";
      else if (!r.missing.empty()) verdict = "MISMATCH: allowed " + list(r.missing) + " unreachable";
      else if (!r.forbidden_impossible.empty()) verdict = "ok, forbidden proved impossible";
      std::printf("%-20s %-10s %-8llu %-8.3f %-26s %-16s %s\n", t->name.c_str(), p.c_str(),
                  static_cast<unsigned long long>(r.states), r.wall_seconds, list(r.outcomes).c_str(),
                  list(r.forbidden_impossible).c_str(), verdict.c_str());
      std::fflush(stdout);
    }
  }
  return exit_code;
}

}  // namespace

int cmd_litmus(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork litmus",
                 "Runs the litmus tests of the RDMA semantics contract on the simulator, each "
                 "over many seeds, and prints the outcomes seen. An outcome is allowed under "
                 "sequential consistency, weak (allowed only when the --semantics switch on the "
                 "relaxation named), or forbidden. A forbidden or disallowed outcome is a "
                 "simulator bug: the command then exits with 1. With --exhaustive, each test that "
                 "fits the exhaustive explorer runs there instead of over seeds: every "
                 "interleaving and every choice the --semantics allow, so the outcomes printed are "
                 "all the reachable ones and a forbidden outcome not reached is proved impossible; "
                 "it exits with 1 if an outcome is disallowed or an allowed one is unreachable.");
  std::string semantics = "all", test = "all";
  uint64_t seeds = 300, first_seed = 1;
  bool json = false, exhaustive = false;
  f.add_enum("semantics", &semantics, {"spec", "connectx", "sequential", "all"}, "RDMA semantics to run under");
  f.add_string("test", &test, "run one test by name (default: all)");
  f.add_uint("seeds", &seeds, "executions (seeds) per test", 1, 10'000'000);
  f.add_uint("first-seed", &first_seed, "seed of the first execution (the last, first-seed + seeds - 1, "
             "must not pass 2^64 - 1)");
  f.add_bool("json", &json, "print one JSON object per test and semantics");
  f.add_bool("exhaustive", &exhaustive, "explore every interleaving instead of sampling seeds "
             "(tests without an exhaustive form are skipped; --seeds and --first-seed do not apply)");
  std::string test_list = "\ntests:\n";
  for (const LitmusTest& t : litmus_tests())
    test_list += "  " + t.name + ": " + t.rule +
                 (litmus_exhaustive_program(t.name) ? "" : " (no exhaustive form)") + "\n";
  if (int code; !parse_or_exit(f, argc, argv, &code, test_list)) return code;
  if (seeds == 0 || seeds > 10'000'000) return usage_error(f, "--seeds must be between 1 and 10^7");
  if (first_seed > UINT64_MAX - (seeds - 1))
    return usage_error(f, "--first-seed + --seeds - 1 must be at most 2^64 - 1 (the last seed would wrap to 0)");
  std::vector<const LitmusTest*> chosen;
  for (const LitmusTest& t : litmus_tests())
    if (test == "all" || test == t.name) chosen.push_back(&t);
  if (chosen.empty()) return usage_error(f, "no litmus test named \"" + test + "\"");
  std::vector<std::string> profiles =
      semantics == "all" ? std::vector<std::string>{"spec", "connectx", "sequential"}
                       : std::vector<std::string>{semantics};
  if (exhaustive) {
    if (f.was_set("seeds") || f.was_set("first-seed"))
      return usage_error(f, "--seeds and --first-seed do not apply to --exhaustive");
    if (test != "all" && litmus_exhaustive_program(test) == nullptr)
      return usage_error(f, "litmus test \"" + test + "\" has no exhaustive form");
    return run_exhaustive(chosen, profiles, json);
  }
  int exit_code = kExitOk;
  if (!json) std::printf("%-20s %-10s %-6s %-40s %s\n", "test", "semantics", "runs", "outcomes (count)", "verdict");
  for (const LitmusTest* t : chosen) {
    for (const std::string& p : profiles) {
      LitmusReport r = run_litmus(*t, p, seeds, first_seed);
      Semantics sem;
      Semantics::from_profile(p, &sem);
      const bool weak_allowed = !t->weak.empty() && sem.*(t->relaxation);
      if (!r.violations.empty()) {
        exit_code = kExitCheckFailed;
        std::fprintf(stderr, "latchwork litmus: %s on %s: outcome %s is not allowed\n  replay: latchwork litmus "
                     "--test %s --semantics %s --seeds 1 --first-seed %llu\n",
                     t->name.c_str(), p.c_str(), r.violations[0].c_str(), t->name.c_str(), p.c_str(),
                     static_cast<unsigned long long>(r.violation_seed));
      }
      if (json) {
        nlohmann::json j = {{"test", t->name}, {"semantics", p}, {"runs", r.runs},
                            {"outcomes", r.outcomes}, {"weak", t->weak},
                            {"weak_allowed", weak_allowed}, {"weak_seen", r.weak_seen},
                            {"violations", r.violations}};
        char hash[24];
        std::snprintf(hash, sizeof hash, "0x%016llx", static_cast<unsigned long long>(r.trace_hash));
        j["trace_hash"] = hash;
        std::printf("%s\n", j.dump().c_str());
        continue;
      }
      std::string outs;
      for (const auto& [o, n] : r.outcomes) {
        std::string tag = t->allowed(o, sem) ? (o == t->weak ? " weak" : "") : " FORBIDDEN";
        outs += o + "(" + std::to_string(n) + tag + ") ";
      }
      std::string verdict = !r.violations.empty() ? "VIOLATION"
                            : weak_allowed        ? (r.weak_seen ? "ok, weak outcome seen" : "ok, weak outcome not seen")
                                                  : "ok";
      std::printf("%-20s %-10s %-6llu %-40s %s\n", t->name.c_str(), p.c_str(),
                  static_cast<unsigned long long>(r.runs), outs.c_str(), verdict.c_str());
      std::fflush(stdout);
    }
  }
  return exit_code;
}

}  // namespace lw::tool
