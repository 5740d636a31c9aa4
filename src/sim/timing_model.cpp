#include "latchwork/sim/timing_model.h"

namespace lw {
namespace {
// Header bytes of a request or response packet (BTH + RETH/AETH, roughly).
constexpr uint64_t kHeaderBytes = 40;
}  // namespace

Nanos SimpleTimingModel::request_flight(const WorkRequest& wr, Rng& rng) {
  uint64_t bytes = kHeaderBytes + (wr.opcode == Opcode::kWrite ? wr.length : 8);
  return c_.one_way_ns + wire(bytes) + rng.below(c_.jitter_ns + 1);
}

Nanos SimpleTimingModel::response_flight(const WorkRequest& wr, Rng& rng) {
  uint64_t bytes = kHeaderBytes + (wr.opcode == Opcode::kRead ? wr.length : 8);
  return c_.one_way_ns + wire(bytes) + rng.below(c_.jitter_ns + 1);
}

}  // namespace lw
