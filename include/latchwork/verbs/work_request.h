// Work requests: the one-sided verbs a compute thread posts to a memory node.
#pragma once

#include <cstdint>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/base/status.h"

namespace lw {

enum class Opcode : uint8_t {
  kRead,       // remote -> local, `length` bytes
  kWrite,      // local -> remote, `length` bytes
  kCas,        // 8-byte compare-and-swap; old value returned
  kFaa,        // 8-byte fetch-and-add; old value returned
  kMaskedCas,  // compare and swap only the bits of the masks
  kMaskedFaa,  // add within fields; carries stop at field boundaries
};

const char* to_string(Opcode op);
constexpr bool is_atomic(Opcode op) { return op != Opcode::kRead && op != Opcode::kWrite; }

// Maximum bytes of one READ or WRITE (InfiniBand allows 2^31; we keep it small
// enough that a single request cannot swamp the simulator).
inline constexpr uint32_t kMaxTransferBytes = 1u << 24;

struct WorkRequest {
  Opcode opcode = Opcode::kRead;
  // Generate a completion. Unsignaled requests complete silently; a later
  // signaled request on the same queue pair completes them passively.
  bool signaled = true;
  // Do not start before earlier READs and atomics on this queue pair finished
  // (IBV_SEND_FENCE).
  bool fence = false;
  uint32_t length = 0;      // READ/WRITE bytes; atomics are always 8
  RemoteAddr remote;
  void* local = nullptr;    // READ destination or WRITE source
  uint64_t compare = 0;     // CAS: expected value
  uint64_t operand = 0;     // CAS: new value; FAA: addend
  uint64_t compare_mask = ~uint64_t{0};  // masked CAS: bits compared
  uint64_t swap_mask = ~uint64_t{0};     // masked CAS: bits replaced
  uint64_t field_mask = 0;  // masked FAA: set bits mark the top bit of each field

  // Filled in when the request completes.
  Status status = Status::kOk;
  uint64_t old_value = 0;   // atomics: the word before the operation
};

// The result of an atomic on `old`, shared by every backend so they agree bit
// for bit. Returns whether the operation writes back (a failed CAS does not).
bool apply_atomic(const WorkRequest& wr, uint64_t old, uint64_t* new_value);

// Field-wise add for masked FAA: bit i of `field_mask` set means bit i is the
// most significant bit of a field, and a carry out of it is dropped.
uint64_t masked_add(uint64_t old, uint64_t add, uint64_t field_mask);

}  // namespace lw
