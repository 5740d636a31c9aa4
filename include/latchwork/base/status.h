// Completion statuses of remote operations, modelled on ibv_wc_status.
//
// Misuse completes the operation with an error, as a NIC would, and never
// touches memory.
#pragma once

#include <cstdint>
#include <string_view>

namespace lw {

enum class Status : uint8_t {
  kOk = 0,
  kOutOfBounds,    // range not inside a registered region (IBV_WC_REM_ACCESS_ERR)
  kMisaligned,     // atomic not 8-byte aligned (IBV_WC_REM_INV_REQ_ERR)
  kUnregistered,   // no memory region on that node at that address
  kWrongNode,      // node id names no memory node, or local access off-node
  kBadLength,      // zero or oversized transfer
  kQueueFull,      // more outstanding work requests than the queue pair holds
  kFlushed,        // an earlier operation on the queue pair failed (IBV_WC_WR_FLUSH_ERR)
  kRetryExhausted, // a bounded retry loop gave up (latches, not the NIC)
  kUnsupported,    // the backend lacks the capability (e.g. device memory)
  kTransport,      // the memory node stopped answering: timeout, retries exhausted, link lost
};

std::string_view to_string(Status s);

constexpr bool ok(Status s) { return s == Status::kOk; }

// A value or an error status, for operations that return data.
template <typename T>
struct Result {
  Status status = Status::kOk;
  T value{};

  constexpr bool ok() const { return status == Status::kOk; }
};

}  // namespace lw
