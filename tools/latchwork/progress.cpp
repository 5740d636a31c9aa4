#include "progress.h"

#include <chrono>
#include <cstdio>
#include <system_error>

namespace lw::tool {
namespace {

std::string duration_text(double seconds) {
  const auto s = static_cast<uint64_t>(seconds + 0.5);
  if (s < 120) return std::to_string(s) + " s";
  if (s < 7200) return std::to_string(s / 60) + " min";
  return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
}

}  // namespace

void add_progress_flag(cli::FlagSet& f, int64_t* seconds) {
  f.add_int("progress-seconds", seconds, "wall seconds between progress lines on stderr", 1, 3600);
}

Progress::Progress(std::string label, std::string unit, uint64_t total, int64_t every_seconds, bool quiet)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total), every_seconds_(every_seconds) {
  if (quiet) return;
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (const std::system_error&) {
    // No thread to spare (the run itself may need them all): no progress
    // lines, the run goes on.
  }
}

Progress::~Progress() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Progress::set(uint64_t done, std::string note) {
  std::lock_guard<std::mutex> g(mu_);
  done_ = done;
  note_ = std::move(note);
}

std::string Progress::line(uint64_t done, const std::string& note, double elapsed) const {
  std::string out = label_ + ": " + std::to_string(done) + " of " + std::to_string(total_) + " " + unit_ + " done";
  if (!note.empty()) out += ", " + note;
  out += ", " + duration_text(elapsed) + " elapsed";
  if (done > 0 && done < total_)
    out += ", about " + duration_text(elapsed * static_cast<double>(total_ - done) / static_cast<double>(done)) +
           " left";
  return out;
}

void Progress::loop() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  auto next = start + std::chrono::seconds(every_seconds_);
  while (!stop_) {
    if (!wake_.wait_until(lock, next, [this] { return stop_; })) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "%s\n", line(done_, note_, elapsed).c_str());
      std::fflush(stderr);
      next += std::chrono::seconds(every_seconds_);
    }
  }
}

}  // namespace lw::tool
