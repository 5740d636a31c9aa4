// SMART §4.2, Alg. 1: work-request throttling with per-thread credits and an
// epoch-based choice of C_max among the candidates.
//
// Time drives the epoch lazily: advance() runs whenever a coroutine of the
// thread posts or completes a batch, with Worker::now() (virtual time in the
// simulator). A measurement window that is over when advance() notices it
// ends there, and the next one starts at that moment, so every candidate is
// measured for at least delta_ns of the thread's own activity.
#include "smart_internal.h"

namespace lw::smart {

Throttle::Throttle(const SmartConfig& c)
    : cfg_(c), c_max_(c.candidate_credits.at(0)), credit_(c_max_) {}

void Throttle::check() const {
  LW_CHECK_MSG(credit_ + int64_t{in_flight_} == int64_t{c_max_},
               "credits and requests in flight must add up to C_max");
}

bool Throttle::try_acquire(uint32_t size) {
  if (!waiters_.empty() || credit_ < int64_t{need(size)}) return false;
  credit_ -= size;
  in_flight_ += size;
  if (in_flight_ > max_in_flight_) max_in_flight_ = in_flight_;
  check();
  return true;
}

void Throttle::wait(WorkerPort* port, uint32_t size) {
  LW_CHECK(port != nullptr);
  waiters_.push_back({port, size});
  ++waits_;
}

void Throttle::release(uint32_t size) {
  LW_CHECK_MSG(in_flight_ >= size, "credits returned that were never taken");
  in_flight_ -= size;
  credit_ += size;  // Alg. 1 line 13
  window_completed_ += size;
  completed_total_ += size;
  check();
  grant();
}

// Waiters in arrival order, each as soon as its need fits: the credits are
// taken on its behalf before it resumes, so nobody can overtake it.
void Throttle::grant() {
  // Bounded: each iteration removes one waiter.
  while (!waiters_.empty() && credit_ >= int64_t{need(waiters_.front().size)}) {
    const Waiter w = waiters_.front();
    waiters_.pop_front();
    credit_ -= w.size;
    in_flight_ += w.size;
    if (in_flight_ > max_in_flight_) max_in_flight_ = in_flight_;
    check();
    w.port->unpark();
  }
}

// Alg. 1 line 15: credit may go negative when C_max shrinks below what is in
// flight; completions bring it back.
void Throttle::update_c_max(uint32_t target) {
  credit_ += int64_t{target} - int64_t{c_max_};
  c_max_ = target;
  check();
  grant();
}

void Throttle::advance(Nanos now) {
  const std::vector<uint32_t>& cand = cfg_.candidate_credits;
  if (!started_) {
    started_ = true;
    stable_ = false;
    candidate_ = 0;
    have_best_ = false;
    window_start_ = now;
    window_completed_ = 0;
    update_c_max(cand[0]);
    return;
  }
  if (now < window_start_) return;  // another coroutine's clock was ahead
  const Nanos elapsed = now - window_start_;
  if (!stable_) {
    if (elapsed < cfg_.delta_ns) return;
    // Lines 21-23: the candidate just measured.
    if (!have_best_ || window_completed_ > best_completed_) {
      best_completed_ = window_completed_;
      best_target_ = cand[candidate_];
      have_best_ = true;
    }
    ++candidate_;
    window_start_ = now;
    window_completed_ = 0;
    if (candidate_ < cand.size()) {
      update_c_max(cand[candidate_]);  // line 20
    } else {
      update_c_max(best_target_);  // line 24
      stable_ = true;
      ++epochs_;
    }
    return;
  }
  // The stable phase (stable_deltas x delta_ns), then a new update phase.
  if (elapsed / cfg_.delta_ns < cfg_.stable_deltas) return;
  stable_ = false;
  candidate_ = 0;
  have_best_ = false;
  window_start_ = now;
  window_completed_ = 0;
  update_c_max(cand[0]);
}

}  // namespace lw::smart
