// Operations that complete inside a measurement window: each worker keeps a
// WindowTally, and the totals add them up (from several OS threads on the
// threads and verbs backends). Shared by the timed workloads.
#pragma once

#include <mutex>
#include <string>

#include "latchwork/base/assert.h"
#include "latchwork/base/layout.h"
#include "latchwork/base/status.h"

namespace lw {

struct WindowTally {
  Nanos begin = 0, end = 0;  // the window
  uint64_t ops = 0, gave_up = 0;
  double latency_ns = 0;

  // An operation that ran from t0 to t1 with status s. Giving up (bounded
  // retries) is counted; any other error is a bug in the workload.
  void note(Status s, Nanos t0, Nanos t1, const char* what) {
    if (s == Status::kRetryExhausted) ++gave_up;
    else LW_CHECK_MSG(ok(s), std::string(what) + ": " + std::string(to_string(s)));
    if (ok(s) && t1 >= begin && t1 < end) {
      ++ops;
      latency_ns += static_cast<double>(t1 - t0);
    }
  }
};

struct WindowTotals {
  std::mutex mu;
  uint64_t ops = 0, gave_up = 0;
  double latency_ns = 0;

  void add(const WindowTally& t) {
    std::lock_guard<std::mutex> g(mu);
    ops += t.ops;
    gave_up += t.gave_up;
    latency_ns += t.latency_ns;
  }
  double mops(Nanos window_ns) const {
    return static_cast<double>(ops) / (static_cast<double>(window_ns) * 1e-9) / 1e6;
  }
  double mean_latency_us() const { return ops ? latency_ns / static_cast<double>(ops) / 1e3 : 0; }
};

}  // namespace lw
