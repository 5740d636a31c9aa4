// `latchwork conformance`: runs the backend conformance suite on the backend
// the cluster flags name and prints one line (or JSON) per case.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cluster_flags.h"
#include "commands.h"
#include "conformance/conformance.h"

namespace lw::tool {

int cmd_conformance(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork conformance",
                 "Runs the backend conformance suite: small programs checking that the backend "
                 "returns what RDMA hardware and the spec semantics (--semantics spec) guarantee (results "
                 "of each verb, ordering on a queue pair, errors for misuse, exact counters "
                 "under contention). Each case runs on a fresh backend built from the cluster "
                 "flags and uses at most ~2 MiB of a memory node. Prints PASS, FAIL (with what "
                 "was expected and seen) or SKIP (with the reason) per case; exits with 1 when "
                 "any case failed.");
  ClusterConfig defaults;
  defaults.memory_nodes = 2;  // so the two-node cases run
  ClusterFlags cluster(f, defaults);
  std::string filter;
  bool list = false, json = false;
  f.add_string("case", &filter,
               "run only cases whose group/name contains this (e.g. results, cas)");
  f.add_bool("list", &list, "list the cases and exit");
  f.add_bool("json", &json, "print one JSON object with every result instead of lines");
  std::string case_list = "\ncases:\n";
  for (const ConformanceCase& c : conformance_cases())
    case_list += "  " + c.full_name() + ": " + c.what + "\n";
  if (int code; !parse_or_exit(f, argc, argv, &code, case_list)) return code;
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);

  std::vector<const ConformanceCase*> chosen;
  for (const ConformanceCase& k : conformance_cases())
    if (filter.empty() || k.full_name().find(filter) != std::string::npos) chosen.push_back(&k);
  if (chosen.empty()) return usage_error(f, "no conformance case matches \"" + filter + "\"");
  if (list) {
    if (json) {
      nlohmann::json j = nlohmann::json::array();
      for (const ConformanceCase* k : chosen)
        j.push_back({{"name", k->name}, {"group", k->group}, {"what", k->what}});
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      for (const ConformanceCase* k : chosen)
        std::printf("%-34s %s\n", k->full_name().c_str(), k->what.c_str());
    }
    return kExitOk;
  }

  const std::string profile = c.backend == "sim" ? c.semantics_profile : "-";
  if (!json)
    std::printf("conformance: backend=%s semantics=%s%s seed=%llu memory_nodes=%u\n",
                c.backend.c_str(), profile.c_str(), c.threads.adversarial ? " adversarial" : "",
                static_cast<unsigned long long>(c.seed), c.memory_nodes);
  size_t passed = 0, failed = 0, skipped = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (const ConformanceCase* k : chosen) {
    ConformanceResult r = run_conformance_case(c, k->full_name(), f.replay_args({"case", "list", "json", "seed"}) +
                                                                      " --seed " + std::to_string(c.seed));
    switch (r.outcome) {
      case ConformanceResult::kPass:
        ++passed;
        break;
      case ConformanceResult::kFail:
        ++failed;
        break;
      case ConformanceResult::kSkip:
        ++skipped;
        break;
    }
    if (json) {
      rows.push_back({{"name", r.name},
                      {"group", r.group},
                      {"outcome", to_string(r.outcome)},
                      {"detail", r.detail},
                      {"wall_seconds", r.wall_seconds}});
      continue;
    }
    std::string line = std::string(to_string(r.outcome)) + " " + r.full_name();
    char secs[32];
    std::snprintf(secs, sizeof secs, "  %.2f s", r.wall_seconds);
    line += secs;
    if (!r.detail.empty())
      line += (r.outcome == ConformanceResult::kPass ? "  (" : " : ") + r.detail +
              (r.outcome == ConformanceResult::kPass ? ")" : "");
    std::printf("%s\n", line.c_str());
    if (r.outcome == ConformanceResult::kFail)
      std::printf("  replay: latchwork conformance --case %s%s --seed %llu\n", r.full_name().c_str(),
                  f.replay_args({"case", "list", "json", "seed"}).c_str(),
                  static_cast<unsigned long long>(c.seed));
    std::fflush(stdout);
  }
  if (json) {
    nlohmann::json out = {{"backend", c.backend},
                          {"semantics", profile},
                          {"adversarial", c.threads.adversarial},
                          {"seed", c.seed},
                          {"memory_nodes", c.memory_nodes},
                          {"passed", passed},
                          {"failed", failed},
                          {"skipped", skipped},
                          {"cases", rows}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("conformance on %s: %zu passed, %zu failed, %zu skipped\n", c.backend.c_str(),
                passed, failed, skipped);
  }
  return failed ? kExitCheckFailed : kExitOk;
}

}  // namespace lw::tool
