#include "latchwork/sync/switch_latched.h"

#include <cstring>
#include <vector>

#include "latchwork/verbs/switch_program.h"

namespace lw {

Task<Status> switch_latched_write(Worker& w, const SwitchLatchedTuple& t, std::span<const std::byte> payload,
                                  const RetryPolicy& policy) {
  LW_CHECK(payload.size() == t.payload_bytes());
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    // Latch Tuple: the switch ignores the operands and try-latches.
    Result<uint64_t> r = co_await w.cas(t.version, 0, 0);
    if (!r.ok()) co_return r.status;
    if ((r.value & 1) == 0) {
      // The header is the switch's to fill (the version after this write).
      std::vector<std::byte> image(t.tuple_bytes);
      std::memcpy(image.data() + kWord, payload.data(), payload.size());
      // Completion means the ACK passed the switch: the tuple is unlatched.
      co_return co_await w.write(t.tuple, image.data(), t.tuple_bytes);
    }
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Task<Status> switch_latched_read(Worker& w, const SwitchLatchedTuple& t, std::span<std::byte> payload,
                                 bool validate, const RetryPolicy& policy) {
  LW_CHECK(payload.size() == t.payload_bytes());
  Backoff backoff(policy);
  std::vector<std::byte> image(t.tuple_bytes);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Status s = co_await w.read(image.data(), t.tuple, t.tuple_bytes);
    if (!ok(s)) co_return s;
    uint64_t verdict;
    std::memcpy(&verdict, image.data(), kWord);
    if (verdict != kSwitchReadInconsistent) {
      LW_CHECK_MSG((verdict & 1) == 0, "the switch verified a read of a latched tuple");
      bool current = true;
      if (validate) {
        uint64_t now = 0;
        s = co_await w.read(&now, t.version, kWord);  // Read Version: half a round trip
        if (!ok(s)) co_return s;
        current = now == verdict;
      }
      if (current) {
        std::memcpy(payload.data(), image.data() + kWord, payload.size());
        co_return Status::kOk;
      }
    }
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

}  // namespace lw
