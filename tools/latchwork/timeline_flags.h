// --timeline FILE, --timeline-png FILE and --timeline-limit N for commands
// that run on the simulator: the run's verbs, relaxations and NIC waits as a
// Chrome trace-event JSON (sim/timeline.h) and as a PNG drawn by
// tools/plot/plot_timeline.py. Each command adds three calls:
//
//   TimelineFlags timeline(f);                       // with its other flags
//   if (e = timeline.validate(c); ...) usage_error   // after resolving the config
//   o.timeline = timeline.recorder();                // into the run driver's options
//   return timeline.finish("latchwork latch", code); // after the run
#pragma once

#include <memory>
#include <string>

#include "cli/flags.h"
#include "latchwork/config/cluster_config.h"
#include "latchwork/sim/timeline.h"

namespace lw::tool {

class TimelineFlags {
 public:
  explicit TimelineFlags(cli::FlagSet& flags);
  // After parsing: "" or a usage error (a backend other than sim, an output
  // path whose directory does not exist or that is a directory).
  std::string validate(const ClusterConfig& c);
  // The recorder for the run, or null when no timeline was asked for.
  Timeline* recorder() { return timeline_.get(); }
  bool on() const { return timeline_ != nullptr; }
  // Writes the files asked for. Returns `exit_code`, or kExitCheckFailed
  // (with the reason on stderr) when writing or plotting failed.
  int finish(const char* command, int exit_code) const;

 private:
  std::string json_path_, png_path_;
  int64_t limit_ = static_cast<int64_t>(Timeline::kDefaultLimit);
  std::unique_ptr<Timeline> timeline_;
};

}  // namespace lw::tool
