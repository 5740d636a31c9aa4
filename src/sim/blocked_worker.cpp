#include "latchwork/sim/blocked_worker.h"

namespace lw {

std::string to_string(const Placement& p) {
  return std::string(p.on_memory_node() ? "memory " : "compute ") + std::to_string(p.node) +
         " thread " + std::to_string(p.thread) + " coroutine " + std::to_string(p.coroutine);
}

std::string BlockedWorker::describe() const {
  std::string s = to_string(where) + ": " + waiting_on + "\n";
  if (!any_completion) return s + "  no verb of it completed\n";
  s += "  its last verbs (oldest first; the last completed at " + std::to_string(last_completion) +
       " ns):\n";
  for (const std::string& v : last_seen) s += "    " + v + "\n";
  return s;
}

}  // namespace lw
