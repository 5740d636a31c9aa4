// A timeline of one simulated run in Chrome's trace-event format (the JSON
// that Perfetto and chrome://tracing open): a track per coroutine and per
// queue pair, each verb a slice from post to completion with its memory
// accesses as instants, the relaxations the simulator applied as instants,
// and the NIC model's waits (lock-table slots, PCIe, links, caches) as slices
// beside the queue pair. Virtual time: ts in microseconds, ns as fractions.
//
//   Timeline tl;
//   tl.attach(sim);          // before sim.run(); only the first attach records
//   sim.run();
//   write_file(tl.to_json());
//
// Recording only reads: the run's trace hash is the same with and without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "latchwork/sim/relaxation_log.h"
#include "latchwork/sim/timing_model.h"
#include "latchwork/sim/verb_trace.h"

namespace lw {

class Backend;
class SimBackend;

// A request's wait for a NIC resource, on its queue pair.
struct NicWait {
  const char* resource = "";  // a string literal (WaitRecorder)
  WrRoute route;
  Nanos start = 0, end = 0;
};

class Timeline final : public WaitRecorder {
 public:
  static constexpr size_t kDefaultLimit = 200'000;
  // Keeps at most `max_events` trace events; the file counts the rest.
  explicit Timeline(size_t max_events = kDefaultLimit);

  // Records the run of `sim` (call before its run()). Only the first backend
  // attached is recorded (a command that runs several configurations shows
  // its first); returns whether this one is.
  bool attach(SimBackend& sim);
  // The same for a backend that may not be the simulator: false if it is not.
  bool attach(Backend& b);
  bool attached() const { return attached_; }

  void record_wait(const char* resource, const WrRoute& r, Nanos start, Nanos end) override;

  const VerbTrace& verbs() const { return verbs_; }
  const RelaxationLog& relaxations() const { return relaxations_; }
  const std::vector<NicWait>& waits() const { return waits_; }

  // The trace-event JSON: {"traceEvents": [...], "displayTimeUnit": "ns",
  // "otherData": {..., "dropped_events": N}}.
  std::string to_json() const;

 private:
  size_t max_;
  bool attached_ = false;
  uint32_t compute_nodes_ = 0;  // to name a route's requester
  VerbTrace verbs_;
  RelaxationLog relaxations_;
  std::vector<NicWait> waits_;
  uint64_t waits_dropped_ = 0;
};

}  // namespace lw
