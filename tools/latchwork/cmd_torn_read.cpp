#include <cstdio>
#include <sstream>
#include <vector>

#include "cluster_flags.h"
#include "commands.h"
#include "report.h"
#include "repro/jasny/torn_read.h"
#include "progress.h"

namespace lw::tool {
namespace {

// Parses "64,128,256" into sizes; returns an error or "".
std::string parse_sizes(const std::string& text, std::vector<uint32_t>* out) {
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    unsigned long v = std::strtoul(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || !OptimisticLayout::valid_block_size(static_cast<uint32_t>(v)) ||
        v > (1u << 20))
      return "--size: \"" + item + "\" is not a multiple of 64 between 64 and 1048576";
    out->push_back(static_cast<uint32_t>(v));
  }
  if (out->empty()) return "--size: no sizes given";
  return {};
}

}  // namespace

void print_torn_header() {
  std::printf("%-10s %6s %9s %9s %9s %13s %15s %12s\n", "scheme", "size", "reads", "accepted",
              "torn", "torn_detected", "torn_undetected", "undetected%");
}

void print_torn_row(const TornReadResult& r) {
  std::printf("%-10s %6u %9llu %9llu %9llu %13llu %15llu %11.2f%%\n", r.scheme.c_str(), r.size,
              static_cast<unsigned long long>(r.reads), static_cast<unsigned long long>(r.accepted),
              static_cast<unsigned long long>(r.torn), static_cast<unsigned long long>(r.torn_detected),
              static_cast<unsigned long long>(r.torn_undetected), r.undetected_percent());
}

int cmd_torn_read(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork torn-read",
                 "The experiment of Jasny et al. Fig. 1b. A writer on compute node 0 fills a "
                 "block's payload with its version number and publishes it with the scheme's "
                 "write protocol; readers on compute node 1 read blocks with one READ (three for "
                 "versioning) and validate them with the scheme. A read is torn if its payload "
                 "words differ; torn reads the scheme accepted are undetected corruption. "
                 "Expect bookend to let torn reads through at 256 B and above under the spec "
                 "semantics, and the other schemes never to.");
  ClusterConfig defaults;
  ClusterFlags cluster(f, defaults);
  std::string scheme = "bookend", sizes = "512";
  uint64_t ops = 20000;
  int64_t readers = 4, slots = 4;
  bool json = false;
  f.add_enum("scheme", &scheme, {"bookend", "versioning", "crc64", "farm", "all"},
             "consistency check of the optimistic reads");
  f.add_string("size", &sizes, "block bytes, a multiple of 64; a comma list runs a sweep");
  f.add_uint("ops", &ops, "reads per run", 1, 1ull << 32);
  f.add_int("readers", &readers, "reader coroutines", 1, 256);
  f.add_int("slots", &slots, "blocks the writer cycles through", 1, 4096);
  f.add_bool("json", &json, "print one JSON object per result instead of a table");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  ClusterConfig c;
  if (std::string e = cluster.resolve(f, &c); !e.empty()) return usage_error(f, e);
  std::vector<uint32_t> size_list;
  if (std::string e = parse_sizes(sizes, &size_list); !e.empty()) return usage_error(f, e);
  if (ops == 0 || ops > (1ull << 32)) return usage_error(f, "--ops must be between 1 and 2^32");
  for (uint32_t size : size_list) {
    TornReadOptions probe{ConsistencyScheme::kVersioning, size, ops, static_cast<uint32_t>(readers),
                          static_cast<uint32_t>(slots)};
    if (std::string e = probe.validate(c); !e.empty()) return usage_error(f, e);
  }

  std::vector<ConsistencyScheme> schemes;
  if (scheme == "all") {
    schemes = {ConsistencyScheme::kBookend, ConsistencyScheme::kVersioning,
               ConsistencyScheme::kCrc64, ConsistencyScheme::kFarm};
  } else {
    ConsistencyScheme s;
    parse_scheme(scheme, &s);
    schemes = {s};
  }
  if (!json) {
    std::printf("backend=%s semantics=%s seed=%llu ops=%llu readers=%lld slots=%lld\n",
                c.backend.c_str(), c.backend == "sim" ? c.semantics_profile.c_str() : "-",
                static_cast<unsigned long long>(c.seed), static_cast<unsigned long long>(ops),
                static_cast<long long>(readers), static_cast<long long>(slots));
    print_torn_header();
  }
  Progress progress("latchwork torn-read", "runs", schemes.size() * size_list.size(), kProgressSeconds);
  uint64_t done = 0;
  for (ConsistencyScheme s : schemes) {
    for (uint32_t size : size_list) {
      TornReadOptions o{s, size, ops, static_cast<uint32_t>(readers), static_cast<uint32_t>(slots)};
      set_replay_hint("replay: latchwork torn-read --scheme " + std::string(to_string(s)) +
                      " --size " + std::to_string(size) + f.replay_args({"scheme", "size", "seed", "json"}) +
                      " --seed " + std::to_string(c.seed));
      TornReadResult r = run_torn_read(c, o);
      progress.set(++done);
      if (json) std::printf("%s\n", r.to_json().c_str());
      else print_torn_row(r);
      std::fflush(stdout);
    }
  }
  return kExitOk;
}

}  // namespace lw::tool
