#include "latchwork/sync/pessimistic_tuple.h"

#include <cstring>
#include <vector>

#include "latchwork/sync/exclusive_latch.h"

namespace lw {
namespace {

constexpr uint64_t kX = RwLatch::kExclusive;  // the exclusive bit (both modes)
constexpr uint64_t kR = RwLatch::kReader;     // one reader

// Acquires the exclusive latch; with a speculative level the data READ
// rides in the same batch. Returns kOk with `buf` filled.
Task<Status> latch_exclusive(Worker& w, const LatchedTuple& t, LatchOptimization level,
                             std::span<std::byte> buf, const RetryPolicy& policy) {
  Backoff backoff(policy);
  const bool speculate = level != LatchOptimization::kBasic;
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Batch b;
    WorkRequest& cas = b.cas(t.latch, 0, kX);
    if (speculate) b.read(buf.data(), t.data, t.data_bytes);
    Status s = co_await w.execute(b);
    if (!ok(s)) co_return s;
    if (cas.old_value == 0) {
      if (!speculate) s = co_await w.read(buf.data(), t.data, t.data_bytes);
      co_return s;
    }
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

// Shared latch: FAA +2 (exclusive-only: CAS 0 -> 1); speculative levels
// read in the same batch.
Task<Status> latch_shared(Worker& w, const LatchedTuple& t, LatchOptimization level, LatchMode mode,
                          std::span<std::byte> out, const RetryPolicy& policy) {
  if (mode == LatchMode::kExclusiveOnly) co_return co_await latch_exclusive(w, t, level, out, policy);
  Backoff backoff(policy);
  const bool speculate = level != LatchOptimization::kBasic;
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Batch b;
    WorkRequest& faa = b.faa(t.latch, kR);
    if (speculate) b.read(out.data(), t.data, t.data_bytes);
    Status s = co_await w.execute(b);
    if (!ok(s)) co_return s;
    if ((faa.old_value & kX) == 0) {
      if (!speculate) s = co_await w.read(out.data(), t.data, t.data_bytes);
      co_return s;
    }
    Result<uint64_t> undo = co_await w.faa(t.latch, -kR);
    if (!undo.ok()) co_return undo.status;
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

// The unlatch request: FAA(-1) on a reader/writer latch, CAS 1 -> 0 otherwise.
void add_unlatch(Batch& b, const LatchedTuple& t, LatchMode mode) {
  if (mode == LatchMode::kReaderWriter) b.faa(t.latch, -kX);
  else b.cas(t.latch, kX, 0);
}

}  // namespace

const char* to_string(LatchOptimization o) {
  switch (o) {
    case LatchOptimization::kBasic: return "basic";
    case LatchOptimization::kSpeculativeRead: return "speculative-read";
    case LatchOptimization::kWriteCombining: return "write-combining";
    case LatchOptimization::kAsyncUnlatch: return "async-unlatch";
    case LatchOptimization::kWriteUnlatch: return "write-unlatch";
  }
  return "?";
}

bool parse_latch_optimization(std::string_view name, LatchOptimization* out) {
  for (auto o : {LatchOptimization::kBasic, LatchOptimization::kSpeculativeRead,
                 LatchOptimization::kWriteCombining, LatchOptimization::kAsyncUnlatch,
                 LatchOptimization::kWriteUnlatch})
    if (name == to_string(o)) {
      *out = o;
      return true;
    }
  return false;
}

Task<Status> pessimistic_update(Worker& w, const LatchedTuple& t, LatchOptimization level,
                                LatchMode mode, std::span<std::byte> buf,
                                const std::function<void(std::span<std::byte>)>& modify,
                                HoldTimes* hold, const RetryPolicy& policy) {
  LW_CHECK(buf.size() == t.data_bytes);
  Status s = co_await latch_exclusive(w, t, level, buf, policy);
  if (!ok(s)) co_return s;
  if (hold) hold->acquired = w.now();
  modify(buf);
  switch (level) {
    case LatchOptimization::kBasic:
    case LatchOptimization::kSpeculativeRead: {
      s = co_await w.write(t.data, buf.data(), t.data_bytes);
      if (!ok(s)) co_return s;
      if (hold) hold->released = w.now();
      Batch b;
      add_unlatch(b, t, mode);
      co_return co_await w.execute(b);
    }
    case LatchOptimization::kWriteCombining: {
      Batch b;
      b.write(t.data, buf.data(), t.data_bytes);
      add_unlatch(b, t, mode);
      if (hold) hold->released = w.now();
      co_return co_await w.execute(b);
    }
    // The asynchronous levels post their WRITE unsignaled: the NIC reads the
    // source after we return, so it lives in the worker's post buffer for
    // the node, not in `buf` (the caller's) or this frame. Reusing it is
    // safe: the next update on the node first latches there (signaled,
    // posted later), and that completes only after this WRITE executed.
    case LatchOptimization::kAsyncUnlatch: {
      std::span<std::byte> src = w.post_buffer(t.data.node(), t.data_bytes);
      std::memcpy(src.data(), buf.data(), t.data_bytes);
      Batch b;
      b.write(t.data, src.data(), t.data_bytes);
      add_unlatch(b, t, mode);
      if (hold) hold->released = w.now();
      co_return w.post(b);
    }
    case LatchOptimization::kWriteUnlatch: {
      LW_CHECK_MSG(t.latch == t.data + t.data_bytes, "write unlatch needs the latch right after the data");
      // One WRITE: the data, then (at the highest address) the free latch word.
      std::span<std::byte> image = w.post_buffer(t.data.node(), t.data_bytes + kWord);
      std::memcpy(image.data(), buf.data(), t.data_bytes);
      std::memset(image.data() + t.data_bytes, 0, kWord);
      if (hold) hold->released = w.now();
      Batch b;
      b.write(t.data, image.data(), static_cast<uint32_t>(image.size()));
      co_return w.post(b);
    }
  }
  co_return Status::kOk;
}

Task<Status> pessimistic_read(Worker& w, const LatchedTuple& t, LatchOptimization level,
                              LatchMode mode, std::span<std::byte> out, const RetryPolicy& policy) {
  LW_CHECK(out.size() == t.data_bytes);
  Status s = co_await latch_shared(w, t, level, mode, out, policy);
  if (!ok(s)) co_return s;
  Batch b;
  if (mode == LatchMode::kReaderWriter) b.faa(t.latch, -kR);
  else add_unlatch(b, t, mode);
  // Reads have no WRITE to combine with; asynchronous levels post the unlatch.
  if (level == LatchOptimization::kAsyncUnlatch || level == LatchOptimization::kWriteUnlatch)
    co_return w.post(b);
  co_return co_await w.execute(b);
}

}  // namespace lw
