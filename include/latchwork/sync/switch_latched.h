// Switch-assisted optimistic latching, the client's side (Jasny et al. §5.5,
// Table 2, Figs. 23-25). The switch keeps every watched tuple's version in a
// register (switch_program.h); the memory node holds header + payload:
//
//   tuple on a memory node:   | header (8) | payload ........ |
//   version on the switch:    | version (8) |   even = free, odd = latched
//
//   writer: Latch Tuple = CAS on the version register (answered by the switch
//           in half a round trip; odd old value -> latched by another, retry);
//           Write Tuple = one WRITE of header + payload; the switch unlatches
//           when the memory node's ACK passes it (one round trip, no unlatch
//           message).
//   reader: Read Tuple = one READ; the switch puts its verdict in the header
//           (the version it saw, or kSwitchReadInconsistent); retry on the
//           latter. With latch semantics (§4) a Read Version (half a round
//           trip) confirms the version is still the one the READ saw.
// Correct whatever order the memory node fetches the lines in: the verdict
// compares versions at the switch before the READ reaches the memory node and
// after its last line left it, and every write is latched over that span.
#pragma once

#include <span>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/sync/retry.h"

namespace lw {

struct SwitchLatchedTuple {
  RemoteAddr tuple;     // header + payload, on a memory node
  RemoteAddr version;   // its register on the switch
  uint32_t tuple_bytes; // a multiple of 64
  uint32_t payload_bytes() const { return tuple_bytes - kWord; }
};

Task<Status> switch_latched_write(Worker& w, const SwitchLatchedTuple& t, std::span<const std::byte> payload,
                                  const RetryPolicy& policy = {});
// `validate`: latch semantics (a final Read Version); false: the consistent
// read of §6 (the switch's verdict alone).
Task<Status> switch_latched_read(Worker& w, const SwitchLatchedTuple& t, std::span<std::byte> payload,
                                 bool validate, const RetryPolicy& policy = {});

}  // namespace lw
