// Crash injection in the simulator: a compute worker, or a whole compute
// node, stops at a chosen point of its run (SimBackend::set_crash).
//
// The point is the victim's n-th awaited submission (a post it suspends on,
// Worker::execute / execute_all): the submission is posted, and the victim
// is never resumed. With whole_node every worker of the victim's compute
// node stops at that instant, wherever it is suspended. The dead workers'
// requests still in flight resolve as a real NIC's would when the host
// dies mid-stream: in posting order, a drawn cut; requests before it land
// whole, the one at it lands whole, as a prefix of its lines (in increasing
// address order, as multi-line WRITEs land) or not at all, and requests
// after it do not land. What has already acted stays; an atomic whose read
// has acted writes back (it is inside the responder). READs change nothing
// and are not listed. Requests to the switch or a SmartNIC act whole.
// Every decision is drawn from the run's generator: the seed replays it.
// The survivors run on; a dead worker counts as finished.
#pragma once

#include <cstdint>
#include <vector>

#include "latchwork/base/layout.h"
#include "latchwork/verbs/work_request.h"
#include "latchwork/verbs/worker.h"

namespace lw {

struct CrashSpec {
  Placement victim;            // a compute worker
  bool whole_node = false;     // every worker of victim.node stops with it
  uint64_t at_submission = 1;  // 1-based: the victim stops as it posts this one
};

// One request of a dead worker that had not finished acting at the crash.
struct CrashedVerb {
  Placement who;
  Opcode opcode = Opcode::kWrite;
  RemoteAddr remote;
  uint32_t length = 0;
  Nanos posted = 0;
  uint32_t lines = 1;   // cache lines it covers (atomics: 1)
  uint32_t landed = 0;  // lines that acted or will: 0 none, lines whole, else a prefix
  bool prefix() const { return landed != 0 && landed != lines; }
};

struct CrashRecord {
  bool happened = false;  // false: the victim finished (or never posted that often) first
  CrashSpec spec;
  Nanos at = 0;                      // virtual time of the crash (the victim's post)
  std::vector<Placement> stopped;    // the workers that stopped, in spawn order
  std::vector<CrashedVerb> in_flight;  // in posting order
};

}  // namespace lw
