// Flags shared by every subcommand that runs a cluster: a JSON config file,
// then individual overrides.
#pragma once

#include <string>

#include "cli/flags.h"
#include "latchwork/config/cluster_config.h"

namespace lw::tool {

// --profile once meant the RDMA semantics in some commands and the NIC timing
// model in others; every command now refuses it with this message.
inline constexpr const char* kProfileSplit =
    "--profile was split: use --semantics for the RDMA semantics (spec|connectx|sequential) "
    "or --nic for the NIC timing profile (cx5-100g, cx6-200g, ... or a NIC profile JSON file)";

struct ClusterFlagOptions {
  bool threads_flag = true;  // false: the command registers its own --threads
};

class ClusterFlags {
 public:
  // Registers --config, --backend, --semantics, --nic, --qp-policy,
  // --seed, the cluster's shape, --adversarial, the SMART runtime's switches
  // (--throttling, --backoff, --dynamic-limit, --coroutine-throttling) and
  // --rpc-cores, --memory-kind. `c` supplies the defaults
  // shown in --help.
  ClusterFlags(cli::FlagSet& flags, const ClusterConfig& defaults, ClusterFlagOptions o = {});
  // After parsing: the config file (if any) with explicit flags applied on
  // top, validated. Returns an error message or "".
  std::string resolve(const cli::FlagSet& flags, ClusterConfig* out) const;
  // The --config path given, or "".
  const std::string& config_path() const { return config_path_; }

 private:
  ClusterConfig d_;
  std::string config_path_;
  std::string backend_;
  std::string verbs_fence_ = "auto";
  std::string cluster_;
  int64_t op_timeout_ms_, connect_timeout_ms_;
  ClusterFlagOptions o_;
  std::string semantics_, nic_, qp_policy_;
  uint64_t seed_;
  int64_t compute_nodes_, threads_, coroutines_, memory_nodes_;
  bool adversarial_ = false;
  int64_t max_events_ = 0, max_virtual_ms_ = 0;  // the run budget (sim)
  bool throttling_ = false, backoff_ = false, dynamic_limit_ = false, coroutine_throttling_ = false;
  int64_t rpc_cores_ = 0;
  std::string rpc_servers_;
  std::string memory_kind_;
};

// Prints an error for `command` and returns kExitUsage.
int usage_error(const cli::FlagSet& flags, const std::string& message);

// Parses the flags (refusing --profile: kProfileSplit); on --help prints the
// help (and `extra_help`), on an error prints it. Returns false when the command should exit with *exit_code.
bool parse_or_exit(cli::FlagSet& flags, int argc, const char* const* argv, int* exit_code,
                   const std::string& extra_help = {});

}  // namespace lw::tool
