#include "latchwork/sim/timing_model.h"

#include "latchwork/base/assert.h"
#include "nic_model.h"

namespace lw {
namespace {
// Header bytes of a request or response packet (BTH + RETH/AETH, roughly).
constexpr uint64_t kHeaderBytes = 40;
}  // namespace

Nanos SimpleTimingModel::request_path(const WrRoute&, const WorkRequest& wr, Nanos posted,
                                      Rng& rng) {
  uint64_t bytes = kHeaderBytes + (wr.opcode == Opcode::kWrite ? wr.length : 8);
  return posted + c_.one_way_ns + wire(bytes) + rng.below(c_.jitter_ns + 1);
}

Nanos SimpleTimingModel::response_path(const WrRoute&, const WorkRequest& wr, Nanos done,
                                       Rng& rng) {
  uint64_t bytes = kHeaderBytes + (wr.opcode == Opcode::kRead ? wr.length : 8);
  return done + c_.one_way_ns + wire(bytes) + rng.below(c_.jitter_ns + 1);
}

std::unique_ptr<TimingModel> make_timing_model(const ClusterConfig& c) {
  if (!c.nic.calibrated()) return std::make_unique<SimpleTimingModel>(c.timing);
  NicProfile profile;
  const std::string e = c.nic.resolve(&profile);
  LW_CHECK_MSG(e.empty(), e.c_str());
  return std::make_unique<sim::NicModel>(c, profile.params);
}

}  // namespace lw
