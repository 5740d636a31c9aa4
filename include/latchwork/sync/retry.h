// Bounds and backoff for latch retry loops. Every loop that waits for another
// worker is bounded: when the bound is hit the operation fails with
// kRetryExhausted instead of spinning forever.
#pragma once

#include <algorithm>
#include <cstdint>

#include "latchwork/base/layout.h"
#include "latchwork/runtime/task.h"
#include "latchwork/verbs/worker.h"

namespace lw {

struct RetryPolicy {
  uint32_t max_attempts = 1u << 20;
  Nanos backoff_min_ns = 100;   // first wait after a failed attempt
  Nanos backoff_max_ns = 6400;  // exponential backoff stops growing here
};

// Exponential backoff with full jitter drawn from the worker's stream.
class Backoff {
 public:
  explicit Backoff(const RetryPolicy& p) : p_(p), cap_(p.backoff_min_ns) {}
  Worker::SleepAwaiter wait(Worker& w) {
    Nanos ns = 1 + w.rng().below(cap_);
    cap_ = std::min(cap_ * 2, p_.backoff_max_ns);
    return w.sleep(ns);
  }

 private:
  const RetryPolicy& p_;
  Nanos cap_;
};

}  // namespace lw
