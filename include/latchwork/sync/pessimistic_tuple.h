// Pessimistic access to a latched tuple with the latch optimizations of
// Jasny et al. §3.3, Fig. 7. The latch is a reader/writer word (RwLatch:
// bit 0 exclusive, readers count in steps of 2) or, in exclusive-only mode,
// a single-mode latch that readers also take by CAS (RCC-NOWAIT style).
//
//   level            exclusive update (RDMA round trips)          shared read
//   basic            CAS | READ | WRITE | unlatch                  FAA | READ | FAA
//   speculative      [CAS, READ] | WRITE | unlatch                 [FAA, READ] | FAA
//   write-combining  [CAS, READ] | [WRITE, unlatch]                [FAA, READ] | FAA
//   async-unlatch    [CAS, READ] | post [WRITE, unlatch], no wait  [FAA, READ] | post FAA
//   write-unlatch    [CAS, READ] | WRITE data + free latch word    as async-unlatch
//
// [a, b] is one batch on one queue pair: a NIC atomic executes before later
// requests of its QP, so the READ sees the data the CAS protects (the
// speculative READ is thrown away when the CAS fails). Unlatch is FAA(-1)
// for a reader/writer latch (a CAS would fail against a reader's transient
// increment) and CAS 1 -> 0 for an exclusive-only latch.
//
// Asynchronous unlatch may reuse the write buffer at once: the verbs API
// copies a posted WRITE's source when it is posted (the buffer-reuse rule
// of §3.3 is kept by the backend).
//
// Write unlatch needs the footer layout (latch right after the data) and
// works only with CAS-only latches: a reader's FAA that reads the latched
// word before the unlatch WRITE lands writes the latched value back and the
// unlatch is lost (§3.3); a reader's FAA(-2) after the WRITE also breaks the
// count. Kept as a negative control with FAA readers.
#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/sync/retry.h"

namespace lw {

enum class LatchOptimization : uint8_t {
  kBasic,
  kSpeculativeRead,
  kWriteCombining,
  kAsyncUnlatch,
  kWriteUnlatch,
};
const char* to_string(LatchOptimization o);
bool parse_latch_optimization(std::string_view name, LatchOptimization* out);

enum class LatchMode : uint8_t {
  kReaderWriter,   // readers FAA, writers CAS
  kExclusiveOnly,  // everyone CASes 0 -> 1
};

struct LatchedTuple {
  RemoteAddr latch;  // 8-byte latch word
  RemoteAddr data;   // data_bytes of data (for write unlatch the latch follows it)
  uint32_t data_bytes = 0;
};

// When the latch was held, for mutual-exclusion checks. `released` is when
// the unlatch was posted: the latch is free no earlier than that.
struct HoldTimes {
  Nanos acquired = 0;
  Nanos released = 0;
};

// Latches exclusively, reads the data into `buf` (data_bytes long), lets
// `modify` change it, writes it back and unlatches, at optimization `level`.
Task<Status> pessimistic_update(Worker& w, const LatchedTuple& t, LatchOptimization level,
                                LatchMode mode, std::span<std::byte> buf,
                                const std::function<void(std::span<std::byte>)>& modify,
                                HoldTimes* hold = nullptr, const RetryPolicy& policy = {});

// Latches shared (exclusive in exclusive-only mode), reads the data, unlatches.
Task<Status> pessimistic_read(Worker& w, const LatchedTuple& t, LatchOptimization level,
                              LatchMode mode, std::span<std::byte> out,
                              const RetryPolicy& policy = {});

}  // namespace lw
