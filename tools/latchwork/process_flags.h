// The flags of a run shared by several compute processes on the verbs
// backend (`latchwork hash`, `latchwork btree`): --processes,
// --process-index, --shared-name, --barrier-timeout-ms, and their checks.
#pragma once

#include <cstdint>
#include <string>

#include "cli/flags.h"
#include "latchwork/config/cluster_config.h"

namespace lw::tool {

struct ProcessFlags {
  uint64_t processes = 1, process_index = 0, barrier_timeout_ms = 300'000;
  std::string shared_name;

  // `what` names the shared structure in the help ("table", "tree");
  // `index0_does` says what process 0 does first ("loads the table").
  void add(cli::FlagSet& f, const std::string& what, const std::string& index0_does);
  // "" or a message for usage_error.
  std::string check(const ClusterConfig& c) const;
};

}  // namespace lw::tool
