#include "timeline_flags.h"

#include <cstdio>
#include <fstream>

#include "commands.h"
#include "output_path.h"
#include "plot_json.h"

#ifndef LW_TIMELINE_PLOT_SCRIPT
#define LW_TIMELINE_PLOT_SCRIPT "tools/plot/plot_timeline.py"
#endif

namespace lw::tool {

TimelineFlags::TimelineFlags(cli::FlagSet& f) {
  f.add_string("timeline", &json_path_,
               "write the run's timeline (sim backend) as Chrome trace-event JSON to FILE: a track per "
               "coroutine and queue pair, verbs from post to completion, memory accesses, relaxations "
               "and NIC waits (open in Perfetto or chrome://tracing)");
  f.add_string("timeline-png", &png_path_,
               "draw the run's timeline (sim backend) into a PNG FILE with tools/plot/plot_timeline.py "
               "(needs python3-matplotlib; its JSON is written beside it as FILE.json)");
  f.add_int("timeline-limit", &limit_, "events a timeline keeps (the file counts the rest as dropped)", 1,
            10'000'000);
}

std::string TimelineFlags::validate(const ClusterConfig& c) {
  const bool json = !json_path_.empty(), png = !png_path_.empty();
  if (!json && !png) return {};
  if (c.backend != "sim")
    return "--timeline and --timeline-png need the sim backend (the " + c.backend + " backend has no virtual time)";
  if (json)
    if (std::string e = check_output_file(json_path_, "timeline"); !e.empty()) return e;
  if (png)
    if (std::string e = check_output_file(png_path_, "timeline-png"); !e.empty()) return e;
  timeline_ = std::make_unique<Timeline>(static_cast<size_t>(limit_));
  return {};
}

int TimelineFlags::finish(const char* command, int exit_code) const {
  if (!timeline_) return exit_code;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "%s: %s\n", command, why.c_str());
    return kExitCheckFailed;
  };
  if (!timeline_->attached()) return fail("no simulated run was recorded for the timeline");
  const std::string json = timeline_->to_json();
  if (!json_path_.empty()) {
    std::ofstream out(json_path_);
    out << json;
    out.close();
    if (!out) return fail("cannot write the timeline to " + json_path_);
  }
  if (!png_path_.empty()) {
    if (std::string e = plot_json(json, png_path_, default_python(), LW_TIMELINE_PLOT_SCRIPT); !e.empty())
      return fail("cannot draw the timeline into " + png_path_ + ": " + e);
  }
  return exit_code;
}

}  // namespace lw::tool
