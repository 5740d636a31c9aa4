#include "process_flags.h"

#include "runs/hash_run.h"

namespace lw::tool {

void ProcessFlags::add(cli::FlagSet& f, const std::string& what, const std::string& index0_does) {
  f.add_uint("processes", &processes,
             "compute processes running on one shared " + what +
                 " (verbs; start each with the same flags and --shared-name, and its own --process-index)",
             1, HashRunOptions::kMaxProcesses);
  f.add_uint("process-index", &process_index, "this process's index in [0, --processes); 0 " + index0_does, 0,
             HashRunOptions::kMaxProcesses - 1);
  f.add_string("shared-name", &shared_name,
               "create the " + what + " under this name on the memory nodes so that every process naming it "
               "gets the same one (required with --processes > 1; use a fresh name per run: names live as long "
               "as the memory node)");
  f.add_uint("barrier-timeout-ms", &barrier_timeout_ms,
             "how long a process waits at each barrier for the others (the load runs inside the first)", 1,
             3'600'000);
}

std::string ProcessFlags::check(const ClusterConfig& c) const {
  if (processes > 1 && c.backend != "verbs")
    return "--processes > 1 needs --backend verbs (other backends run in one process)";
  if (processes > 1 && shared_name.empty()) return "--processes > 1 needs --shared-name NAME";
  if (process_index >= processes) return "--process-index must be below --processes";
  return {};
}

}  // namespace lw::tool
