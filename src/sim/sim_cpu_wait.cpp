// Local spinning (Worker::cpu_wait_while) without resuming the spinner.
//
// The loop it stands for, `do v = co_await cpu_load(addr); while (v == value
// && ++n < max)`, costs the simulator an event per load and a resumption of
// the coroutine after each: on_cpu_access, make_ready, run_now (the poll
// CPU), the coroutine's code, cpu_access (the load's CPU) and the next load's
// event. A waiting ALock or MCS thread was 97% of a lock-table run's events.
// Here a load's event, if it sees `value`, queues the next load itself at
// the instant the loop's would be (now + poll_cpu + cpu_access) and at the
// same point of the run (the only event the loop queues between two loads),
// so every event keeps its time and its push order: the run, its trace hash
// and its results are those of the loop. The coroutine resumes after the
// load that saw another value, or after the last.
//
// Exact only with one coroutine per thread (another one could take the CPU
// between loads) and loads that take time; elsewhere the Worker runs the
// loop itself.
//
// Not done: skipping the loads that see `value`. They cost no state, but
// each decides where the next one stands among the events of its instant,
// and with it the order of a store and a load at one instant; leaving them
// out moved ALock's figures by up to 8% per point (chaotic runs taking
// another path), against the 1% the simulator's speed-ups are held to.
#include "sim_impl.h"

namespace lw {

using sim::Coroutine;
using sim::CpuWaiter;
using sim::EventKind;

namespace sim {

bool Coroutine::cpu_wait(CpuWait* op, std::coroutine_handle<> waiter) {
  const Nanos period = sim->timing->poll_cpu() + sim->timing->cpu_access();
  if (sim->cfg.coroutines_per_thread != 1 || period == 0) {
    op->status = Status::kUnsupported;
    return false;
  }
  const Placement& p = worker.placement();
  if (!p.on_memory_node() || op->addr.node() != p.node) {
    op->status = Status::kWrongNode;
    return false;
  }
  if (Status s = sim->memory[p.node]->mem.check(op->addr.offset(), kWord, true); s != Status::kOk) {
    op->status = s;
    return false;
  }
  LW_CHECK(op->max_polls >= 1 && wait.word == nullptr);
  // The first load, as cpu_access queues it.
  thread->cur += sim->timing->cpu_access();
  wait = CpuWaiter{.word = sim->memory[p.node]->mem.word(op->addr.offset()),
                   .value = op->value,
                   .max_polls = op->max_polls,
                   .period = period,
                   .op = op};
  resume_point = waiter;
  sim->events.push(thread->cur, EventKind::kCpuAccess, this, kWaitPoll);
  return true;
}

}  // namespace sim

void SimBackend::Impl::on_cpu_poll(Coroutine* c) {
  CpuWaiter& w = c->wait;
  LW_CHECK(w.word != nullptr);
  const uint64_t v = *w.word;
  ++w.polls;
  if (v == w.value && w.polls < w.max_polls) {
    // What the resumed loop would do: the poll CPU, then the next load. Its
    // thread runs none of its coroutines; it may be serving an RPC
    // (RpcServers::kWorkers), and then polls again once that is done.
    LW_CHECK(c->thread->ready.empty());
    events.push(std::max(now, c->thread->cpu_free_at) + w.period, EventKind::kCpuAccess, c, sim::kWaitPoll);
    return;
  }
  CpuWait& op = *w.op;
  op.status = Status::kOk;
  op.last = v;
  op.polls = w.polls;
  w = CpuWaiter{};
  make_ready(c, c->resume_point);
}

}  // namespace lw
