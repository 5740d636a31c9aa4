// How long things take in the simulator, and what resources they wait for.
//
// The simulator books each work request's path when it is posted: the CPU
// posting it, the requester NIC and network, the access at the responder, the
// way back. A timing model answers each step given the earliest time it can
// start. The simple model charges fixed costs; the calibrated NIC model
// (nic_model.h) queues requests on NIC processing units, links, PCIe, the
// atomic lock table, caches and doorbells.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "latchwork/base/layout.h"
#include "latchwork/base/random.h"
#include "latchwork/config/cluster_config.h"
#include "latchwork/verbs/worker.h"
#include "latchwork/verbs/work_request.h"

namespace lw {

// Where a work request comes from and goes to.
//
// Symmetric nodes (ALock §4): a memory-node thread's verbs leave from its own
// node's NIC. Its route names compute node `compute_nodes + node` (see
// SimBackend); a verb from it to `node` itself is loopback: it never reaches
// the wire but passes the NIC twice and crosses that NIC's PCIe for every
// DMA (ALock §2, Fig. 1).
struct WrRoute {
  uint32_t compute_node = 0;  // compute node index, or compute_nodes + memory node
  uint32_t thread = 0;          // global index of the posting thread
  uint32_t thread_in_node = 0;
  NodeId memory_node = 0;
};

// An interval in virtual time during which a request touches memory: a READ
// fetches its lines, a WRITE lands them (in address order), an atomic reads
// at `begin` and writes back at `end`. begin == end means one instant.
struct AccessTimes {
  Nanos begin = 0;
  Nanos end = 0;
};

// Receives the time a request spent waiting for a NIC resource (timelines,
// sim/timeline.h). It only records: the run is the same without it.
class WaitRecorder {
 public:
  virtual ~WaitRecorder() = default;
  // `resource` names what was waited for ("lock_table_slot", "pcie", ...;
  // a string literal); the route names the queue pair.
  virtual void record_wait(const char* resource, const WrRoute& r, Nanos start, Nanos end) = 0;
};

class TimingModel {
 public:
  virtual ~TimingModel() = default;

  // The event clock. Nothing will be booked before it again.
  void set_horizon(Nanos now) { horizon_ = now; }
  // Where waits go (null: nowhere, the default).
  void set_wait_recorder(WaitRecorder* w) { waits_ = w; }

  // Requester CPU: posting `n` work requests as one batch (one doorbell),
  // starting at `cpu`. Returns the CPU clock when the NIC has been told.
  virtual Nanos post_batch(const WrRoute& r, const WorkRequest* wrs, uint32_t n, Nanos cpu) = 0;
  // CPU time to poll a completion and resume the coroutine waiting for it.
  virtual Nanos poll_cpu() = 0;
  // CPU time of a load/store/atomic on a memory node.
  virtual Nanos cpu_access() = 0;
  // CPU time of modelled work (checksums, version checks).
  virtual Nanos cpu_work(CpuWork kind, uint64_t units) = 0;

  // From the doorbell until the request is at the responder, ready to access memory.
  virtual Nanos request_path(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) = 0;
  // The READ or WRITE access at the responder, starting no earlier than `start`.
  virtual AccessTimes access(const WrRoute& r, const WorkRequest& wr, bool device, Nanos start) = 0;
  // A NIC atomic at the responder, starting no earlier than `start`.
  virtual AccessTimes atomic(const WrRoute& r, const WorkRequest& wr, bool device, Nanos start) = 0;
  // A CAS that failed writes nothing back: the model may give back the time
  // it booked for the write-back (called at the atomic's read).
  virtual void skip_write_back(const WrRoute&, const WorkRequest&, bool /*device*/,
                               const AccessTimes&) {}
  // From the responder finishing until the completion is in the requester's CQ.
  virtual Nanos response_path(const WrRoute& r, const WorkRequest& wr, Nanos done, Rng& rng) = 0;
  // A request the programmable switch answers itself (Jasny §5.4): from the
  // doorbell until the switch's pipeline processes it.
  virtual Nanos switch_request(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) = 0;
  // From the switch's pipeline until the completion is in the requester's CQ.
  virtual Nanos switch_response(const WrRoute& r, const WorkRequest& wr, Nanos at_switch, Rng& rng) = 0;
  // An RPC to the SmartNIC (Jasny §5.2, Fig. 18): from the doorbell until one
  // of its cores has executed it.
  virtual Nanos smartnic_request(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) = 0;
  // From the core's reply until the completion is in the requester's CQ.
  virtual Nanos smartnic_response(const WrRoute& r, const WorkRequest& wr, Nanos done, Rng& rng) = 0;
  // Two-sided RPC (verbs/rpc.h): a SEND of `bytes` posted at `posted` by the
  // route's thread, until it is in the memory node's receive buffer where
  // its polling cores see it. The default rides the one-sided request path.
  virtual Nanos rpc_request(const WrRoute& r, uint32_t bytes, Nanos posted, Rng& rng);
  // The reply SEND of `bytes`, posted by a polling core at `sent`, until it
  // is in the caller's receive queue. The simulator calls completed() once
  // per call: when the reply is delivered, or a one-way SEND acknowledged.
  virtual Nanos rpc_response(const WrRoute& r, uint32_t bytes, Nanos sent, Rng& rng);
  // The request's completion was delivered (it no longer occupies NIC caches).
  virtual void completed(const WrRoute&) {}
  // Adds the model's counters to `out` at the end of a run.
  virtual void report(std::map<std::string, double>* /*out*/) const {}

