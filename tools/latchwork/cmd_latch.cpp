#include <cstdio>
#include <nlohmann/json.hpp>

#include "cluster_flags.h"
#include "commands.h"
#include "report.h"
#include "progress.h"
#include "timeline_flags.h"

namespace lw::tool {

void print_latch_header() {
  std::printf("%-20s %8s %10s %10s %8s %6s %12s %10s\n", "latch", "workers", "increments",
              "reads", "torn", "exact", "Mops(virt)", "verbs/op");
}

void print_latch_row(const LatchCounterResult& r) {
  std::printf("%-20s %8llu %10llu %10llu %8llu %6s %12.3f %10.2f\n", r.latch.c_str(),
              static_cast<unsigned long long>(r.workers), static_cast<unsigned long long>(r.increments),
              static_cast<unsigned long long>(r.reads), static_cast<unsigned long long>(r.torn_reads),
              r.exact() ? "yes" : "NO", r.ops_per_second() / 1e6, r.verbs_per_op());
}

int cmd_latch(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork latch",
                 "Every worker increments remote counters under a latch (and, with "
                 "--read-percent, reads them). Checks that the final counts are exact and that "
                 "no reader saw a half-done increment; reports throughput in virtual time (sim) "
                 "and verbs per operation. Exits with 1 if a count is off or an operation "
                 "failed (a latch that gave up), with a replay command; 2 on bad input. Limits: "
                 "at most 65536 workers (compute nodes x threads x coroutines); the queue pair "
                 "(queue_depth, 256 unless a --config file sets it) must hold 4 work requests "
                 "per coroutine; the counters (256 bytes each) must fit in the memory nodes.");
  ClusterConfig defaults;
  defaults.compute_nodes = 2;
  defaults.threads_per_node = 2;
  defaults.coroutines_per_thread = 4;
  ClusterFlags cluster(f, defaults);
  TimelineFlags timeline(f);
  std::string latch = "all", scheme = "versioning";
  int64_t counters = 4, ops = 100, read_percent = 0;
  bool json = false;
  f.add_enum("latch", &latch, {"exclusive", "rw", "optimistic", "all"}, "latch to use");
  f.add_enum("scheme", &scheme, {"versioning", "crc64", "farm", "bookend"},
             "consistency check of the optimistic latch");
  f.add_int("counters", &counters, "counter records", 1, LatchCounterOptions::kMaxCounters);
  f.add_int("ops", &ops, "operations per worker", 1, 1 << 24);
  f.add_int("read-percent", &read_percent, "share of read-only operations", 0, 100);
  f.add_bool("json", &json, "print one JSON object per result");
  int64_t processes = 1;
  std::string shared;
  f.add_int("processes", &processes,
            "compute processes sharing the counters (verbs backend; start each with the same "
            "--shared NAME)", 1, 1024);
  f.add_string("shared", &shared,
               "name of the counters shared by --processes processes on the memory nodes");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  if (processes > 1 && shared.empty()) return usage_error(f, "--processes needs --shared NAME");
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  if (std::string e = timeline.validate(c); !e.empty()) return usage_error(f, e);
  if (processes > 1 && c.backend != "verbs")
    return usage_error(f, "--processes > 1 needs --backend verbs (other backends run in one process)");
  std::vector<LatchKind> kinds;
  if (latch == "all") kinds = {LatchKind::kExclusive, LatchKind::kReaderWriter, LatchKind::kOptimistic};
  else {
    LatchKind k;
    parse_latch_kind(latch, &k);
    kinds = {k};
  }
  ConsistencyScheme s;
  parse_scheme(scheme, &s);
  auto options_of = [&](LatchKind k) {
    LatchCounterOptions o;
    o.kind = k;
    o.scheme = s;
    o.counters = static_cast<uint32_t>(counters);
    o.ops_per_worker = static_cast<uint32_t>(ops);
    o.read_percent = static_cast<uint32_t>(read_percent);
    o.processes = static_cast<uint32_t>(processes);
    // Each latch kind gets its own records: they differ in layout.
    if (!shared.empty()) o.shared_name = shared + "/" + to_string(k);
    o.barrier_timeout_ms = c.verbs.connect_timeout_ms * uint64_t{6};
    o.timeline = timeline.recorder();  // records the first latch's run
    return o;
  };
  // Bad input is found before anything runs (exit 2).
  for (LatchKind k : kinds)
    if (std::string e = validate_latch_counter(c, options_of(k)); !e.empty()) return usage_error(f, e);
  if (!json) print_latch_header();
  int exit_code = kExitOk;
  Progress progress("latchwork latch", "runs", kinds.size(), kProgressSeconds);
  uint64_t done = 0;
  for (LatchKind k : kinds) {
    const LatchCounterOptions o = options_of(k);
    // Every run-shaping flag given (the --config file first), one latch, the seed.
    const std::string replay = "latchwork latch --latch " + std::string(to_string(k)) +
                               f.replay_args({"latch", "seed", "json"}) + " --seed " + std::to_string(c.seed);
    set_replay_hint("replay: " + replay);
    LatchCounterResult r = run_latch_counter(c, o);
    progress.set(++done);
    if (!r.exact()) {
      exit_code = kExitCheckFailed;
      std::fprintf(stderr, "latchwork latch: %s: %s\n  replay: %s\n", r.latch.c_str(),
                   r.error.empty() ? "the counts are not exact" : r.error.c_str(), replay.c_str());
    }
    if (json) {
      nlohmann::json j = nlohmann::json::parse(r.to_json());
      j["replay"] = replay;
      std::printf("%s\n", j.dump().c_str());
    } else {
      print_latch_row(r);
    }
    if (!json && r.processes > 1)
      std::printf("  %u processes: counters sum to %llu, the tally of all processes is %llu (%s)\n",
                  r.processes, static_cast<unsigned long long>(r.counted),
                  static_cast<unsigned long long>(r.tally), r.counted == r.tally ? "exact" : "NOT exact");
    std::fflush(stdout);
  }
  return timeline.finish("latchwork latch", exit_code);
}

int cmd_config(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork config",
                 "Prints the cluster config that the given --config file and flags resolve to, "
                 "as JSON (a starting point for a config file).");
  ClusterConfig defaults;
  ClusterFlags cluster(f, defaults);
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  std::printf("%s\n", c.to_json().c_str());
  return kExitOk;
}

}  // namespace lw::tool
