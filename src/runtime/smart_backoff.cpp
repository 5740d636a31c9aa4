// SMART §4.3: truncated exponential backoff (Eq. 1), the dynamic backoff
// limit t_max and coroutine throttling (c_max), both driven by the thread's
// retry rate.
//
// Decisions (the paper leaves them open):
// - The retry rate of a window is the retries that happened in it over the
//   operations that ended in it (at least one). Retries count when they
//   happen, not when their operation ends: counted at the end, the long
//   hot-key updates of a Zipf workload (dozens of retries each) landed in few
//   windows, most windows saw a rate of 0 and halved t_max back to t0, and
//   SMART-HT write-heavy fell from 6.0 to 0.6 Mops (48 threads, cx6-200g).
//   A window with neither retries nor ended operations changes nothing.
// - Windows are aligned: [start + k w, start + (k+1) w), w = retry_window_ns,
//   starting at the thread's first operation; they close lazily, when the
//   next operation ends after them.
// - Without dynamic_limit t_max stays t_M = 2^max_backoff_shift t0 (Eq. 1 is
//   then plain truncated exponential backoff); with it t_max starts at t0
//   (uniform workloads never back off long) and doubles / halves per window.
// - c_max starts at coroutines_per_thread, halves above gamma_high and
//   doubles below gamma_low (multiplicative like t_max: either bound is
//   reached in log2(coroutines) windows), within [1, coroutines_per_thread].
//   With coroutine throttling on, t_max moves only when c_max cannot move
//   further in the direction the retry rate asks for (gamma > gamma_high at
//   c_max = 1, gamma < gamma_low at c_max = coroutines_per_thread).
#include <algorithm>

#include "smart_internal.h"

namespace lw::smart {

ConflictControl::ConflictControl(const SmartConfig& c, uint32_t coroutines)
    : cfg_(c),
      coroutines_(std::max<uint32_t>(1, coroutines)),
      t_limit_(c.t0_ns << c.max_backoff_shift),
      t_max_(c.dynamic_limit ? c.t0_ns : t_limit_),
      t_max_peak_(t_max_),
      c_max_(coroutines_),
      c_max_low_(coroutines_) {}

Nanos ConflictControl::backoff_ns(uint32_t earlier, Nanos rand) const {
  const uint32_t shift = std::min(earlier, cfg_.max_backoff_shift);
  return std::min(cfg_.t0_ns << shift, t_max_) + rand;
}

void ConflictControl::tick(Nanos now) {
  if (!started_) {
    started_ = true;
    window_start_ = now;
  }
  if (now >= window_start_ && now - window_start_ >= cfg_.retry_window_ns) close_window(now);
}

void ConflictControl::op_ended(Nanos now, uint64_t retries) {
  tick(now);
  ++window_ops_;
  window_retries_ += retries;
}

void ConflictControl::retried(Nanos now) {
  tick(now);
  ++window_retries_;
}

void ConflictControl::close_window(Nanos now) {
  if (window_ops_ > 0 || window_retries_ > 0)
    adjust(static_cast<double>(window_retries_) /
           static_cast<double>(std::max<uint64_t>(1, window_ops_)));
  ++windows_;
  window_start_ += (now - window_start_) / cfg_.retry_window_ns * cfg_.retry_window_ns;
  window_ops_ = 0;
  window_retries_ = 0;
}

void ConflictControl::adjust(double gamma) {
  const bool high = gamma > cfg_.gamma_high;
  const bool low = gamma < cfg_.gamma_low;
  if (!high && !low) return;
  bool move_t = cfg_.dynamic_limit;
  if (cfg_.coroutine_throttling) {
    if (high && c_max_ > 1) {
      c_max_ = std::max<uint32_t>(1, c_max_ / 2);
      c_max_low_ = std::min(c_max_low_, c_max_);
      move_t = false;
    } else if (low && c_max_ < coroutines_) {
      c_max_ = std::min(coroutines_, c_max_ * 2);
      move_t = false;
      grant();
    }
  }
  if (!move_t) return;
  if (high) t_max_ = std::min(t_limit_, t_max_ * 2);
  if (low) t_max_ = std::max(cfg_.t0_ns, t_max_ / 2);
  t_max_peak_ = std::max(t_max_peak_, t_max_);
}

bool ConflictControl::try_open() {
  if (!waiters_.empty() || (cfg_.coroutine_throttling && open_ >= c_max_)) return false;
  ++open_;
  return true;
}

void ConflictControl::wait(WorkerPort* port) {
  LW_CHECK(port != nullptr);
  waiters_.push_back(port);
  ++waits_;
}

void ConflictControl::close() {
  LW_CHECK_MSG(open_ > 0, "an operation closed that was never opened");
  --open_;
  grant();
}

// Slots go to waiters in arrival order, taken on their behalf before they
// resume. Bounded: each iteration removes one waiter.
void ConflictControl::grant() {
  while (!waiters_.empty() && (!cfg_.coroutine_throttling || open_ < c_max_)) {
    WorkerPort* p = waiters_.front();
    waiters_.pop_front();
    ++open_;
    p->unpark();
  }
}

}  // namespace lw::smart
