// How long things take in the simulator. The simple model charges fixed costs;
// a calibrated NIC model plugs in behind the same interface.
#pragma once

#include <memory>

#include "latchwork/base/layout.h"
#include "latchwork/base/random.h"
#include "latchwork/config/cluster_config.h"
#include "latchwork/verbs/work_request.h"

namespace lw {

class TimingModel {
 public:
  virtual ~TimingModel() = default;
  // CPU time the posting thread spends on one work request.
  virtual Nanos post_cpu(const WorkRequest& wr) = 0;
  // CPU time to poll a completion and switch to the waiting coroutine.
  virtual Nanos poll_cpu() = 0;
  // CPU time of a load/store/atomic on a memory node.
  virtual Nanos cpu_access() = 0;
  // From posting until the request reaches the responder NIC.
  virtual Nanos request_flight(const WorkRequest& wr, Rng& rng) = 0;
  // Responder NIC to the bytes: PCIe to host memory, or on-chip device memory.
  virtual Nanos memory_access(bool device_memory) = 0;
  // From the responder finishing until the completion is in the requester's CQ.
  virtual Nanos response_flight(const WorkRequest& wr, Rng& rng) = 0;
};

// Fixed round trip plus per-byte cost plus uniform jitter.
class SimpleTimingModel final : public TimingModel {
 public:
  explicit SimpleTimingModel(const TimingConfig& c) : c_(c) {}
  Nanos post_cpu(const WorkRequest&) override { return c_.post_cpu_ns; }
  Nanos poll_cpu() override { return c_.poll_cpu_ns; }
  Nanos cpu_access() override { return c_.cpu_access_ns; }
  Nanos request_flight(const WorkRequest& wr, Rng& rng) override;
  Nanos memory_access(bool device_memory) override {
    return device_memory ? c_.device_memory_ns : c_.pcie_ns;
  }
  Nanos response_flight(const WorkRequest& wr, Rng& rng) override;

 private:
  Nanos wire(uint64_t bytes) const { return static_cast<Nanos>(bytes / c_.bytes_per_ns); }
  TimingConfig c_;
};

}  // namespace lw
