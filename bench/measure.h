// Wall-clock and resident-memory measurement shared by the benchmark sections.
#pragma once

#include <chrono>
#include <cstdint>

namespace lw::bench {

struct Options {
  int repeats = 3;  // best of this many runs (machines are shared: noise is one-sided)
  bool quick = false;
};

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Wall nanoseconds per call of f over `ops` calls.
template <typename F>
double sample_ns(uint64_t ops, F& f) {
  Stopwatch w;
  for (uint64_t i = 0; i < ops; ++i) f();
  return w.seconds() * 1e9 / static_cast<double>(ops);
}

// Resident bytes of this process now (/proc/self/statm).
uint64_t resident_bytes();

}  // namespace lw::bench
