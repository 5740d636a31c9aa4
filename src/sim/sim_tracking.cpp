// Liveness reports and the verb trace: what each coroutine last saw, what it
// waits on when a run stops short, and every request for VerbTrace. All of it
// reads the simulation; nothing here draws, schedules or mixes the trace hash.
#include <algorithm>
#include <cstring>
#include <sstream>
#include <unordered_map>

#include "latchwork/base/hex.h"
#include "latchwork/sim/verb_trace.h"
#include "sim_impl.h"

namespace lw {

using sim::Event;
using sim::EventKind;
using sim::Op;

namespace {

bool targets_op(EventKind k) {
  switch (k) {
    case EventKind::kReadLines: case EventKind::kWriteLine: case EventKind::kAtomicRead:
    case EventKind::kAtomicWriteBack: case EventKind::kComplete: case EventKind::kDeviceOp:
    case EventKind::kSwitchRequest: case EventKind::kSwitchResponse:
      return true;
    default:
      return false;
  }
}

// "READ of 8 B at 0:0x40"
std::string verb_head(Opcode op, uint32_t length, RemoteAddr addr) {
  return std::string(to_string(op)) + " of " + std::to_string(length) + " B at " + addr.to_string();
}

std::string seen_line(const sim::SeenVerb& v) {
  std::string s = verb_head(v.opcode, v.length, v.addr) + " -> " + std::string(to_string(v.status));
  if (v.status == Status::kOk || is_atomic(v.opcode)) {
    const char* what = is_atomic(v.opcode) ? "old" : v.opcode == Opcode::kRead ? "read" : "wrote";
    s += std::string(", ") + what + " " + hex(v.value);
  }
  return s + " (completed at " + std::to_string(v.at) + " ns)";
}

const char* cpu_kind(CpuAccess::Kind k) {
  switch (k) {
    case CpuAccess::Kind::kLoad: return "load";
    case CpuAccess::Kind::kStore: return "store";
    case CpuAccess::Kind::kCas: return "CAS";
    case CpuAccess::Kind::kFaa: return "FAA";
  }
  return "?";
}

// A request still in flight when the run stopped, and when it would complete.
struct InFlight {
  Op* op;
  Nanos completes;
};

VerbRecord record_of(const Op& op) {
  const WorkRequest& wr = *op.wr;
  VerbRecord r;
  r.who = op.who();
  r.opcode = wr.opcode;
  r.remote = wr.remote;
  r.length = sim::verb_length(wr);
  r.fence = wr.fence;
  r.signaled = wr.signaled;
  r.posted = op.posted;
  r.first_access = op.first_access;
  r.last_access = op.last_access;
  r.status = wr.status;
  return r;
}

}  // namespace

void SimBackend::Impl::trace_completion(Op* op, uint64_t value) {
  VerbRecord r = record_of(*op);
  r.completed = now;
  r.value = value;
  verb_trace->record(r);
  op->first_access = op->last_access = sim::kNever;  // the Op is reused
}

void SimBackend::Impl::note_access(const Event& e) {
  switch (e.kind) {
    case EventKind::kReadLines: case EventKind::kAtomicRead: case EventKind::kDeviceOp:
      break;
    case EventKind::kWriteLine:
      // write_payload_late: the NIC fetching a line of the local source (the
      // top bit of a line index, sim_ops.cpp's kFetchLine) is not a remote access.
      if (e.arg != sim::kAllLines && (e.arg >> 31) != 0) return;
      break;
    case EventKind::kAtomicWriteBack:
      // A failed CAS closed at its read: its write-back event touches nothing.
      if (!static_cast<Op*>(e.target)->has_window) return;
      break;
    default:
      return;
  }
  Op* op = static_cast<Op*>(e.target);
  if (op->first_access == sim::kNever) op->first_access = now;
  op->last_access = now;
}

namespace {

// Drains the agenda: the requests in flight in posting order, and the events
// that would wake coroutines.
std::vector<InFlight> drain(sim::EventQueue& events, std::vector<Event>* wakes) {
  std::vector<InFlight> ops;
  while (!events.empty()) {
    const Event e = events.pop();
    if (targets_op(e.kind)) {
      ops.push_back({static_cast<Op*>(e.target), e.kind == EventKind::kComplete ? e.time : sim::kNever});
    } else if (wakes != nullptr && (e.kind == EventKind::kWake || e.kind == EventKind::kCpuAccess)) {
      wakes->push_back(e);
    }
  }
  // By id, so that reports list requests in posting order; one entry per op.
  std::sort(ops.begin(), ops.end(), [](const InFlight& a, const InFlight& b) {
    return a.op->id != b.op->id ? a.op->id < b.op->id : a.completes < b.completes;
  });
  ops.erase(std::unique(ops.begin(), ops.end(),
                        [](const InFlight& a, const InFlight& b) { return a.op == b.op; }),
            ops.end());
  return ops;
}

// "awaits RPC 'echo' (handler 1) to memory node 0 with 8 B, posted at 100 ns:
// queued for a polling core since 900 ns"
std::string rpc_waiting_on(const sim::Coroutine& c, const sim::RpcMsg& m) {
  std::ostringstream os;
  os << "awaits RPC '" << c.sim->rpc.handlers[m.handler].name << "' (handler " << m.handler
     << ") to memory node " << m.route.memory_node << " with " << m.request.size() << " B, posted at "
     << m.posted << " ns: ";
  switch (m.stage) {
    case sim::RpcMsg::Stage::kToNode: os << "request on its way"; break;
    case sim::RpcMsg::Stage::kQueued: os << "queued for a polling core since " << m.arrived << " ns"; break;
    case sim::RpcMsg::Stage::kServing: os << "served by polling core " << m.core << " since " << m.started << " ns"; break;
    case sim::RpcMsg::Stage::kToCaller: os << "reply on its way (" << to_string(m.status) << ")"; break;
  }
  return os.str();
}

// What is pending for one coroutine when the run stopped.
struct Pending {
  std::vector<const InFlight*> ops;  // the requests it posted, in posting order
  std::vector<Event> wakes;          // its kWake / kCpuAccess events
};

std::string waiting_on(const sim::Coroutine& c, const Pending& p) {
  constexpr size_t kListed = 4;  // bounded: a batch holds up to 16
  // The waiter is the last request of a batch; the others, posted with it on
  // the same queue pair, complete with it.
  std::vector<const Op*> signal;
  for (const InFlight* f : p.ops)
    if (f->op->waiter == &c) signal.push_back(f->op);
  auto awaited_op = [&](const Op* op) {
    for (const Op* w : signal)
      if (op == w || (op->posted == w->posted && op->qp == w->qp && op->id < w->id)) return true;
    return false;
  };
  std::string awaited;
  size_t n_awaited = 0, n_other = 0;
  for (const InFlight* f : p.ops) {
    if (!awaited_op(f->op)) {
      ++n_other;  // an unsignaled request posted earlier
      continue;
    }
    if (++n_awaited > kListed) continue;
    const WorkRequest& wr = *f->op->wr;
    if (!awaited.empty()) awaited += "; ";
    awaited += verb_head(wr.opcode, sim::verb_length(wr), wr.remote) + ", posted at " +
               std::to_string(f->op->posted) + " ns";
    if (f->completes != sim::kNever)
      awaited += ", due to complete at " + std::to_string(f->completes) + " ns";
  }
  std::string s;
  if (const sim::RpcMsg* m = c.sim->awaited_rpc(c)) {
    s = rpc_waiting_on(c, *m);
  } else if (n_awaited > 0) {
    s = "awaits " + awaited;
    if (n_awaited > kListed) s += "; and " + std::to_string(n_awaited - kListed) + " more";
  } else {
    for (const Event& e : p.wakes) {
      if (e.kind == EventKind::kCpuAccess && e.arg == sim::kWaitPoll && c.wait.op != nullptr) {
        s = "spinning on " + c.wait.op->addr.to_string() + " while it holds " +
            std::to_string(c.wait.op->value) + " (" + std::to_string(c.wait.polls) +
            " loads so far), next load at " + std::to_string(e.time) + " ns";
      } else if (e.kind == EventKind::kCpuAccess && e.arg == 0 && c.pending_cpu != nullptr) {
        s = std::string("a CPU ") + cpu_kind(c.pending_cpu->kind) + " of " +
            c.pending_cpu->addr.to_string() + " taking effect at " + std::to_string(e.time) + " ns";
      } else if (e.kind == EventKind::kWake) {
        const bool started = c.resume_point != c.task.handle();
        s = (started ? "sleeping until " : "not started; starts at ") + std::to_string(e.time) + " ns";
      }
    }
    if (s.empty()) {
      const auto& ready = c.thread->ready;
      if (std::find(ready.begin(), ready.end(), &c) != ready.end()) s = "ready to run";
    }
    if (s.empty())
      s = "suspended on something the simulator cannot wake (not a verb, sleep or CPU access "
          "of this worker)";
  }
  if (n_other > 0) s += " (" + std::to_string(n_other) + " more of its requests in flight)";
  return s;
}

}  // namespace

void SimBackend::Impl::stop_short() {
  std::vector<Event> wakes;
  const std::vector<InFlight> ops = drain(events, &wakes);
  std::unordered_map<const sim::Coroutine*, Pending> pending;
  for (const InFlight& f : ops) pending[f.op->poster].ops.push_back(&f);
  for (const Event& e : wakes) pending[static_cast<const sim::Coroutine*>(e.target)].wakes.push_back(e);
  const Pending none;
  blocked.clear();
  for (const auto& co : coroutines) {
    if (co->finished) continue;
    BlockedWorker b;
    b.where = co->worker.placement();
    const auto it = pending.find(co.get());
    b.waiting_on = waiting_on(*co, it == pending.end() ? none : it->second);
    const sim::WorkerTrack& t = co->track;
    const uint64_t keep = std::min<uint64_t>(t.count, sim::WorkerTrack::kKeep);
    for (uint64_t i = t.count - keep; i < t.count; ++i)
      b.last_seen.push_back(seen_line(t.seen[i % sim::WorkerTrack::kKeep]));
    b.any_completion = t.count > 0;
    b.last_completion = t.last_completion;
    blocked.push_back(std::move(b));
  }
  for (const InFlight& f : ops) {
    if (verb_trace != nullptr) verb_trace->record(record_of(*f.op));  // completed: kNever
    f.op->first_access = f.op->last_access = sim::kNever;
    free_op(f.op);
  }
}

void SimBackend::Impl::drop_in_flight() {
  // Requests of a worker that threw may point into its dead locals: only free.
  for (const InFlight& f : drain(events, nullptr)) {
    f.op->first_access = f.op->last_access = sim::kNever;
    free_op(f.op);
  }
}

}  // namespace lw
