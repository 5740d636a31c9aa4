// What an unfinished worker was doing when a simulated run stopped short
// (stalled, deadlocked or out of budget): SimBackend::blocked().
#pragma once

#include <string>
#include <vector>

#include "latchwork/base/layout.h"
#include "latchwork/verbs/worker.h"

namespace lw {

struct BlockedWorker {
  Placement where;
  // One sentence: the verb(s) it awaits ("awaits READ of 8 B at 0:0x1040,
  // posted at 1200 ns"), "sleeping until T", "ready to run", a CPU access,
  // or that it is suspended on something the simulator cannot wake.
  std::string waiting_on;
  // Its last completed verbs, oldest first (at most 4), each readable:
  // "READ of 8 B at 0:0x1040 -> ok, read 0x0 (completed at 1300 ns)".
  std::vector<std::string> last_seen;
  Nanos last_completion = 0;  // when its last verb completed (0: none did)
  bool any_completion = false;

  // Several lines: who, what it waits on, what it last saw.
  std::string describe() const;
};

// "compute 0 thread 1 coroutine 2" / "memory 0 thread 0 coroutine 0".
std::string to_string(const Placement& p);

}  // namespace lw
