// Litmus tests of the RDMA semantics contract.
//
// Each test is a tiny multi-coroutine program run on a fresh simulated
// cluster. Its result is an outcome label. Outcomes are either allowed under
// sequential consistency, "weak" (allowed only when one named relaxation is
// switched on), or forbidden under every profile. Running a test over many
// seeds shows which outcomes a profile produces; anything outside the allowed
// set is a simulator bug. Most tests also have an exhaustive form: the same
// program run through the explorer (sim/explore.h), which enumerates every
// outcome the contract allows instead of sampling, and proves the forbidden
// ones impossible.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "latchwork/config/cluster_config.h"
#include "latchwork/sim/explore.h"

namespace lw {

struct LitmusTest {
  std::string name;
  std::string rule;  // the contract rule it exercises
  // Runs one execution on a cluster built from `base` (seed and semantics set
  // by the caller) and returns the outcome label.
  std::function<std::string(const ClusterConfig& base)> run;
  std::vector<std::string> sequential;  // outcomes a sequential execution can give
  std::string weak;                     // outcome only a relaxation allows ("" = none)
  bool Semantics::*relaxation = nullptr;  // the switch that allows `weak`
  std::vector<std::string> forbidden;   // outcomes no profile may give
  bool allowed(const std::string& outcome, const Semantics& s) const;
  // The outcomes `s` allows: the sequential ones and, if switched on, the weak one.
  std::vector<std::string> allowed_outcomes(const Semantics& s) const;
};

const std::vector<LitmusTest>& litmus_tests();

struct LitmusReport {
  std::string test;
  std::string profile;
  uint64_t runs = 0;
  std::map<std::string, uint64_t> outcomes;
  std::vector<std::string> violations;  // outcomes seen that the profile forbids
  bool weak_seen = false;
  uint64_t trace_hash = 0;  // the executions' hashes folded (one seed: its run's hash)
  uint64_t violation_seed = 0;  // the seed of the first violation (when there is one)
};

// Runs `test` for seeds first_seed .. first_seed+seeds-1 under `profile`.
LitmusReport run_litmus(const LitmusTest& test, const std::string& profile, uint64_t seeds,
                        uint64_t first_seed = 1);
// The same with explicit semantics (e.g. one switch on, all others off).
LitmusReport run_litmus(const LitmusTest& test, const ClusterConfig& base, uint64_t seeds,
                        uint64_t first_seed = 1);

// A test's program for the explorer: its final_check passes each terminal
// state's outcome to `outcome`; the caller sets the semantics.
using LitmusProgram = std::function<explore::Spec(std::function<void(const std::string&)> outcome)>;
// The exhaustive form of the test named `test`, or null when it does not fit
// the explorer (a 64-line READ in any order, polling a buffer over time).
const LitmusProgram* litmus_exhaustive_program(const std::string& test);

// Runs the exhaustive form of `test` (which must have one) under `sem`.
struct LitmusExhaustiveReport {
  std::string test;
  std::string profile;
  std::vector<std::string> outcomes;    // every outcome of a terminal state (sorted)
  std::vector<std::string> violations;  // found, but not allowed under the semantics
  std::vector<std::string> missing;     // allowed, but not found by a complete search
  std::vector<std::string> forbidden_impossible;  // forbidden, proved unreachable
  bool complete = false;      // the explorer covered every state
  std::string explorer_issue; // a bound hit or a violation the explorer reported
  uint64_t states = 0;
  uint64_t transitions = 0;
  double wall_seconds = 0;    // reported only

  bool ok() const { return complete && violations.empty() && missing.empty() && explorer_issue.empty(); }
};
LitmusExhaustiveReport run_litmus_exhaustive(const LitmusTest& test, const std::string& profile,
                                             const Semantics& sem);

}  // namespace lw
