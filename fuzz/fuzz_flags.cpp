// Fuzz target: command-line flag parsing (cli::FlagSet::parse, help_text) with
// the kinds of flags the commands register, the values then applied to a
// ClusterConfig and validated as ClusterFlags::resolve does. The input is the
// argument vector, arguments separated by NUL bytes. Errors are messages; a
// crash, an abort, an exception, a sanitizer report or a hang is a bug, and so
// is a parsed value outside the range its flag declares.
#include <climits>
#include <cstdlib>
#include <vector>

#include "fuzz_common.h"
#include "cli/flags.h"
#include "latchwork/config/cluster_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = lw::fuzz::as_string(data, size);
  std::vector<std::string> args;
  size_t start = 0;
  for (size_t i = 0; i <= text.size() && args.size() < 64; ++i) {
    if (i == text.size() || text[i] == '\0') {
      args.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());

  lw::ClusterConfig d;
  lw::cli::FlagSet f("latchwork fuzz", "Flags of every kind the commands register.");
  int64_t compute_nodes = d.compute_nodes, threads = d.threads_per_node,
          coroutines = d.coroutines_per_thread, memory_nodes = d.memory_nodes, ops = 100,
          max_events = static_cast<int64_t>(d.budget.max_events), any_int = 0;
  uint64_t seed = d.seed;
  double ratio = 0.5;
  std::string config, semantics = "spec", backend = "sim";
  bool json = false;
  f.add_int("compute-nodes", &compute_nodes, "compute nodes", 1, lw::ClusterConfig::kMaxNodes);
  f.add_int("threads", &threads, "threads per node", 1, lw::ClusterConfig::kMaxThreadsPerNode);
  f.add_int("coroutines", &coroutines, "coroutines", 1, lw::ClusterConfig::kMaxCoroutinesPerThread);
  f.add_int("memory-nodes", &memory_nodes, "memory nodes", 1, lw::ClusterConfig::kMaxNodes);
  f.add_int("ops", &ops, "operations per worker", 1, 1 << 24);
  f.add_int("max-events", &max_events, "event budget", 1,
            static_cast<int64_t>(lw::RunBudget::kMaxEvents));
  f.add_int("any", &any_int, "an unbounded integer");
  f.add_uint("seed", &seed, "seed");
  f.add_double("ratio", &ratio, "a number");
  f.add_string("config", &config, "a path");
  f.add_enum("semantics", &semantics, {"spec", "connectx", "sequential"}, "RDMA semantics");
  f.add_enum("backend", &backend, {"sim", "threads", "verbs"}, "backend");
  f.add_bool("json", &json, "JSON output");
  const std::string e = f.parse(static_cast<int>(argv.size()), argv.data());
  (void)f.help_text();
  if (!e.empty()) return 0;
  auto in = [](int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; };
  if (!in(compute_nodes, 1, lw::ClusterConfig::kMaxNodes) ||
      !in(threads, 1, lw::ClusterConfig::kMaxThreadsPerNode) ||
      !in(coroutines, 1, lw::ClusterConfig::kMaxCoroutinesPerThread) ||
      !in(memory_nodes, 1, lw::ClusterConfig::kMaxNodes) || !in(ops, 1, 1 << 24) ||
      !in(max_events, 1, static_cast<int64_t>(lw::RunBudget::kMaxEvents)))
    std::abort();  // a value outside its declared range was accepted
  lw::ClusterConfig c = d;
  if (f.was_set("semantics") && !c.set_profile(semantics).empty()) std::abort();
  c.compute_nodes = static_cast<uint32_t>(compute_nodes);
  c.threads_per_node = static_cast<uint32_t>(threads);
  c.coroutines_per_thread = static_cast<uint32_t>(coroutines);
  c.memory_nodes = static_cast<uint32_t>(memory_nodes);
  c.seed = seed;
  c.budget.max_events = static_cast<uint64_t>(max_events);
  (void)c.validate();
  // Each argument alone as the value of an unsigned flag: accepted means a
  // non-negative number, never a negative one wrapped around.
  for (const auto& a : args) {
    uint64_t u = 0;
    lw::cli::FlagSet g("latchwork fuzz", "");
    g.add_uint("u", &u, "unsigned");
    const char* gv[] = {"--u", a.c_str()};
    if (g.parse(2, gv).empty() && a.find('-') != std::string::npos) std::abort();
  }
  return 0;
}
