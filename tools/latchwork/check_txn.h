// `latchwork check --structure txn`: the transaction engine under a design
// and an OLTP workload through the check driver (workloads/txn_check.h).
// The schemes are the design as it is ("none") and its seeded bugs
// (txn::Broken: no-read-validation, no-write-recheck, mixed-atomics).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "check_output.h"
#include "latchwork/check/driver.h"

namespace lw::tool {

// none, no-read-validation, no-write-recheck, mixed-atomics.
const std::vector<std::string>& txn_check_schemes();

struct TxnCheckRequest {
  std::string design = "drtmh";
  std::string workload = "smallbank";
  std::string scheme = "none";     // a txn_check_schemes() name or "all"
  uint32_t max_attempts = 0;       // 0: the check's default
  // Applies the shape and sweep flags the user gave to each run's options.
  std::function<void(check::Options*)> apply;
  // The replay line's flags after --structure/--design/--workload/--scheme
  // (the cluster and sweep flags the user gave).
  std::string replay_flags;
};

// One CheckRun and factory per scheme (all: every scheme, none first).
// "" or a usage error message.
std::string txn_check_runs(const TxnCheckRequest& req, const ClusterConfig& c, std::vector<CheckRun>* runs,
                           std::vector<check::WorkloadFactory>* factories);

}  // namespace lw::tool
