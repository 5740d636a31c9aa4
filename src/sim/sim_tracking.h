// Liveness bookkeeping of the simulator: the last verbs each coroutine
// completed (for SimBackend::blocked()). A few stores per completion; it only
// reads the simulation and never decides anything.
#pragma once

#include <array>
#include <cstdint>

#include "latchwork/base/layout.h"
#include "latchwork/base/remote_ptr.h"
#include "latchwork/base/status.h"
#include "latchwork/verbs/work_request.h"

namespace lw::sim {

inline constexpr Nanos kNever = ~Nanos{0};

// One completed verb as its poster saw it.
struct SeenVerb {
  Opcode opcode = Opcode::kRead;
  Status status = Status::kOk;
  uint32_t length = 0;
  RemoteAddr addr;
  uint64_t value = 0;  // atomics: old value; READ/WRITE: first 8 bytes
  Nanos at = 0;        // completion time
};

// The bytes a verb acts on: an atomic's word, a READ's or WRITE's length.
inline uint32_t verb_length(const WorkRequest& wr) { return is_atomic(wr.opcode) ? 8 : wr.length; }

// A coroutine's last kKeep completions, in a ring.
struct WorkerTrack {
  static constexpr uint32_t kKeep = 4;
  std::array<SeenVerb, kKeep> seen{};
  uint64_t count = 0;  // completions so far; the next goes to seen[count % kKeep]
  Nanos last_completion = 0;
};

}  // namespace lw::sim
