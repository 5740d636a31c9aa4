// latchwork: run, check and measure one-sided RDMA synchronisation.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "commands.h"
#include "latchwork/verbs/backend.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int, const char* const*);
  const char* summary;
};

constexpr Command kCommands[] = {
    {"demo", lw::tool::cmd_demo, "a short tour: torn reads per scheme and latch costs (make run)"},
    {"torn-read", lw::tool::cmd_torn_read, "the torn-read experiment of Jasny et al. Fig. 1b"},
    {"litmus", lw::tool::cmd_litmus, "litmus tests of the RDMA semantics contract"},
    {"conformance", lw::tool::cmd_conformance, "backend conformance suite: verbs results, ordering, misuse, contention"},
    {"latch", lw::tool::cmd_latch, "latch-protected counters: exactness and cost per operation"},
    {"perf", lw::tool::cmd_perf, "perftest-style microbenchmark of READ/WRITE/CAS/FAA on the NIC model"},
    {"repro", lw::tool::cmd_repro, "reproduce the papers' microbenchmark figures: model vs paper, CSV/JSON/PNG"},
    {"check", lw::tool::cmd_check, "check a structure's synchronization over many seeds; explain each violation"},
    {"hash", lw::tool::cmd_hash, "RACE vs SMART-HT hash table under YCSB: throughput, latency, retries (SMART §6)"},
    {"btree", lw::tool::cmd_btree, "Sherman / Sherman+ / SMART-BT / FG+ B+Trees under Sherman Table 3 and SMART mixes (Sherman §5)"},
    {"txn", lw::tool::cmd_txn, "OCC transactions, a primitive per phase: DrTM+H, FaRM, DrTM+R, FaSST, FORD, SMART-DTX (DrTM+H §5-6)"},
    {"lock", lw::tool::cmd_lock, "ALock vs spinlock vs MCS lock table on symmetric nodes (ALock §6)"},
    {"flips", lw::tool::cmd_flips, "where pessimistic and optimistic schemes swap places (Jasny §4.4-4.5)"},
    {"memnode", lw::tool::cmd_memnode, "serve registered memory to verbs-backend compute processes"},
    {"node", lw::tool::cmd_node, "a symmetric verbs node: serves its memory and runs workers (lock table, cpu-nic)"},
    {"config", lw::tool::cmd_config, "print the resolved cluster config as JSON"},
};

void print_help() {
  std::printf(
      "usage: latchwork <command> [flags]\n\n"
      "Latchwork builds and checks data structures on disaggregated memory accessed with\n"
      "one-sided RDMA. Runs use the deterministic simulator (--backend sim, the default)\n"
      "or real threads (--backend threads), or real RDMA NICs (--backend verbs --cluster FILE,\n"
      "memory nodes being `latchwork memnode` processes). Every command takes --help.\n\ncommands:\n");
  for (const Command& c : kCommands) std::printf("  %-10s  %s\n", c.name, c.summary);
  std::printf("\nexit codes: 0 success, 1 a check failed, 2 bad usage\n");
}

// A run that ended with an exception: the message, naming the command, and
// exit 1 (what was printed on stdout so far stays).
int failed(const char* command, const std::string& what) {
  std::fflush(stdout);
  std::fprintf(stderr, "latchwork %s: %s\n", command, what.c_str());
  return lw::tool::kExitCheckFailed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help();
    return lw::tool::kExitUsage;
  }
  std::string_view cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    print_help();
    return lw::tool::kExitOk;
  }
  for (const Command& c : kCommands) {
    if (cmd != c.name) continue;
    try {
      return c.run(argc - 2, argv + 2);
    } catch (const lw::RunBudgetExhausted& e) {
      return failed(c.name, e.what());
    } catch (const std::bad_alloc&) {
      return failed(c.name, "out of memory (an allocation failed; try a smaller run or a larger ulimit -v)");
    } catch (const std::exception& e) {
      // Threads and mappings name themselves (lw::start_thread, NodeMemory);
      // any other exception still ends in a message, not an abort.
      return failed(c.name, e.what());
    }
  }
  std::fprintf(stderr, "latchwork: unknown command \"%s\" (see latchwork --help)\n", argv[1]);
  return lw::tool::kExitUsage;
}
