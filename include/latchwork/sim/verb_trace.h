// A bounded record of every work request of a simulated run, to see who
// touched a word and when (SimBackend::set_verb_trace). Recording reads the
// simulator's state only: the trace hash is the same with and without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "latchwork/base/layout.h"
#include "latchwork/base/remote_ptr.h"
#include "latchwork/base/status.h"
#include "latchwork/verbs/work_request.h"
#include "latchwork/verbs/worker.h"

namespace lw {

struct VerbRecord {
  static constexpr Nanos kNever = ~Nanos{0};

  Placement who;
  Opcode opcode = Opcode::kRead;
  RemoteAddr remote;
  uint32_t length = 0;  // atomics: 8
  bool fence = false;
  bool signaled = true;
  Nanos posted = 0;
  Nanos first_access = kNever;  // memory touched (kNever: it never was)
  Nanos last_access = kNever;
  Nanos completed = kNever;     // kNever: still in flight when the run stopped
  Status status = Status::kOk;
  // Atomics: the old value; READ: its first 8 bytes; WRITE: the first 8 bytes
  // it wrote (fewer for shorter transfers, little-endian).
  uint64_t value = 0;

  // One line: "@1200 ns compute 0 thread 0 coroutine 1: READ of 8 B at 0:0x40; ...".
  std::string describe() const;
};

class VerbTrace {
 public:
  // Keeps the first `max_entries` requests and counts the rest as dropped.
  explicit VerbTrace(size_t max_entries);

  void record(const VerbRecord& r);
  const std::vector<VerbRecord>& records() const { return records_; }
  uint64_t dropped() const { return dropped_; }

  // One line per request touching [lo, lo + bytes) on lo's node, sorted by
  // posted time; bytes == 0: every request of the run. Ends with a line
  // counting dropped requests, if any.
  std::string format(RemoteAddr lo, uint64_t bytes) const;

 private:
  size_t max_;
  std::vector<VerbRecord> records_;
  uint64_t dropped_ = 0;
};

}  // namespace lw
