// Issue 43, item 5: which crash each built-in structure survives, the table
// of docs/checking.md ("Crashes"). Every correct built-in runs seeds that
// each crash a compute worker (a quarter: its whole node) at one of its
// first 64 submissions; a built-in survives when no crashed seed fails. The
// table below is the documented one: a change that makes a structure lose
// (or gain) crash tolerance fails here and must update the docs.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "latchwork/check/builtin.h"

namespace lw::check {
namespace {

constexpr uint64_t kSeeds = 40;

struct Row {
  uint64_t crashed = 0, failing = 0;
  std::set<std::string> kinds;
  std::map<std::string, uint64_t> left;
};

Row crash_sweep(const BuiltinInfo& i) {
  BuiltinOptions b;
  b.structure = i.structure;
  b.scheme = i.scheme;
  if (i.structure == "btree") b.keys = 200;
  if (i.structure == "locks") b.max_attempts = 200'000;  // as latchwork check runs them
  ClusterConfig c = Options::default_cluster();
  Options o = builtin_check_options(b, c);
  o.seeds = kSeeds;
  o.explain = false;
  o.keep_causes = false;
  o.crashes.percent = 100;
  o.crashes.node_percent = 25;
  o.crashes.max_submission = 64;
  EXPECT_EQ(b.validate(o), "") << i.structure << "/" << i.scheme;
  const Report r = run(builtin_workload(b), o);
  Row row;
  row.crashed = r.crashed_seeds;
  row.failing = r.failing_seeds;
  for (const auto& [k, n] : r.kinds)
    if (k != kind::kStarvation) row.kinds.insert(k);
  row.left = r.crash_left;
  return row;
}

// The documented classification: whether a built-in survives the crashes
// (no crashed seed fails), fails (with at least these finding kinds), or is
// not exercised (no seed's crash happened: its workers are memory-node
// threads, which crash injection does not stop).
struct Documented {
  const char* verdict;  // "survives" | "fails" | "not exercised"
  std::set<std::string> kinds;
};

const std::map<std::string, Documented>& documented() {
  static const std::map<std::string, Documented> t = {
      {"tuples/pessimistic-basic", {"fails", {"crash-liveness"}}},
      {"tuples/pessimistic-speculative", {"fails", {"crash-liveness"}}},
      {"tuples/pessimistic-combining", {"fails", {"crash-liveness"}}},
      {"tuples/pessimistic-async", {"fails", {"crash-liveness"}}},
      {"tuples/write-unlatch-cas", {"fails", {"crash-liveness"}}},
      {"tuples/versioning", {"fails", {"crash-liveness"}}},
      {"tuples/crc64", {"fails", {"crash-liveness"}}},
      {"tuples/farm", {"fails", {"crash-liveness"}}},
      {"tuples/crc64-relaxed", {"fails", {"crash-liveness"}}},
      {"tuples/farm-relaxed", {"fails", {"crash-liveness"}}},
      {"tuples/reversed-write-unlatch", {"fails", {"crash-liveness"}}},
      {"tuples/out-of-place", {"fails", {"crash-liveness"}}},
      {"tuples/switch-optimistic", {"fails", {"crash-liveness", "torn-read"}}},
      {"tuples/switch-optimistic-relaxed", {"fails", {"crash-liveness", "torn-read"}}},
      {"btree/btree-optimistic", {"fails", {"broken-structure", "crash-liveness"}}},
      {"btree/btree-pessimistic", {"fails", {"broken-structure", "crash-liveness"}}},
      {"hash/race", {"survives", {}}},
      {"hash/smart-ht", {"survives", {}}},
      {"locks/alock", {"not exercised", {}}},
      {"locks/spin", {"fails", {"crash-liveness"}}},
      {"locks/mcs", {"not exercised", {}}},
      {"sherman/per-line", {"fails", {"corrupt-tree", "crash-liveness"}}},
      {"sherman/smart-bt", {"fails", {"crash-liveness"}}},
      {"sherman/fg+", {"fails", {"corrupt-tree", "crash-liveness"}}},
  };
  return t;
}

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : " ") + x;
  return out;
}

TEST(CrashTable, BuiltinsSurviveWhatTheDocsSay) {
  for (const BuiltinInfo& i : builtins()) {
    if (!i.correct_under(Options::default_cluster().semantics)) continue;
    const std::string name = i.structure + "/" + i.scheme;
    const auto it = documented().find(name);
    if (it == documented().end()) {
      ADD_FAILURE() << name << " is not in the crash table";
      continue;
    }
    const Row row = crash_sweep(i);
    std::string left;
    for (const auto& [what, n] : row.left) left += (left.empty() ? "" : ", ") + what + " " + std::to_string(n);
    std::printf("[crash-table] | %s | %llu of %llu | %llu | %s | %s |\n", name.c_str(),
                static_cast<unsigned long long>(row.crashed), static_cast<unsigned long long>(kSeeds),
                static_cast<unsigned long long>(row.failing), joined(row.kinds).c_str(), left.c_str());
    const Documented& d = it->second;
    const std::string verdict = row.crashed == 0 ? "not exercised" : row.failing == 0 ? "survives" : "fails";
    EXPECT_EQ(verdict, d.verdict) << name;
    for (const std::string& k : d.kinds) EXPECT_TRUE(row.kinds.count(k)) << name << " lacks " << k;
    // A dead writer's write that lands is recorded as uncertain
    // (SeedRun::in_flight): reads of it are no model violation.
    EXPECT_FALSE(row.kinds.count("unknown-value")) << name;
  }
}

}  // namespace
}  // namespace lw::check
