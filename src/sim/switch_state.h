// The programmable switch's data-plane state in the simulator (Jasny et al.
// §5.4-5.5, Table 2, Fig. 24). The registers themselves are the switch node's
// memory; this is the program's match rules and per-client bookkeeping.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "latchwork/verbs/switch_program.h"
#include "latchwork/verbs/work_request.h"
#include "latchwork/verbs/worker.h"

namespace lw::sim {

struct QueuePair;

// The packet types of Table 2 (plus plain register access, §5.4).
enum class SwitchPacket : uint8_t {
  kNone,          // not the switch's business (passes through)
  kRegister,      // any verb on a register (§5.4 atomics)
  kReadTuple,     // READ at a watched tuple: verified on the way back
  kWriteTuple,    // WRITE at a watched tuple: its ACK unlatches
  kLatchTuple,    // CAS on a version register: try-latch
  kReadVersion,   // READ of a version register
};

// A request the requester retransmitted: it reaches the switch a second time.
struct SwitchDuplicate {
  const QueuePair* client = nullptr;  // the client-id of Fig. 24 (destination IP + QP)
  Placement who;                      // the requester (for the relaxation log)
  uint64_t psn = 0;
  bool response = false;  // the duplicate is a WRITE's ACK, not a request
  SwitchPacket kind = SwitchPacket::kNone;
  WorkRequest wr;         // opcode, address and operands (no buffers)
  std::vector<std::byte> payload;  // a WRITE's data
  uint32_t map = 0;
  uint64_t tuple = 0;
};

struct SwitchState {
  std::vector<SwitchTupleMap> maps;  // installed by the control plane
  // Duplicate suppression (§5.5): the last PSN processed per client, for
  // requests the switch answers and for the ACKs it unlatches on.
  std::unordered_map<const QueuePair*, uint64_t> last_request_psn, last_ack_psn;
  // In flight, by the id their event carries.
  std::unordered_map<uint32_t, SwitchDuplicate> duplicates;
  uint32_t next_duplicate = 0;
  std::map<std::string, double> counters;

  static constexpr size_t kMaxMaps = 64;

  // The watched tuple starting exactly at `a`.
  bool tuple_at(RemoteAddr a, uint32_t* map, uint64_t* index) const {
    for (uint32_t m = 0; m < maps.size(); ++m) {
      const SwitchTupleMap& t = maps[m];
      if (a.node() != t.tuples.node() || a.offset() < t.tuples.offset()) continue;
      const uint64_t d = a.offset() - t.tuples.offset();
      if (d % t.tuple_bytes != 0 || d / t.tuple_bytes >= t.count) continue;
      *map = m;
      *index = d / t.tuple_bytes;
      return true;
    }
    return false;
  }
  // The version register at `a`.
  bool version_at(RemoteAddr a, uint32_t* map, uint64_t* index) const {
    for (uint32_t m = 0; m < maps.size(); ++m) {
      const SwitchTupleMap& t = maps[m];
      if (a.node() != t.versions.node() || a.offset() < t.versions.offset()) continue;
      const uint64_t d = a.offset() - t.versions.offset();
      if (d % 8 != 0 || d / 8 >= t.count) continue;
      *map = m;
      *index = d / 8;
      return true;
    }
    return false;
  }
  void count(const char* name, double by = 1) { counters[std::string("switch.") + name] += by; }
};

}  // namespace lw::sim
