#include "latchwork/sim/verb_trace.h"

#include <algorithm>
#include <cstdio>

#include "latchwork/sim/blocked_worker.h"

namespace lw {

namespace {
std::string time_or(Nanos t, const char* never) {
  return t == VerbRecord::kNever ? never : std::to_string(t);
}
}  // namespace

std::string VerbRecord::describe() const {
  char value_text[48] = "";
  if (completed != kNever && (status == Status::kOk || is_atomic(opcode))) {
    const char* what = is_atomic(opcode) ? "old" : opcode == Opcode::kRead ? "read" : "wrote";
    std::snprintf(value_text, sizeof value_text, ", %s 0x%llx", what,
                  static_cast<unsigned long long>(value));
  }
  std::string s = "@" + std::to_string(posted) + " ns " + to_string(who) + ": " + to_string(opcode) +
                  " of " + std::to_string(length) + " B at " + remote.to_string();
  if (fence) s += " fenced";
  if (!signaled) s += " unsignaled";
  if (first_access == kNever) {
    s += "; memory untouched";
  } else {
    s += "; memory at " + std::to_string(first_access);
    if (last_access != first_access) s += ".." + time_or(last_access, "?");
    s += " ns";
  }
  if (completed == kNever) return s + "; in flight when the run stopped";
  return s + "; completed at " + std::to_string(completed) + " ns " + std::string(to_string(status)) +
         value_text;
}

VerbTrace::VerbTrace(size_t max_entries) : max_(max_entries) {
  records_.reserve(std::min<size_t>(max_entries, 4096));
}

void VerbTrace::record(const VerbRecord& r) {
  if (records_.size() >= max_) {
    ++dropped_;
    return;
  }
  records_.push_back(r);
}

std::string VerbTrace::format(RemoteAddr lo, uint64_t bytes) const {
  std::vector<const VerbRecord*> hits;
  for (const VerbRecord& r : records_) {
    const bool touches = bytes == 0 || (r.remote.node() == lo.node() &&
                                        r.remote.offset() < lo.offset() + bytes &&
                                        lo.offset() < r.remote.offset() + r.length);
    if (touches) hits.push_back(&r);
  }
  // Stable: requests posted at one instant keep their recorded order.
  std::stable_sort(hits.begin(), hits.end(),
                   [](const VerbRecord* a, const VerbRecord* b) { return a->posted < b->posted; });
  std::string s;
  for (const VerbRecord* r : hits) s += r->describe() + "\n";
  if (dropped_ != 0)
    s += "(" + std::to_string(dropped_) + " later requests not recorded: the trace holds " +
         std::to_string(max_) + ")\n";
  return s;
}

}  // namespace lw
