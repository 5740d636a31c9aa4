// Litmus tests of the RDMA semantics contract.
//
// Each test is a tiny multi-coroutine program run on a fresh simulated
// cluster. Its result is an outcome label. Outcomes are either allowed under
// sequential consistency, "weak" (allowed only when one named relaxation is
// switched on), or forbidden under every profile. Running a test over many
// seeds shows which outcomes a profile produces; anything outside the allowed
// set is a simulator bug.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "latchwork/config/cluster_config.h"

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

}  // namespace lw
