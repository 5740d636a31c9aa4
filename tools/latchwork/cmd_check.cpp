// `latchwork check`: many seeds of a structure under a synchronization
// scheme on the adversarial simulator; every violation with its cause.
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "cluster_flags.h"
#include "commands.h"
#include "latchwork/check/builtin.h"

namespace lw::tool {

int cmd_check(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork check",
                 "Runs a remote structure under a synchronization scheme of Jasny et al. over many "
                 "seeds on the simulator (spec profile: every RDMA relaxation on), records a "
                 "history in which every write stores a unique value, and checks that each read "
                 "returned a whole value current at some instant during the read, that exclusive "
                 "latch holds never overlapped, and that no latch stayed held. Each violation is "
                 "printed with the relaxation that caused it and a replay command. Negative "
                 "controls (bookend, in-place-marking, write-unlatch-faa) are expected to fail; "
                 "exits 1 when a correct scheme shows a violation.");
  ClusterConfig defaults;
  ClusterFlags cluster(f, defaults);
  std::string structure = "tuples", scheme = "all";
  int64_t seeds = 100, tuple_bytes = 256, keys = 4, ops = 30, read_percent = 50, attempts = 400, show = 3;
  bool json = false;
  std::vector<std::string> names = tuple_scheme_names();
  for (const std::string& b : btree_check_scheme_names()) names.push_back(b);
  names.push_back("all");
  f.add_enum("structure", &structure, {"tuples", "btree"},
             "tuples: the NAM-DB-like tuple store; btree: the B+-tree with 256 B nodes (splits race lookups)");
  f.add_enum("scheme", &scheme, names, "synchronization scheme, or all");
  f.add_int("seeds", &seeds, "seeds to run, from --seed on", 1, 10'000'000);
  f.add_int("tuple-bytes", &tuple_bytes, "tuple size (multiple of 64)", 64, 16384);
  f.add_int("keys", &keys, "keys (few keys: readers and writers meet; btree default 200)", 1, 100000);
  f.add_int("ops", &ops, "operations per worker (8 workers)", 1, 100000);
  f.add_int("read-percent", &read_percent, "share of reads", 0, 100);
  f.add_int("max-attempts", &attempts, "latch/validation retries before an operation gives up", 1, 1 << 20);
  f.add_int("show", &show, "violations printed per scheme", 0, 1000);
  f.add_bool("json", &json, "one JSON object per scheme");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  if (c.backend != "sim") return usage_error(f, "check runs on the simulator (--backend sim)");
  CheckOptions o;
  o.structure = structure;
  if (structure == "btree" && !f.was_set("keys")) keys = 200;
  o.tuple_bytes = static_cast<uint32_t>(tuple_bytes);
  o.keys = static_cast<uint32_t>(keys);
  o.ops_per_worker = static_cast<uint32_t>(ops);
  o.read_percent = static_cast<uint32_t>(read_percent);
  o.max_attempts = static_cast<uint32_t>(attempts);
  const std::vector<std::string>& all = structure == "btree" ? btree_check_scheme_names() : tuple_scheme_names();
  std::vector<std::string> schemes = scheme == "all" ? all : std::vector<std::string>{scheme};
  for (const std::string& s : schemes) {
    o.scheme = s;
    if (std::string e = o.validate(c); !e.empty()) return usage_error(f, e);
  }
  if (c.seed > UINT64_MAX - static_cast<uint64_t>(seeds - 1))
    return usage_error(f, "--seed + --seeds - 1 must be at most 2^64 - 1 (the last seed would wrap to 0)");
  if (!json)
    std::printf("%-24s %-8s %7s %9s %10s %9s  %s\n", "scheme", "correct", "seeds", "ops",
                "bad seeds", "findings", "verdict");
  // A replay repeats every flag that shapes a seed's run.
  // Every flag given, in the order registered (--config first, so that a
  // --profile given after it refines it as in the original run; --profile is
  // repeated only when it was given, since it replaces the file's switches).
  auto replay = [&](const std::string& s, uint64_t seed) {
    return "latchwork check --structure " + structure + " --scheme " + s +
           f.replay_args({"structure", "scheme", "seed", "seeds", "show", "json"}) + " --seed " +
           std::to_string(seed) + " --seeds 1";
  };
  // One hash for the whole sweep: a single seed's run hash when --seeds 1.
  auto fold = [](uint64_t h, uint64_t next, bool first) {
    return first ? next : (h ^ next) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
  };
  auto hex = [](uint64_t h) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(h));
    return std::string(buf);
  };
  int exit_code = kExitOk;
  const auto started = std::chrono::steady_clock::now();
  auto last_progress = started;
  for (const std::string& s : schemes) {
    o.scheme = s;
    const bool correct = structure == "btree" || tuple_scheme_is_correct(s);
    uint64_t total_ops = 0, bad_seeds = 0, findings = 0, trace_hash = 0;
    std::map<uint64_t, uint64_t> seed_hash;
    std::map<std::string, uint64_t> by_relaxation;
    std::vector<std::pair<uint64_t, CheckFinding>> shown;
    for (int64_t i = 0; i < seeds; ++i) {
      const uint64_t seed = c.seed + static_cast<uint64_t>(i);
      set_replay_hint("replay: " + replay(s, seed));
      CheckSeedResult r = run_check_seed(c, o, seed);
      trace_hash = fold(trace_hash, r.trace_hash, i == 0);
      if (!r.findings.empty() && shown.size() < static_cast<size_t>(show)) seed_hash[seed] = r.trace_hash;
      total_ops += r.ops;
      if (!r.findings.empty()) ++bad_seeds;
      findings += r.findings.size();
      for (const CheckFinding& fi : r.findings) {
        if (fi.relaxations.empty()) ++by_relaxation["(none)"];
        for (const std::string& rel : fi.relaxations) ++by_relaxation[rel];
        if (shown.size() < static_cast<size_t>(show)) shown.emplace_back(seed, fi);
      }
      const auto now = std::chrono::steady_clock::now();
      if (now - last_progress > std::chrono::seconds(2)) {
        std::fprintf(stderr, "[%s] %lld/%lld seeds, %llu findings\n", s.c_str(),
                     static_cast<long long>(i + 1), static_cast<long long>(seeds),
                     static_cast<unsigned long long>(findings));
        last_progress = now;
      }
    }
    const std::string verdict = findings == 0 ? (correct ? "ok" : "no violation found (expected some)")
                                              : (correct ? "VIOLATIONS" : "violations found, as expected");
    if (correct && findings > 0) exit_code = kExitCheckFailed;
    if (json) {
      nlohmann::json j = {{"scheme", s}, {"correct", correct}, {"seeds", seeds}, {"first_seed", c.seed},
                          {"ops", total_ops}, {"bad_seeds", bad_seeds}, {"findings", findings},
                          {"profile", c.semantics_profile}, {"by_relaxation", by_relaxation},
                          {"trace_hash", hex(trace_hash)}};
      nlohmann::json list = nlohmann::json::array();
      for (const auto& [seed, fi] : shown)
        list.push_back({{"seed", seed}, {"kind", fi.kind}, {"detail", fi.detail},
                        {"relaxations", fi.relaxations}, {"causes", fi.causes},
                        {"replay", replay(s, seed)}, {"trace_hash", hex(seed_hash[seed])}});
      j["examples"] = list;
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("%-24s %-8s %7lld %9llu %10llu %9llu  %s\n", s.c_str(), correct ? "yes" : "no",
                  static_cast<long long>(seeds), static_cast<unsigned long long>(total_ops),
                  static_cast<unsigned long long>(bad_seeds), static_cast<unsigned long long>(findings),
                  verdict.c_str());
      if (findings > 0) {
        std::string rels;
        for (const auto& [rel, n] : by_relaxation) rels += " " + rel + "=" + std::to_string(n);
        std::printf("    by relaxation:%s\n", rels.c_str());
      }
      for (const auto& [seed, fi] : shown) {
        std::printf("    seed %llu: %s: %s\n", static_cast<unsigned long long>(seed), fi.kind.c_str(),
                    fi.detail.c_str());
        for (const std::string& cause : fi.causes) std::printf("      caused by %s\n", cause.c_str());
        std::printf("      replay: %s\n", replay(s, seed).c_str());
      }
    }
    std::fflush(stdout);
  }
  return exit_code;
}

}  // namespace lw::tool
