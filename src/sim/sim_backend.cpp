// Set-up and run() of the simulator: starting the workers, the run's stop
// reports and statistics. The event loop itself is in sim_ops.cpp, beside
// dispatch, and coroutine scheduling (make_ready, run_now) in sim_impl.h.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>

#include "latchwork/verbs/rpc_builtin.h"
#include "sim_impl.h"

namespace lw {

using sim::Coroutine;
using sim::Event;
using sim::EventKind;
using sim::Thread;

SimBackend::Impl::Impl(const ClusterConfig& c)
    : cfg(c), sem(cfg.semantics), tsem(cfg.semantics), rng(c.seed) {
  std::string err = cfg.validate();
  LW_CHECK_MSG(err.empty(), "invalid cluster config: " + err);
  set_timing(make_timing_model(cfg));
  if (cfg.network.programmable_switch.optimistic_latching()) watched_switch = cfg.switch_node();
  event_limit = cfg.budget.max_events;
  for (uint32_t m = 0; m < cfg.memory_nodes; ++m)
    memory.push_back(std::make_unique<sim::MemoryNode>(cfg.memory_node_bytes, cfg.device_memory_bytes, m));
  // Smart network hardware after the memory nodes, in the order of
  // switch_node() and smartnic_node().
  if (cfg.network.programmable_switch.enabled)
    memory.push_back(std::make_unique<sim::MemoryNode>(
        NodeMemory::kReservedBytes + uint64_t{cfg.network.programmable_switch.registers} * kWord, 0,
        static_cast<uint32_t>(memory.size()), sim::NodeKind::kSwitch));
  if (cfg.network.smartnic.enabled)
    memory.push_back(std::make_unique<sim::MemoryNode>(cfg.network.smartnic.memory_bytes, 0,
                                                       static_cast<uint32_t>(memory.size()), sim::NodeKind::kSmartNic));
  auto add_thread = [&](Placement p) {
    auto t = std::make_unique<Thread>();
    t->base = p;
    t->route.compute_node = p.on_memory_node() ? cfg.compute_nodes + p.node : p.node;
    t->route.thread = static_cast<uint32_t>(threads.size());
    t->route.thread_in_node = p.thread;
    t->qps.resize(memory.size());
    threads.push_back(std::move(t));
  };
  for (uint32_t n = 0; n < cfg.compute_nodes; ++n)
    for (uint32_t i = 0; i < cfg.threads_per_node; ++i)
      add_thread({Placement::Kind::kCompute, n, i, 0});
  for (uint32_t m = 0; m < cfg.memory_nodes; ++m)
    for (uint32_t i = 0; i < cfg.memory_node_threads; ++i)
      add_thread({Placement::Kind::kMemory, m, i, 0});
  rpc.nodes.resize(cfg.memory_nodes);
  for (sim::RpcNode& n : rpc.nodes) n.serving.assign(cfg.rpc.cores_per_node, nullptr);
  for (const RpcHandler& h : builtin_rpc_handlers()) LW_CHECK(ok(register_handler(h).status));
}

SimBackend::SimBackend(const ClusterConfig& config) : impl_(std::make_unique<Impl>(config)) {}
SimBackend::~SimBackend() = default;

const ClusterConfig& SimBackend::config() const { return impl_->cfg; }

void SimBackend::set_timing_model(std::unique_ptr<TimingModel> model) {
  LW_CHECK(!impl_->ran && model);
  impl_->set_timing(std::move(model));
}

void SimBackend::set_event_limit(uint64_t limit) { impl_->event_limit = limit; }

void SimBackend::set_relaxation_log(RelaxationLog* log) {
  LW_CHECK_MSG(!impl_->ran, "set the relaxation log before run()");
  impl_->log = log;
}

void SimBackend::hold_timing(const Semantics& as_if) {
  LW_CHECK_MSG(!impl_->ran, "hold timing before run()");
  Semantics& t = impl_->tsem;
  t = impl_->sem;
  for (const Semantics::Switch& sw : Semantics::switches()) t.*(sw.field) = t.*(sw.field) || as_if.*(sw.field);
}

void SimBackend::set_watchdog(const Nanos* last_progress, Nanos span) {
  LW_CHECK_MSG(!impl_->ran, "set the watchdog before run()");
  LW_CHECK_MSG(last_progress != nullptr, "the watchdog needs a progress clock");
  impl_->watch_progress = last_progress;
  impl_->watch_span = span;
}

void SimBackend::set_report_stalls(bool on) { impl_->report_stalls = on; }

std::vector<BlockedWorker> SimBackend::blocked() const { return impl_->blocked; }

void SimBackend::set_verb_trace(VerbTrace* trace) {
  LW_CHECK_MSG(!impl_->ran, "set the verb trace before run()");
  impl_->verb_trace = trace;
}

void SimBackend::set_wait_recorder(WaitRecorder* waits) {
  LW_CHECK_MSG(!impl_->ran, "set the wait recorder before run()");
  impl_->waits = waits;
  impl_->timing->set_wait_recorder(waits);
}

void SimBackend::set_crash(const CrashSpec& spec) {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "set the crash before run()");
  const Placement& v = spec.victim;
  LW_CHECK_MSG(!v.on_memory_node() && v.node < s.cfg.compute_nodes && v.thread < s.cfg.threads_per_node &&
                   v.coroutine < s.cfg.coroutines_per_thread,
               "the crash victim must be a compute worker of the cluster");
  LW_CHECK_MSG(spec.at_submission >= 1, "the crash point is a 1-based submission count");
  s.crash_set = true;
  s.crash_spec = spec;
}

