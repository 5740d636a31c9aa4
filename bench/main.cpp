// Every benchmark of Latchwork in one table, also written as JSON.
//
//   ./build/bench/latchwork_bench [--json FILE] [--quick] [--only SECTION]...
//
// Sections: sim, nic, memory, threads, cpu. Benchmarks, not tests: nothing here
// asserts a time. Times are best-of-N wall clock on a possibly shared machine.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sections.h"

int main(int argc, char** argv) {
  using namespace lw::bench;
  Options o;
  std::string json;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) {
      json = argv[++i];
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--quick")) {
      o.quick = true;
      o.repeats = 1;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--json FILE] [--quick] [--only sim|nic|memory|threads|cpu]...\n", argv[0]);
      return 2;
    }
  }
  struct Section {
    const char* name;
    void (*run)(const Options&, Report&);
  };
  // Memory first: its resident-memory deltas are cleanest in a fresh process.
  const Section sections[] = {{"memory", memory_nodes}, {"sim", sim_speed},
                              {"nic", nic_model}, {"threads", threads_cost},
                              {"cpu", cpu_work}};
  Report report;
  for (const Section& s : sections) {
    bool want = only.empty();
    for (const std::string& n : only) want = want || n == s.name;
    if (!want) continue;
    std::fprintf(stderr, "running %s...\n", s.name);
    s.run(o, report);
  }
  report.print_table(stdout);
  if (!json.empty()) {
    if (std::string e = report.write_json(json); !e.empty()) {
      std::fprintf(stderr, "%s\n", e.c_str());
      return 1;
    }
    std::printf("JSON: %s\n", json.c_str());
  }
  return 0;
}
