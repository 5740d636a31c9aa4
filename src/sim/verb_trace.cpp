#include "latchwork/sim/verb_trace.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "latchwork/sim/blocked_worker.h"

namespace lw {

namespace {
std::string time_or(Nanos t, const char* never) {
  return t == VerbRecord::kNever ? never : std::to_string(t);
}
}  // namespace

std::string VerbRecord::describe() const {
  // A stream, not string concatenation: GCC 12 at -O3 misreads chains of
  // std::string + as overlapping copies (-Werror=restrict).
  std::ostringstream os;
  os << "@" << posted << " ns " << to_string(who) << ": " << to_string(opcode) << " of " << length
     << " B at " << remote.to_string();
  if (fence) os << " fenced";
  if (!signaled) os << " unsignaled";
  if (first_access == kNever) {
    os << "; memory untouched";
  } else {
    os << "; memory at " << first_access;
    if (last_access != first_access) os << ".." << time_or(last_access, "?");
    os << " ns";
  }
  if (completed == kNever) {
    os << "; in flight when the run stopped";
    return os.str();
  }
  os << "; completed at " << completed << " ns " << to_string(status);
  if (status == Status::kOk || is_atomic(opcode)) {
    const char* what = is_atomic(opcode) ? "old" : opcode == Opcode::kRead ? "read" : "wrote";
    os << ", " << what << " 0x" << std::hex << value;
  }
  return os.str();
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
  std::ostringstream os;
  for (const VerbRecord* r : hits) os << r->describe() << "\n";
  if (dropped_ != 0)
    os << "(" << dropped_ << " later requests not recorded: the trace holds " << max_ << ")\n";
  return os.str();
}

}  // namespace lw