const CrashRecord& SimBackend::crash() const { return impl_->crash_record; }

Capabilities SimBackend::capabilities() const {
  Capabilities c;
  c.deterministic = true;
  c.failed_cas_writes_back = impl_->cfg.semantics.failed_cas_writes_back;
  c.programmable_switch = impl_->cfg.network.programmable_switch.enabled;
  c.switch_optimistic_latching = impl_->cfg.network.programmable_switch.optimistic_latching();
  c.smartnic = impl_->cfg.network.smartnic.enabled;
  c.rpc = true;
  return c;
}

Result<HandlerId> SimBackend::register_handler(const RpcHandler& h) {
  LW_CHECK_MSG(!impl_->ran, "register handlers before run()");
  return impl_->register_handler(h);
}

Status SimBackend::install_switch_tuples(const SwitchTupleMap& map) {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "install switch rules before run()");
  if (!s.cfg.network.programmable_switch.optimistic_latching()) return Status::kUnsupported;
  if (s.sw.maps.size() >= sim::SwitchState::kMaxMaps) return Status::kQueueFull;
  if (map.tuples.node() >= s.cfg.memory_nodes || map.versions.node() != s.cfg.switch_node())
    return Status::kWrongNode;
  if (map.tuple_bytes < kCacheLine || map.tuple_bytes % kCacheLine != 0 || map.count == 0 ||
      map.count > (uint64_t{1} << 32))
    return Status::kBadLength;
  if (map.tuples.offset() % kCacheLine != 0 || map.versions.offset() % kWord != 0) return Status::kMisaligned;
  // The first and the last tuple and register must be inside their nodes.
  const NodeMemory& tuples = s.memory[map.tuples.node()]->mem;
  const NodeMemory& regs = s.memory[map.versions.node()]->mem;
  for (uint64_t i : {uint64_t{0}, map.count - 1}) {
    if (Status st = tuples.check(map.tuple(i).offset(), map.tuple_bytes, false); st != Status::kOk) return st;
    if (Status st = regs.check(map.version(i).offset(), kWord, true); st != Status::kOk) return st;
  }
  s.sw.maps.push_back(map);
  return Status::kOk;
}

RemoteAddr SimBackend::allocate(NodeId node, uint64_t bytes, uint64_t align) {
  if (node >= impl_->memory.size()) return {};
  uint64_t off = impl_->memory[node]->mem.allocate(bytes, align);
  return off ? RemoteAddr(node, off) : RemoteAddr();
}

RemoteAddr SimBackend::allocate_device_memory(NodeId node, uint64_t bytes) {
  if (node >= impl_->memory.size()) return {};
  uint64_t off = impl_->memory[node]->mem.allocate_device(bytes, kWord);
  return off ? RemoteAddr(node, off) : RemoteAddr();
}

void SimBackend::host_write(RemoteAddr dst, const void* src, uint64_t bytes) {
  LW_CHECK(dst.node() < impl_->memory.size());
  impl_->memory[dst.node()]->mem.host_copy_in(dst.offset(), src, bytes);
}

void SimBackend::host_read(RemoteAddr src, void* dst, uint64_t bytes) {
  LW_CHECK(src.node() < impl_->memory.size());
  impl_->memory[src.node()]->mem.host_copy_out(src.offset(), dst, bytes);
}

void SimBackend::host_install_image(NodeId node, const HostImage& img) {
  LW_CHECK(node < impl_->memory.size());
  LW_CHECK_MSG(!impl_->ran, "host_install_image after run");
  impl_->memory[node]->mem.install_image(img);
}

