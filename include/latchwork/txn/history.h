// What a committed transaction did, for the serializability checker
// (check/serializability.h) and the final-state checks: the version of every
// record it read and the version it wrote. Versions of one record are
// written in order under its lock (record.h), so (table, key, version) names
// one write, and "which write did this read see" is exact.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "latchwork/base/layout.h"
#include "latchwork/verbs/worker.h"

namespace lw::txn {

struct ReadVersion {
  uint16_t table = 0;
  uint64_t key = 0;
  uint64_t version = 0;  // the version the transaction's value came from
};

struct WriteVersion {
  uint16_t table = 0;
  uint64_t key = 0;
  uint64_t version = 0;       // the version it installed (the previous + 1)
  uint64_t payload_hash = 0;  // payload_hash() of the value written
};

struct CommitRecord {
  uint64_t id = 0;            // unique per run: (coordinator << 32) | sequence
  uint32_t coordinator = 0;
  Placement who;
  uint32_t type = 0;          // the workload's transaction type
  bool read_only = false;
  Nanos start = 0, end = 0;   // first attempt's start .. commit point
  std::vector<ReadVersion> reads;    // every record read (write-set records too)
  std::vector<WriteVersion> writes;
};

// Called for every committed transaction, from the coordinator's thread (the
// threads backend calls it from many OS threads: lock inside).
using CommitSink = std::function<void(const CommitRecord&)>;

}  // namespace lw::txn
