// Per-operation statistics (SMART Fig. 14, Sherman §5.5): for every logical
// operation of a structure, its latency, round trips, retries and bytes read
// and written, as distributions per operation kind.
//
// A structure (through smart::Context) opens an operation, and at its end the
// differences of the coroutine's OpCounters are recorded. One OpStats per
// thread (no sharing); merge() combines them after the run.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "latchwork/base/layout.h"
#include "latchwork/verbs/worker.h"

namespace lw {

// A bounded histogram of non-negative integers: exact below 64, then 16
// sub-buckets per power of two (relative error under 7%). Its counts grow
// on demand up to the highest bucket used (at most kBuckets), so an unused
// histogram costs no memory and one of latencies up to 1 ms about 2.4 KB.
class Histogram {
 public:
  void add(uint64_t v);
  void merge(const Histogram& o);
  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? double(sum_) / double(count_) : 0; }
  // The smallest value v with at least q of the samples <= v (q in [0, 1]).
  uint64_t quantile(double q) const;
  // Samples equal to v, for v < 64 (exact counts: retries per operation).
  uint64_t exact(uint64_t v) const;

  static constexpr size_t kBuckets = 64 + 16 * 58;
  // The bucket of v, and the largest value in bucket b (for tests).
  static size_t bucket(uint64_t v);
  static uint64_t bucket_high(size_t b);

 private:
  std::vector<uint64_t> n_;  // n_[b]: samples in bucket b; size <= kBuckets
  uint64_t count_ = 0, sum_ = 0, max_ = 0;
};

struct OpKindStats {
  Histogram latency_ns, round_trips, retries, bytes_read, bytes_written, rpcs;
  uint64_t failed = 0;  // operations that ended without success (e.g. gave up)
  void merge(const OpKindStats& o);
};

class OpStats {
 public:
  static constexpr uint32_t kMaxKinds = 16;
  // Records one operation of `kind` (< kMaxKinds) from counters at its start
  // and end and its start and end times.
  void record(uint32_t kind, const OpCounters& begin, const OpCounters& end, Nanos begin_ns,
              Nanos end_ns, bool ok);
  void merge(const OpStats& o);
  const OpKindStats& kind(uint32_t k) const { return kinds_.at(k); }
  // Every kind together.
  OpKindStats total() const;

 private:
  std::array<OpKindStats, kMaxKinds> kinds_{};
};

}  // namespace lw
