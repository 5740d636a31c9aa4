// The control plane's view of switch-assisted optimistic latching (Jasny et
// al. §5.5, Table 2, Fig. 24): which tuples the switch watches and where their
// versions live in its registers.
//
// A tuple the switch watches, on a memory node:
//
//   byte 0        8                                       tuple_bytes
//   | header (8)  | payload ...............................|
//
//   header: on a WRITE the switch puts the version the write leaves behind
//   (so a recovering switch can reload its versions from the memory nodes);
//   in a READ's response it puts the verification result: the version the
//   read saw, or kSwitchReadInconsistent when the tuple was latched or
//   written while the read was at the memory node.
//
// The packets the switch tells apart (Table 2), by opcode, target and address:
//   Read Tuple      READ at a tuple's first byte      forwarded; verified on the way back
//   Write Tuple     WRITE at a tuple's first byte     forwarded; its ACK unlatches the tuple
//   Latch Tuple     CAS on a version register         answered by the switch (half a round trip):
//                                                     try-latch, returns the old version;
//                                                     the CAS operands are ignored
//   Read Version    8-byte READ of a version register answered by the switch
// Latch Tuple and Read Version travel on the requester's queue pair to the
// tuple's memory node, as they do on the wire; the switch keeps that queue
// pair's packet sequence numbers consistent (PSN offset, Table 2).
#pragma once

#include <cstdint>

#include "latchwork/base/remote_ptr.h"

namespace lw {

struct SwitchTupleMap {
  RemoteAddr tuples;         // the first tuple, on a memory node
  uint32_t tuple_bytes = 0;  // stride: a multiple of 64
  uint64_t count = 0;
  RemoteAddr versions;       // `count` 8-byte registers on the switch node

  RemoteAddr tuple(uint64_t i) const { return tuples + i * tuple_bytes; }
  RemoteAddr version(uint64_t i) const { return versions + i * 8; }
};

// Put in a READ response's header when the switch saw the tuple latched or
// its version change while the READ was at the memory node.
inline constexpr uint64_t kSwitchReadInconsistent = ~uint64_t{0};

}  // namespace lw
