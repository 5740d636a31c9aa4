#include "latchwork/sim/timing_model.h"

#include "latchwork/base/assert.h"
#include "nic_model.h"

namespace lw {

Nanos SimpleTimingModel::pm_ns(const WorkRequest& wr) const {
  if (!m_.pm()) return 0;
  const double media = static_cast<double>(m_.pm_media_bytes(is_atomic(wr.opcode) ? 8 : wr.length));
  const double read = media / m_.pm_read_bytes_per_ns, write = media / m_.pm_write_bytes_per_ns;
  // An atomic reads and writes back its line.
  if (is_atomic(wr.opcode))
    return m_.pm_read_extra_ns + m_.pm_write_extra_ns + static_cast<Nanos>(read + write + 0.5);
  if (wr.opcode == Opcode::kRead) return m_.pm_read_extra_ns + static_cast<Nanos>(read + 0.5);
  return m_.pm_write_extra_ns + static_cast<Nanos>(write + 0.5);
}

Nanos SimpleTimingModel::switch_request(const WrRoute&, const WorkRequest& wr, Nanos posted, Rng& rng) {
  uint64_t bytes = kHeaderBytes + (wr.opcode == Opcode::kWrite ? wr.length : 8);
  return posted + c_.one_way_ns / 2 + wire(bytes) + c_.switch_pipeline_ns + rng.below(c_.jitter_ns + 1);
}

Nanos SimpleTimingModel::switch_response(const WrRoute&, const WorkRequest& wr, Nanos at_switch, Rng& rng) {
  uint64_t bytes = kHeaderBytes + (wr.opcode == Opcode::kRead ? wr.length : 8);
  return at_switch + c_.one_way_ns / 2 + wire(bytes) + rng.below(c_.jitter_ns + 1);
}

Nanos SimpleTimingModel::smartnic_request(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) {
  return request_path(r, wr, posted, rng) + c_.smartnic_rpc_ns;  // no queueing in this model
}

Nanos SimpleTimingModel::smartnic_response(const WrRoute& r, const WorkRequest& wr, Nanos done, Rng& rng) {
  return response_path(r, wr, done, rng);
}

namespace {
// A SEND looks like a WRITE of its payload on the wire.
WorkRequest send_of(uint32_t bytes) {
  WorkRequest wr;
  wr.opcode = Opcode::kWrite;
  wr.length = bytes;
  return wr;
}
}  // namespace

Nanos TimingModel::rpc_request(const WrRoute& r, uint32_t bytes, Nanos posted, Rng& rng) {
  const WorkRequest wr = send_of(bytes);
  return access(r, wr, false, request_path(r, wr, posted, rng)).end;
}

Nanos TimingModel::rpc_response(const WrRoute& r, uint32_t bytes, Nanos sent, Rng& rng) {
  WorkRequest wr = send_of(bytes);
  wr.opcode = Opcode::kRead;  // the reply's payload flows back like READ data
  return response_path(r, wr, sent, rng);
}

// Both messages cross the wire once each; no NIC queueing in this model.
Nanos SimpleTimingModel::rpc_request(const WrRoute&, uint32_t bytes, Nanos posted, Rng& rng) {
  return posted + c_.one_way_ns + wire(kHeaderBytes + bytes) + rng.below(c_.jitter_ns + 1) + c_.pcie_ns;
}

Nanos SimpleTimingModel::rpc_response(const WrRoute&, uint32_t bytes, Nanos sent, Rng& rng) {
  return sent + c_.one_way_ns + wire(kHeaderBytes + bytes) + rng.below(c_.jitter_ns + 1);
}

std::unique_ptr<TimingModel> make_timing_model(const ClusterConfig& c) {
  if (!c.nic.calibrated()) return std::make_unique<SimpleTimingModel>(c.timing, c.compute_nodes, c.memory);
  NicProfile profile;
  const std::string e = c.nic.resolve(&profile);
  LW_CHECK_MSG(e.empty(), e.c_str());
  return std::make_unique<sim::NicModel>(c, profile.params);
}

}  // namespace lw
