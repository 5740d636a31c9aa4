// The backend conformance suite: small programs that check what every backend
// (sim under each semantics profile, threads, verbs on real NICs) must do
// alike. Each case creates a fresh backend from a base config, runs
// coroutines and compares results. Cases test only what both real RDMA
// hardware and the simulator's `spec` profile guarantee, never a relaxation.
//
// A wrong result is reported (kFail with what was expected and seen), never a
// crash. Each case allocates at most ~2 MiB on a memory node and issues at
// most a few thousand remote operations, so it also runs against a slow
// Soft-RoCE memory node.
#pragma once

#include <string>
#include <vector>

#include "latchwork/config/cluster_config.h"

namespace lw {

struct ConformanceCase {
  std::string name;   // unique, e.g. "cas-success"
  std::string group;  // results | ordering | misuse | concurrency
  std::string what;   // the rule it checks, one line
  std::string full_name() const { return group + "/" + name; }
};

struct ConformanceResult {
  enum Outcome { kPass, kFail, kSkip };

  std::string name, group;
  Outcome outcome = kFail;
  std::string detail;  // kFail: mismatches; kSkip: the reason; kPass: a note or ""
  double wall_seconds = 0;

  std::string full_name() const { return group + "/" + name; }
};

const char* to_string(ConformanceResult::Outcome o);

// Every case, in the order they run.
const std::vector<ConformanceCase>& conformance_cases();

// Runs one case by name ("cas-success" or "results/cas-success") on a backend
// built from `base` (its backend, semantics, seed and memory nodes; a case may
// change threads, coroutines and queue depth for itself). An unknown name
// gives kFail saying so.
// `replay_flags`: the command's flags that shaped `base` (" --config F
// --seed 3"), for the replay line printed if the case aborts; "" spells out
// backend, profile and seed.
ConformanceResult run_conformance_case(const ClusterConfig& base, const std::string& name,
                                       const std::string& replay_flags = {});

// Runs every case whose "group/name" contains `filter` ("" = all).
std::vector<ConformanceResult> run_conformance(const ClusterConfig& base,
                                               const std::string& filter);

}  // namespace lw
