// Flags shared by every subcommand that runs a cluster: a JSON config file,
// then individual overrides.
#pragma once

#include <string>

#include "latchwork/cli/flags.h"
#include "latchwork/config/cluster_config.h"

namespace lw::tool {

class ClusterFlags {
 public:
  // Registers --config, --backend, --profile, --seed, the cluster's shape and
  // --adversarial. `c` supplies the defaults shown in --help.
  ClusterFlags(cli::FlagSet& flags, const ClusterConfig& defaults);
  // After parsing: the config file (if any) with explicit flags applied on
  // top, validated. Returns an error message or "".
  std::string resolve(const cli::FlagSet& flags, ClusterConfig* out) const;

 private:
  ClusterConfig d_;
  std::string config_path_;
  std::string backend_;
  std::string profile_;
  uint64_t seed_;
  int64_t compute_nodes_, threads_, coroutines_, memory_nodes_;
  bool adversarial_ = false;
};

// Prints an error for `command` and returns kExitUsage.
int usage_error(const cli::FlagSet& flags, const std::string& message);

// Parses the flags; on --help prints the help (and `extra_help`), on an error
// prints it. Returns false when the command should exit with *exit_code.
bool parse_or_exit(cli::FlagSet& flags, int argc, const char* const* argv, int* exit_code,
                   const std::string& extra_help = {});

}  // namespace lw::tool
