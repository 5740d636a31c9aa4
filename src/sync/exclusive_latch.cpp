#include "latchwork/sync/exclusive_latch.h"

namespace lw {

Task<Status> ExclusiveLatch::lock(Worker& w, const RetryPolicy& policy) const {
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Result<uint64_t> r = co_await w.cas(word_, kFree, kLatched);
    if (!r.ok()) co_return r.status;
    if (r.value == kFree) co_return Status::kOk;
    LW_CHECK_MSG(r.value == kLatched, "exclusive latch word holds " + std::to_string(r.value));
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Task<Status> ExclusiveLatch::unlock(Worker& w) const {
  Result<uint64_t> r = co_await w.cas(word_, kLatched, kFree);
  if (!r.ok()) co_return r.status;
  LW_CHECK_MSG(r.value == kLatched, "unlatched a latch that was not held (word " +
                                        std::to_string(r.value) + ")");
  co_return Status::kOk;
}

Task<Status> RwLatch::lock_shared(Worker& w, const RetryPolicy& policy) const {
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Result<uint64_t> r = co_await w.faa(word_, kReader);
    if (!r.ok()) co_return r.status;
    if ((r.value & kExclusive) == 0) co_return Status::kOk;
    // A writer holds it: take the increment back and wait.
    Result<uint64_t> undo = co_await w.faa(word_, -kReader);
    if (!undo.ok()) co_return undo.status;
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Task<Status> RwLatch::unlock_shared(Worker& w) const {
  Result<uint64_t> r = co_await w.faa(word_, -kReader);
  if (!r.ok()) co_return r.status;
  LW_CHECK_MSG(r.value >= kReader, "shared unlatch without readers");
  co_return Status::kOk;
}

Task<Status> RwLatch::lock(Worker& w, const RetryPolicy& policy) const {
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Result<uint64_t> r = co_await w.cas(word_, 0, kExclusive);
    if (!r.ok()) co_return r.status;
    if (r.value == 0) co_return Status::kOk;
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Task<Status> RwLatch::unlock(Worker& w) const {
  Result<uint64_t> r = co_await w.faa(word_, -kExclusive);
  if (!r.ok()) co_return r.status;
  LW_CHECK_MSG(r.value & kExclusive, "exclusive unlatch of a latch not held exclusively");
  co_return Status::kOk;
}

}  // namespace lw
