// The SMART runtime's per-thread state (runtime/smart.h). Internal: a
// structure sees only smart::Context.
//
// Every member is touched only by coroutines of one thread, which run one at
// a time, so nothing here is synchronised.
#pragma once

#include <cstdint>
#include <deque>

#include "latchwork/config/smart_config.h"
#include "latchwork/runtime/op_stats.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/verbs/worker.h"

namespace lw::smart {

// Alg. 1: credits and the epoch of C_max updates (smart_throttle.cpp).
class Throttle {
 public:
  explicit Throttle(const SmartConfig& c);

  // Credits a batch of `size` requests needs before it may post: `size`,
  // or every credit when the batch is larger than C_max.
  uint32_t need(uint32_t size) const { return size < c_max_ ? size : c_max_; }
  // Takes `size` credits if the batch may post now (enough credit and no
  // earlier waiter); else false: the caller queues with wait().
  bool try_acquire(uint32_t size);
  // Queues a coroutine (FIFO) for `size` credits; it is unparked once they
  // are granted (taken on its behalf).
  void wait(WorkerPort* port, uint32_t size);
  // A batch of `size` requests completed: returns its credits, counts the
  // completions for the epoch and grants waiters.
  void release(uint32_t size);
  // Moves the epoch on to virtual (or wall) time `now`: ends the running
  // measurement window or stable phase when it is over.
  void advance(Nanos now);

  uint32_t c_max() const { return c_max_; }
  int64_t credit() const { return credit_; }
  uint32_t in_flight() const { return in_flight_; }
  uint32_t max_in_flight() const { return max_in_flight_; }
  uint64_t waits() const { return waits_; }
  uint32_t epochs() const { return epochs_; }
  uint64_t completed() const { return completed_total_; }

 private:
  void update_c_max(uint32_t target);  // Alg. 1 UPDATECMAX
  void grant();
  void check() const;

  struct Waiter {
    WorkerPort* port;
    uint32_t size;
  };
  const SmartConfig& cfg_;
  uint32_t c_max_;
  int64_t credit_;           // C_max minus requests in flight (< 0 transiently)
  uint32_t in_flight_ = 0;   // requests posted and not yet completed
  uint32_t max_in_flight_ = 0;
  std::deque<Waiter> waiters_;
  uint64_t waits_ = 0;
  uint64_t completed_total_ = 0;
  // The epoch: update phase (candidate `candidate_` measured since
  // window_start_) or stable phase (until window_start_ + stable length).
  bool started_ = false;
  bool stable_ = false;
  size_t candidate_ = 0;
  Nanos window_start_ = 0;
  uint64_t window_completed_ = 0;
  uint64_t best_completed_ = 0;
  uint32_t best_target_ = 0;
  bool have_best_ = false;
  uint32_t epochs_ = 0;
};

// §4.3: t_max, c_max and the retry-rate window (smart_backoff.cpp).
class ConflictControl {
 public:
  ConflictControl(const SmartConfig& c, uint32_t coroutines);

  // Eq. 1 for the failure with `earlier` failures before it in the same
  // operation, `rand` drawn uniformly from [0, t0].
  Nanos backoff_ns(uint32_t earlier, Nanos rand) const;
  // An operation with `retries` retries ended at `now`: closes the running
  // window first if it is over (adjusting t_max / c_max), then counts it.
  void op_ended(Nanos now, uint64_t retries);
  // A retry happened at `now` (a failed backoff_cas, note_retry): counted in
  // the running window at once, so that a hot key whose operations keep
  // retrying for many windows raises the rate while it happens.
  void retried(Nanos now);

  // The c_max gate: an operation may open now (and is counted open), or the
  // caller queues with wait() and is unparked once a slot is its own.
  bool try_open();
  void wait(WorkerPort* port);
  void close();  // an operation ended: frees its slot, grants waiters

  Nanos t_max() const { return t_max_; }
  Nanos t_max_peak() const { return t_max_peak_; }
  Nanos t_limit() const { return t_limit_; }
  uint32_t c_max() const { return c_max_; }
  uint32_t c_max_low() const { return c_max_low_; }
  uint32_t open() const { return open_; }
  uint64_t waits() const { return waits_; }
  uint32_t windows() const { return windows_; }

 private:
  void close_window(Nanos now);
  void tick(Nanos now);  // starts the first window, closes the running one when over
  void adjust(double gamma);
  void grant();

  const SmartConfig& cfg_;
  const uint32_t coroutines_;
  const Nanos t_limit_;  // t_M = 2^max_backoff_shift t0
  Nanos t_max_;
  Nanos t_max_peak_;
  uint32_t c_max_;
  uint32_t c_max_low_;
  uint32_t open_ = 0;
  std::deque<WorkerPort*> waiters_;
  uint64_t waits_ = 0;
  bool started_ = false;
  Nanos window_start_ = 0;
  uint64_t window_ops_ = 0, window_retries_ = 0;
  uint32_t windows_ = 0;
};

struct ThreadState {
  ThreadState(const SmartConfig& c, uint32_t coroutines) : throttle(c), conflict(c, coroutines) {}
  Throttle throttle;
  ConflictControl conflict;
  OpStats stats;
  uint64_t ops = 0, retries = 0;
  uint64_t backoffs = 0;
  Nanos backoff_ns = 0;
};

}  // namespace lw::smart
