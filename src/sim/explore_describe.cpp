// Human-readable steps and waits for the explorer's reports. Only called
// while a trace is being written (a violation's replay), never when searching.
#include <cstdio>
#include <string>

#include "explore_impl.h"

namespace lw::explore::detail {
namespace {

std::string num(uint64_t v) {
  if (v < 100000) return std::to_string(v);
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string Machine::who(uint32_t worker) const {
  const Placement& p = workers_[worker]->place;
  std::string s = "worker " + std::to_string(worker) + " (" +
                  (p.on_memory_node() ? "memory " : "compute ") + std::to_string(p.node) + "/" +
                  std::to_string(p.thread);
  if (p.coroutine != 0) s += "/" + std::to_string(p.coroutine);
  return s + ")";
}

std::string Machine::op_text(const XOp& op) const {
  const WorkRequest& wr = *op.wr;
  std::string s = to_string(wr.opcode);
  s += " " + wr.remote.to_string();
  switch (wr.opcode) {
    case Opcode::kRead:
    case Opcode::kWrite: s += " (" + std::to_string(wr.length) + " B)"; break;
    case Opcode::kCas: s += " (" + num(wr.compare) + " -> " + num(wr.operand) + ")"; break;
    case Opcode::kFaa: s += " (+" + num(wr.operand) + ")"; break;
    case Opcode::kMaskedCas:
      s += " (" + num(wr.compare) + " -> " + num(wr.operand) + ", masks " + num(wr.compare_mask) + "/" +
           num(wr.swap_mask) + ")";
      break;
    case Opcode::kMaskedFaa: s += " (+" + num(wr.operand) + ", fields " + num(wr.field_mask) + ")"; break;
  }
  if (wr.fence) s += " fenced";
  if (!op.awaited) s += " unsignaled";
  if (wr.status != Status::kOk) s += " [" + std::string(to_string(wr.status)) + "]";
  return s;
}

void Machine::note(uint32_t worker, const std::string& what) {
  if (log_ == nullptr) return;
  if (last_seen_.size() < workers_.size()) last_seen_.resize(workers_.size());
  log_->push_back("[" + std::to_string(steps_) + "] " + who(worker) + ": " + what);
  if (what != "resumes" && what != "finished") last_seen_[worker] = what;
}

std::vector<std::string> Machine::waits() const {
  std::vector<std::string> out;
  for (const auto& w : workers_) {
    std::string s = who(w->index) + " ";
    switch (w->wait) {
      case XWorker::Wait::kDone: s += "has finished"; break;
      case XWorker::Wait::kRunning: s += "is running"; break;
      case XWorker::Wait::kSleep: s += "sleeps (a yield)"; break;
      case XWorker::Wait::kParked: s += "is parked and nobody unparks it"; break;
      case XWorker::Wait::kUnparked: s += "was unparked and waits to resume"; break;
      case XWorker::Wait::kCpu: s += "waits on a CPU access to " + w->cpu->addr.to_string(); break;
      case XWorker::Wait::kRpc:
        s += "waits on RPC " + handlers_[w->call->handler].name + " to memory node " + std::to_string(w->call->node) +
             " (not yet served)";
        break;
      case XWorker::Wait::kOps: {
        s += "waits on";
        for (const auto& q : qps_)
          for (uint32_t slot : q) {
            const XOp& op = ops_[slot];
            if (op.worker != w->index || !op.awaited) continue;
            s += " " + op_text(op);
            if (op.done) s += " (done, completes in posting order)";
            else if (op.window) s += " (between read and write-back)";
            else if (op.read_mask != 0 || op.landed != 0) s += " (partly executed)";
            else s += " (not started)";
          }
        break;
      }
    }
    if (w->index < last_seen_.size() && !last_seen_[w->index].empty())
      s += "; its last step: " + last_seen_[w->index];
    out.push_back(s);
  }
  return out;
}

}  // namespace lw::explore::detail