void SimBackend::spawn(Placement p, WorkerMain main) {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "spawn after run");
  const size_t index = thread_index(s.cfg, p);
  auto co = std::make_unique<Coroutine>(&s, s.threads[index].get(), p, worker_seed(s.cfg.seed, p),
                                        std::move(main));
  co->task = co->main(co->worker);
  LW_CHECK_MSG(co->task.valid(), "worker main returned an empty Task");
  s.coroutines.push_back(std::move(co));
}

RunStats SimBackend::run() {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "a SimBackend runs once");
  s.ran = true;
  for (auto& m : s.memory) m->mem.settle();  // a kept image not installed again reads zero
  auto wall_start = std::chrono::steady_clock::now();  // reported, never decides anything
  // The context names this run only while it runs, however run() ends.
  struct ContextReset {
    ~ContextReset() { set_run_context({}); }
  } context_reset;
  {
    std::ostringstream os;
    os << "sim seed=" << s.cfg.seed << " semantics=" << s.cfg.semantics_profile
       << " (replay: the same command with --seed " << s.cfg.seed << ")";
    set_run_context(os.str());
  }
  uint64_t processed = 0;
  std::string exhausted, stalled;
  try {
    if (s.crash_set) {
      s.crash_record.spec = s.crash_spec;
      const Placement& v = s.crash_spec.victim;
      for (auto& co : s.coroutines) {
        const Placement& p = co->worker.placement();
        if (!p.on_memory_node() && p.node == v.node && p.thread == v.thread && p.coroutine == v.coroutine)
          s.crash_victim = co.get();
      }
    }
    // Start every coroutine at a small random offset so races differ per seed.
    for (auto& co : s.coroutines) {
      co->resume_point = co->task.handle();
      s.events.push(s.draw(s.cfg.timing.jitter_ns + 1), EventKind::kWake, co.get());
    }
    processed = s.run_events(wall_start, &exhausted, &stalled);
  } catch (...) {
    // A worker's exception or a violated invariant: nothing will run again.
    s.drop_in_flight();
    throw;
  }
  const size_t unfinished = s.coroutines.size() - s.finished;
  if (exhausted.empty() && stalled.empty() && unfinished != 0) {
    std::ostringstream os;
    if (!s.report_stalls && s.watch_progress == nullptr) {
      os << "deadlock: " << unfinished << " of " << s.coroutines.size()
         << " coroutines are suspended with nothing left to wake them";
      invariant_failed("all coroutines finished", __FILE__, __LINE__, os.str());
    }
    os << "deadlock: " << unfinished << " of " << s.coroutines.size()
       << " workers are suspended with nothing left to wake them";
    stalled = os.str();
  }
  // Stopped short: the requests still in flight are only referenced by their
  // pending events, which will never run. Say who waits on what, then free them.
  if (!exhausted.empty() || !stalled.empty()) s.stop_short();
  RunStats stats;
  stats.elapsed_ns = s.now;
  stats.verbs = s.verbs;
  stats.events = processed;
  stats.trace_hash = s.trace.value();
  stats.budget_exhausted = std::move(exhausted);
  stats.stalled = std::move(stalled);
  s.timing->report(&stats.counters);
  s.rpc_report(&stats.counters);
  for (const auto& [name, value] : s.sw.counters) stats.counters[name] = value;
  stats.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return stats;
}

namespace sim {

bool Coroutine::sleep(Nanos ns, std::coroutine_handle<> waiter) {
  resume_point = waiter;
  sim->events.push(thread->cur + ns, EventKind::kWake, this);
  return true;
}

void Coroutine::unpark() {
  if (crashed) return;  // crash injection stopped it: it never runs again
  LW_CHECK_MSG(resume_point, "unpark of a coroutine that is not parked");
  // Resumes on its thread once that thread is free: at the waker's time.
  sim->events.push(std::max(thread->cur, sim->now), EventKind::kWake, this);
}

Nanos Coroutine::work_cost(CpuWork kind, uint64_t units) const {
  return sim->timing->cpu_work(kind, units);
}

bool Coroutine::cpu_access(CpuAccess* op, std::coroutine_handle<> waiter) {
  const Placement& p = worker.placement();
  if (!p.on_memory_node() || op->addr.node() != p.node) {
    op->status = Status::kWrongNode;
    return false;
  }
  Status s = sim->memory[p.node]->mem.check(op->addr.offset(), 8, true);
  if (s != Status::kOk) {
    op->status = s;
    return false;
  }
  thread->cur += sim->timing->cpu_access();
  pending_cpu = op;
  resume_point = waiter;
  sim->events.push(thread->cur, EventKind::kCpuAccess, this);
  return true;
}

}  // namespace sim
}  // namespace lw
