// Progress of a long command on stderr: a thread of its own prints how far
// the run is every --progress-seconds of wall time (default 10), so that a
// run spending a minute inside one seed or one point is not silent. The wall
// clock is read here only for the display; the runs never see it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "cli/flags.h"

namespace lw::tool {

// Seconds between progress lines where a command has no --progress-seconds.
inline constexpr int64_t kProgressSeconds = 10;

// Registers --progress-seconds (default 10, in [1, 3600]) writing `seconds`.
void add_progress_flag(cli::FlagSet& flags, int64_t* seconds);

class Progress {
 public:
  // Prints lines like "latchwork check versioning: 3 of 40 seeds done, 2
  // failing seeds, 31 s elapsed, about 6 min left" every `every_seconds`
  // until destroyed; nothing when `quiet`. `unit` names what `total` counts.
  Progress(std::string label, std::string unit, uint64_t total, int64_t every_seconds, bool quiet = false);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // How many units are done, and a note on the results so far ("2 failing
  // seeds"). Safe from any thread.
  void set(uint64_t done, std::string note = {});

  // The line printed at `elapsed_seconds` with `done` of the total done.
  std::string line(uint64_t done, const std::string& note, double elapsed_seconds) const;

 private:
  void loop();

  const std::string label_, unit_;
  const uint64_t total_;
  const int64_t every_seconds_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  uint64_t done_ = 0;
  std::string note_;
  std::thread thread_;
};

}  // namespace lw::tool