 protected:
  // A model calls this wherever a request queues for a resource or pays a
  // miss; empty intervals are not recorded.
  void record_wait(const char* resource, const WrRoute& r, Nanos start, Nanos end) {
    if (waits_ != nullptr && end > start) [[unlikely]] waits_->record_wait(resource, r, start, end);
  }

  Nanos horizon_ = 0;
  WaitRecorder* waits_ = nullptr;
};

// Fixed round trip plus per-byte cost plus uniform jitter; no queueing.
// Loopback (a memory-node thread's verb to its own node, when the model knows
// `compute_nodes`): no one_way_ns and no wire time; instead one pcie_ns each
// way (the NIC fetches the WQE from, and writes the completion to, host
// memory over PCIe), plus the responder's pcie_ns access as for any verb.
class SimpleTimingModel final : public TimingModel {
 public:
  explicit SimpleTimingModel(const TimingConfig& c, uint32_t compute_nodes = ~0u, const MemoryConfig& m = {})
      : c_(c), compute_nodes_(compute_nodes), m_(m) {}
  // The route is a memory-node thread's verb to its own node.
  bool loopback(const WrRoute& r) const {
    return r.compute_node >= compute_nodes_ && r.compute_node - compute_nodes_ == r.memory_node;
  }
  Nanos post_batch(const WrRoute&, const WorkRequest*, uint32_t n, Nanos cpu) override {
    return cpu + n * c_.post_cpu_ns;
  }
  Nanos poll_cpu() override { return c_.poll_cpu_ns; }
  Nanos cpu_access() override { return c_.cpu_access_ns; }
  // The checks only: the fixed-cost model has no CPU table for an
  // operation's own steps (the calibrated NIC model does).
  Nanos cpu_work(CpuWork kind, uint64_t units) override {
    if (kind != CpuWork::kCrc64Byte && kind != CpuWork::kFarmLine) return 0;
    const double per = kind == CpuWork::kCrc64Byte ? c_.crc64_ns_per_byte : c_.farm_check_ns_per_line;
    return static_cast<Nanos>(per * static_cast<double>(units) + 0.5);
  }
  // Inline: the simulator calls these directly for every verb (sim_impl.h).
  Nanos request_path(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) override {
    if (loopback(r)) return posted + c_.pcie_ns + rng.below(c_.jitter_ns + 1);
    const uint64_t bytes = kHeaderBytes + (wr.opcode == Opcode::kWrite ? wr.length : 8);
    return posted + c_.one_way_ns + wire(bytes) + rng.below(c_.jitter_ns + 1);
  }
  AccessTimes access(const WrRoute&, const WorkRequest& wr, bool device, Nanos start) override {
    const Nanos pm = device || !m_.pm() ? 0 : pm_ns(wr);  // no call on DRAM
    const Nanos t = start + (device ? c_.device_memory_ns : c_.pcie_ns) + pm;
    return {t, t};
  }
  AccessTimes atomic(const WrRoute& r, const WorkRequest& wr, bool device, Nanos start) override {
    return access(r, wr, device, start);
  }
  Nanos response_path(const WrRoute& r, const WorkRequest& wr, Nanos done, Rng& rng) override {
    if (loopback(r)) return done + c_.pcie_ns + rng.below(c_.jitter_ns + 1);
    const uint64_t bytes = kHeaderBytes + (wr.opcode == Opcode::kRead ? wr.length : 8);
    return done + c_.one_way_ns + wire(bytes) + rng.below(c_.jitter_ns + 1);
  }
  // Half the one-way delay to the switch and back; a core's time at the SmartNIC.
  Nanos switch_request(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) override;
  Nanos switch_response(const WrRoute& r, const WorkRequest& wr, Nanos at_switch, Rng& rng) override;
  Nanos smartnic_request(const WrRoute& r, const WorkRequest& wr, Nanos posted, Rng& rng) override;
  Nanos smartnic_response(const WrRoute& r, const WorkRequest& wr, Nanos done, Rng& rng) override;
  Nanos rpc_request(const WrRoute& r, uint32_t bytes, Nanos posted, Rng& rng) override;
  Nanos rpc_response(const WrRoute& r, uint32_t bytes, Nanos sent, Rng& rng) override;

 private:
  // Header bytes of a request or response packet (BTH + RETH/AETH, roughly).
  static constexpr uint64_t kHeaderBytes = 40;
  Nanos wire(uint64_t bytes) const { return static_cast<Nanos>(bytes / c_.bytes_per_ns); }
  // Persistent memory (memory_config.h): its extra latency and its media
  // time, without queueing (this model has none); 0 on DRAM.
  Nanos pm_ns(const WorkRequest& wr) const;
  TimingConfig c_;
  uint32_t compute_nodes_;
  MemoryConfig m_;
};

// The model a config asks for: SimpleTimingModel for nic.profile "simple",
// else the calibrated NIC model. The config must be valid.
std::unique_ptr<TimingModel> make_timing_model(const ClusterConfig& c);

}  // namespace lw
