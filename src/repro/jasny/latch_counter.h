// Latch-protected counters: every worker increments (and optionally reads)
// remote counters under a latch. The final counts must be exact, and no reader
// that the latch let through may see a half-done increment. Used as the latch
// mutual-exclusion test and, in virtual time, as the latch throughput demo.
//
// A counter record (pessimistic latches), 256 bytes, A and B in different lines
// so a torn update would be visible:
//
//   0        8          64       72        192      200       256
//   +--------+-- pad ---+--------+-- pad --+--------+-- pad --+
//   | latch  |          |   A    |         |   B    |         |
//   +--------+----------+--------+---------+--------+---------+
//
// With the optimistic latch the record is a 256-byte OptimisticBlock whose
// first and last payload words are A and B.
#pragma once

#include <cstdint>
#include <string>

#include "latchwork/config/cluster_config.h"
#include "latchwork/sync/optimistic.h"

namespace lw {

class Timeline;

enum class LatchKind : uint8_t { kExclusive, kReaderWriter, kOptimistic };
const char* to_string(LatchKind k);
bool parse_latch_kind(std::string_view name, LatchKind* out);

struct LatchCounterOptions {
  // The sim backend records its run into this timeline if set (sim/timeline.h).
  Timeline* timeline = nullptr;
  LatchKind kind = LatchKind::kExclusive;
  ConsistencyScheme scheme = ConsistencyScheme::kVersioning;  // for kOptimistic
  uint32_t counters = 4;
  uint32_t ops_per_worker = 100;
  uint32_t read_percent = 0;  // share of operations that only read
  // Several compute processes (verbs backend) may share the counters: each
  // names the same `shared_name`, they start together at a barrier, every
  // worker adds its increments to a shared tally, and after a second barrier
  // each process checks the counters against the tally of all processes.
  uint32_t processes = 1;
  std::string shared_name;
  uint64_t barrier_timeout_ms = 60'000;

  static constexpr uint32_t kMaxCounters = 1u << 20;
  // Room on a memory node besides the records (its reserved first page and
  // the allocator's alignment).
  static constexpr uint64_t kNodeOverheadBytes = 8192;
};

// The single-process options in one call.
inline LatchCounterOptions latch_counter_options(LatchKind kind, ConsistencyScheme scheme,
                                                 uint32_t counters, uint32_t ops_per_worker,
                                                 uint32_t read_percent) {
  LatchCounterOptions o;
  o.kind = kind;
  o.scheme = scheme;
  o.counters = counters;
  o.ops_per_worker = ops_per_worker;
  o.read_percent = read_percent;
  return o;
}

struct LatchCounterResult {
  std::string latch;
  uint64_t workers = 0;
  uint64_t increments = 0;  // done by workers
  uint64_t counted = 0;     // sum of A over all counters at the end
  uint64_t reads = 0;
  uint64_t torn_reads = 0;  // reads let through that saw A != B
  uint64_t b_mismatches = 0;  // counters whose final A != B
  uint32_t processes = 1;
  uint64_t tally = 0;         // increments of all processes (= increments with one)
  std::string error;          // a barrier or allocation failed; nothing was checked
  uint64_t verbs = 0;
  Nanos elapsed_ns = 0;
  uint64_t trace_hash = 0;
  double wall_seconds = 0;

  bool exact() const {
    return error.empty() && counted == tally && tally >= increments && torn_reads == 0 &&
           b_mismatches == 0;
  }
  double ops_per_second() const {
    return elapsed_ns ? 1e9 * static_cast<double>(increments + reads) / static_cast<double>(elapsed_ns) : 0;
  }
  double verbs_per_op() const {
    uint64_t ops = increments + reads;
    return ops ? static_cast<double>(verbs) / static_cast<double>(ops) : 0;
  }
  std::string to_json() const;
};

// "" when the run fits its cluster (queue depth, memory for the records),
// else a message for the user (bad input, exit 2).
std::string validate_latch_counter(const ClusterConfig& cluster, const LatchCounterOptions& o);
// Never aborts on a failed operation: `error` says what failed (exit 1).
LatchCounterResult run_latch_counter(const ClusterConfig& cluster, const LatchCounterOptions& o);

}  // namespace lw
