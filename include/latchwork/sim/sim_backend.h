// The `sim` backend: a deterministic discrete-event simulator of the whole
// cluster in one OS thread.
//
// Every coroutine of every simulated thread runs here in virtual time. All
// randomness (latency jitter, relaxation windows, line fetch order) comes from
// one generator seeded by the config, and every decision is folded into a
// rolling trace hash: the same seed and config give the same execution and the
// same hash. The semantics contract (config/semantics.h) decides which of the
// RDMA relaxations are in effect.
//
// Failures: an exception that ends a worker's main Task, or an
// InvariantViolation thrown anywhere in the event loop (ThrowOnInvariant,
// base/assert.h), stops run(), which frees every request in flight and
// rethrows it; the backend can then only be inspected and destroyed.
#pragma once

#include <memory>
#include <vector>

#include "latchwork/sim/blocked_worker.h"
#include "latchwork/sim/crash.h"
#include "latchwork/sim/timing_model.h"
#include "latchwork/verbs/backend.h"

namespace lw {

class RelaxationLog;
class VerbTrace;

class SimBackend final : public Backend {
 public:
  explicit SimBackend(const ClusterConfig& config);
  ~SimBackend() override;

  std::string_view name() const override { return "sim"; }
  const ClusterConfig& config() const override;
  Capabilities capabilities() const override;
  Status install_switch_tuples(const SwitchTupleMap& map) override;
  // Two-sided RPC: handlers run on each memory node's config().rpc polling
  // cores in virtual time (the built-ins are registered at construction).
  Result<HandlerId> register_handler(const RpcHandler& h) override;

  RemoteAddr allocate(NodeId memory_node, uint64_t bytes, uint64_t align = kCacheLine) override;
  RemoteAddr allocate_device_memory(NodeId memory_node, uint64_t bytes) override;
  void host_write(RemoteAddr dst, const void* src, uint64_t bytes) override;
  void host_read(RemoteAddr src, void* dst, uint64_t bytes) override;
  void host_install_image(NodeId node, const HostImage& img) override;
  bool can_install_host_images() const override { return true; }

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
  // Ablation (before run()): a switch on in `as_if` but off in the config
  // keeps its random draws and its delays, not its effect -- a lagging READ
  // fetches in order and answers as late, a staggered WRITE lands whole at
  // its last line's instant, an atomic keeps its window but loses nothing.
  // So switching a relaxation off does not move the rest of the run's
  // timing unless the relaxation acted. The windows are the config's.
  void hold_timing(const Semantics& as_if);

  // Liveness (before run()). The watchdog stops run() with RunStats::stalled
  // when, with workers unfinished, virtual time passes *last_progress + span;
  // the workload advances *last_progress (e.g. to w.now() after each
  // completed operation). It only reads: a run it does not stop is unchanged.
  void set_watchdog(const Nanos* last_progress, Nanos span);
  // A deadlock (nothing left to happen, workers unfinished) ends run() with
  // RunStats::stalled instead of an invariant violation. Implied by a watchdog.
  void set_report_stalls(bool on);
  // After a run that stopped short (stalled or out of budget): one entry per
  // unfinished worker, in spawn order, saying what it waits on and what it
  // last saw. Empty otherwise.
  std::vector<BlockedWorker> blocked() const;
  // Records every work request into `trace` (before run(); null: off).
  // Recording changes no decision: the trace hash is the same without it.
  void set_verb_trace(VerbTrace* trace);
  // Sends the timing model's NIC waits to `waits` (before run(); null: off;
  // kept across set_timing_model). Recording changes no decision.
  void set_wait_recorder(WaitRecorder* waits);
  // Crash injection (sim/crash.h; before run()): `spec.victim` must be a
  // compute worker of the config. A run without it never crashes.
  void set_crash(const CrashSpec& spec);
  // After run(): what the crash stopped and what its requests did.
  const CrashRecord& crash() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace lw
