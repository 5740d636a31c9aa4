#include "check_txn.h"

#include <deque>

#include "latchwork/txn/design.h"
#include "latchwork/workloads/txn_check.h"

namespace lw::tool {
namespace {

// The rows' descriptions live as long as the command (CheckRun points at them).
check::BuiltinInfo* keep(check::BuiltinInfo info) {
  static std::deque<check::BuiltinInfo> infos;
  infos.push_back(std::move(info));
  return &infos.back();
}

}  // namespace

const std::vector<std::string>& txn_check_schemes() {
  static const std::vector<std::string> s = {"none", "no-read-validation", "no-write-recheck", "mixed-atomics"};
  return s;
}

std::string txn_check_runs(const TxnCheckRequest& req, const ClusterConfig& c, std::vector<CheckRun>* runs,
                           std::vector<check::WorkloadFactory>* factories) {
  std::vector<std::string> schemes;
  if (req.scheme == "all") {
    schemes = txn_check_schemes();
  } else {
    txn::Broken b;
    if (!txn::parse_broken(req.scheme, &b))
      return "the txn structure takes the schemes none, no-read-validation, no-write-recheck, mixed-atomics "
             "(or all)";
    schemes = {req.scheme};
  }
  for (const std::string& scheme : schemes) {
    txn::Broken broken = txn::Broken::kNone;
    txn::parse_broken(scheme, &broken);
    workloads::TxnCheckOptions t = workloads::txn_check_defaults(req.design, req.workload, broken);
    if (req.max_attempts > 0) t.max_attempts = req.max_attempts;
    if (std::string e = t.validate(); !e.empty()) {
      if (req.scheme == "all" && broken == txn::Broken::kMixedAtomics) continue;  // not for disaggregated designs
      return e;
    }
    CheckRun run;
    run.info = keep({"txn", req.design + "/" + req.workload + "/" + scheme, broken == txn::Broken::kNone,
                     "OCC transactions of " + req.design + " on " + req.workload +
                         (broken == txn::Broken::kNone ? "" : " with the seeded bug " + scheme)});
    run.options = workloads::txn_check_options(t, c);
    check::Options& o = run.options;
    if (req.apply) req.apply(&o);
    if (std::string e = workloads::txn_check_validate(t, o); !e.empty()) return e;
    const std::string prefix = "latchwork check --structure txn --design " + req.design + " --workload " +
                               req.workload + " --scheme " + scheme + req.replay_flags;
    o.replay_line = [prefix](uint64_t seed, const check::Shape& s) {
      return prefix + " --seed " + std::to_string(seed) + " --seeds 1 --compute-nodes " +
             std::to_string(s.compute_nodes) + " --threads " + std::to_string(s.threads_per_node) +
             " --coroutines " + std::to_string(s.coroutines_per_thread) + " --memory-node-threads " +
             std::to_string(s.memory_node_threads) + " --ops " + std::to_string(s.ops_per_worker);
    };
    runs->push_back(std::move(run));
    factories->push_back(workloads::txn_check_workload(t));
  }
  return "";
}

}  // namespace lw::tool
