// The `sim` backend: a deterministic discrete-event simulator of the whole
// cluster in one OS thread.
//
// Every coroutine of every simulated thread runs here in virtual time. All
// randomness (latency jitter, relaxation windows, line fetch order) comes from
// one generator seeded by the config, and every decision is folded into a
// rolling trace hash: the same seed and config give the same execution and the
// same hash. The semantics contract (config/semantics.h) decides which of the
// RDMA relaxations are in effect.
#pragma once

#include <memory>

#include "latchwork/sim/timing_model.h"
#include "latchwork/verbs/backend.h"

namespace lw {

class RelaxationLog;

class SimBackend final : public Backend {
 public:
  explicit SimBackend(const ClusterConfig& config);
  ~SimBackend() override;

  std::string_view name() const override { return "sim"; }
  const ClusterConfig& config() const override;
  Capabilities capabilities() const override;
  Status install_switch_tuples(const SwitchTupleMap& map) override;

  RemoteAddr allocate(NodeId memory_node, uint64_t bytes, uint64_t align = kCacheLine) override;
  RemoteAddr allocate_device_memory(NodeId memory_node, uint64_t bytes) override;
  void host_write(RemoteAddr dst, const void* src, uint64_t bytes) override;
  void host_read(RemoteAddr src, void* dst, uint64_t bytes) override;

  void spawn(Placement where, WorkerMain main) override;
  RunStats run() override;

  // Replaces the timing model (before run()).
  void set_timing_model(std::unique_ptr<TimingModel> model);
  // Stops run() after this many events, with RunStats::budget_exhausted set
  // (a bound on runaway programs). Default: config().budget.max_events.
  void set_event_limit(uint64_t limit);
  // Records each weak behaviour a relaxation produces into `log` (before
  // run(); null, the default, turns it off). Logging changes no decision:
  // the trace hash is the same with and without a log.
  void set_relaxation_log(RelaxationLog* log);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace lw
