#include "latchwork/sync/optimistic_variants.h"

#include <cstring>
#include <vector>

#include "latchwork/sync/optimistic.h"

namespace lw {
namespace {

// CAS a version word from unlatched to latched, learning it from failures.
Task<Status> latch_word(Worker& w, RemoteAddr word, uint64_t* seen_out, const RetryPolicy& policy) {
  Backoff backoff(policy);
  uint64_t seen = 0;
  Status s = co_await w.read(&seen, word, kWord);
  if (!ok(s)) co_return s;
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    if (!VersionWord::latched(seen)) {
      Result<uint64_t> r = co_await w.cas(word, seen, seen | VersionWord::kLatched);
      if (!r.ok()) co_return r.status;
      if (r.value == seen) {
        *seen_out = seen;
        co_return Status::kOk;
      }
      seen = r.value;
      if (!VersionWord::latched(seen)) continue;
    }
    co_await backoff.wait(w);
    s = co_await w.read(&seen, word, kWord);
    if (!ok(s)) co_return s;
  }
  co_return Status::kRetryExhausted;
}

}  // namespace

Task<Status> reversed_write(Worker& w, const ReversedVersionTuple& t, std::span<const std::byte> payload,
                            const RetryPolicy& policy) {
  LW_CHECK(payload.size() == t.payload_bytes);
  uint64_t old = 0;
  Status s = co_await latch_word(w, t.word(), &old, policy);
  if (!ok(s)) co_return s;
  std::vector<std::byte> image(ReversedVersionTuple::bytes(t.payload_bytes));
  std::memcpy(image.data(), payload.data(), t.payload_bytes);
  const uint64_t next = VersionWord::make(VersionWord::version(old) + 1, false);
  std::memcpy(image.data() + t.payload_bytes, &next, kWord);
  // Write unlatch: the new word is the last bytes of the WRITE.
  co_return co_await w.write(t.base, image.data(), static_cast<uint32_t>(image.size()));
}

Task<Status> reversed_read(Worker& w, const ReversedVersionTuple& t, std::span<std::byte> payload,
                           const RetryPolicy& policy) {
  LW_CHECK(payload.size() == t.payload_bytes);
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    uint64_t before = 0, after = 0;
    Status s = co_await w.read(&before, t.word(), kWord);
    if (!ok(s)) co_return s;
    if (!VersionWord::latched(before)) {
      s = co_await w.read(payload.data(), t.base, t.payload_bytes);
      if (!ok(s)) co_return s;
      s = co_await w.read(&after, t.word(), kWord);
      if (!ok(s)) co_return s;
      if (after == before) co_return Status::kOk;
    }
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Task<Status> out_of_place_write(Worker& w, const OutOfPlaceSlot& s, RemoteAddr fresh,
                                std::span<const std::byte> payload, const RetryPolicy& policy) {
  LW_CHECK(payload.size() == s.payload_bytes && fresh.offset() % 2 == 0);
  Backoff backoff(policy);
  uint64_t cur = 0;
  Status st = co_await w.read(&cur, s.slot, kWord);
  if (!ok(st)) co_return st;
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    if ((cur & OutOfPlaceSlot::kMark) == 0) {
      Result<uint64_t> r = co_await w.cas(s.slot, cur, cur | OutOfPlaceSlot::kMark);
      if (!r.ok()) co_return r.status;
      if (r.value == cur) {
        // Marked: fill the fresh record, then publish it (WRITEs land in order).
        const uint64_t next = fresh.raw();
        Batch b;
        b.write(fresh, payload.data(), s.payload_bytes);
        b.write(s.slot, &next, kWord);
        co_return co_await w.execute(b);
      }
      cur = r.value;
      continue;
    }
    co_await backoff.wait(w);
    st = co_await w.read(&cur, s.slot, kWord);
    if (!ok(st)) co_return st;
  }
  co_return Status::kRetryExhausted;
}

Task<Status> out_of_place_read(Worker& w, const OutOfPlaceSlot& s, std::span<std::byte> payload,
                               const RetryPolicy& policy) {
  LW_CHECK(payload.size() == s.payload_bytes);
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    uint64_t cur = 0;
    Status st = co_await w.read(&cur, s.slot, kWord);
    if (!ok(st)) co_return st;
    if ((cur & OutOfPlaceSlot::kMark) == 0) {
      // Records never change once published: whatever the READ fetches is whole.
      co_return co_await w.read(payload.data(), RemoteAddr::from_raw(cur), s.payload_bytes);
    }
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Task<Status> in_place_marked_write(Worker& w, const InPlaceMarkedTuple& t,
                                   std::span<const std::byte> payload, const RetryPolicy& policy) {
  LW_CHECK(payload.size() == t.payload_bytes);
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Result<uint64_t> r = co_await w.cas(t.base, 0, 1);
    if (!r.ok()) co_return r.status;
    if (r.value == 0) {
      const uint64_t clear = 0;
      Batch b;
      b.write(t.base + kWord, payload.data(), t.payload_bytes);
      b.write(t.base, &clear, kWord);
      co_return co_await w.execute(b);
    }
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Task<Status> in_place_marked_read(Worker& w, const InPlaceMarkedTuple& t, std::span<std::byte> payload,
                                  const RetryPolicy& policy) {
  LW_CHECK(payload.size() == t.payload_bytes);
  Backoff backoff(policy);
  std::vector<std::byte> image(InPlaceMarkedTuple::bytes(t.payload_bytes));
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Status s = co_await w.read(image.data(), t.base, static_cast<uint32_t>(image.size()));
    if (!ok(s)) co_return s;
    uint64_t mark = 0;
    std::memcpy(&mark, image.data(), kWord);
    if (mark == 0) {
      std::memcpy(payload.data(), image.data() + kWord, t.payload_bytes);
      co_return Status::kOk;
    }
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

}  // namespace lw
