// Per-operation statistics (runtime/op_stats.h).
#include "latchwork/runtime/op_stats.h"

#include <bit>
#include <cmath>

#include "latchwork/base/assert.h"

namespace lw {

// Values below 64 have a bucket each; a value v >= 64 with highest bit e
// (6 <= e <= 63) goes to one of 16 sub-buckets of [2^e, 2^(e+1)), by the four
// bits below its highest: each bucket spans 2^(e-4), 1/16 of its low end.
size_t Histogram::bucket(uint64_t v) {
  if (v < 64) return static_cast<size_t>(v);
  const uint32_t e = 63 - static_cast<uint32_t>(std::countl_zero(v));
  const uint64_t sub = (v >> (e - 4)) & 15;
  return 64 + size_t{e - 6} * 16 + static_cast<size_t>(sub);
}

uint64_t Histogram::bucket_high(size_t b) {
  if (b < 64) return b;
  const uint32_t e = 6 + static_cast<uint32_t>((b - 64) / 16);
  const uint64_t sub = (b - 64) % 16;
  const uint64_t low = (16 + sub) << (e - 4);
  return low + ((uint64_t{1} << (e - 4)) - 1);  // at most 2^64 - 1: no wrap
}

void Histogram::add(uint64_t v) {
  const size_t b = bucket(v);
  LW_CHECK(b < kBuckets);
  if (b >= n_.size()) n_.resize(b + 1, 0);
  ++n_[b];
  ++count_;
  sum_ += v;
  if (v > max_) max_ = v;
}

void Histogram::merge(const Histogram& o) {
  if (o.n_.size() > n_.size()) n_.resize(o.n_.size(), 0);
  for (size_t b = 0; b < o.n_.size(); ++b) n_[b] += o.n_[b];
  count_ += o.count_;
  sum_ += o.sum_;
  if (o.max_ > max_) max_ = o.max_;
}

uint64_t Histogram::quantile(double q) const {
  if (count_ == 0) return 0;
  if (!(q > 0)) q = 0;  // NaN and negatives: the minimum
  if (q > 1) q = 1;
  const double want = std::ceil(q * static_cast<double>(count_));
  const uint64_t rank = want < 1 ? 1 : static_cast<uint64_t>(want);
  uint64_t seen = 0;
  for (size_t b = 0; b < n_.size(); ++b) {
    seen += n_[b];
    if (seen >= rank) return std::min(bucket_high(b), max_);
  }
  return max_;
}

uint64_t Histogram::exact(uint64_t v) const { return v < n_.size() && v < 64 ? n_[v] : 0; }

void OpKindStats::merge(const OpKindStats& o) {
  latency_ns.merge(o.latency_ns);
  round_trips.merge(o.round_trips);
  retries.merge(o.retries);
  bytes_read.merge(o.bytes_read);
  bytes_written.merge(o.bytes_written);
  rpcs.merge(o.rpcs);
  failed += o.failed;
}

void OpStats::record(uint32_t kind, const OpCounters& begin, const OpCounters& end, Nanos begin_ns,
                     Nanos end_ns, bool ok) {
  LW_CHECK_MSG(kind < kMaxKinds, "operation kind out of range");
  LW_CHECK_MSG(end_ns >= begin_ns, "an operation ended before it began");
  LW_CHECK_MSG(end.round_trips >= begin.round_trips && end.retries >= begin.retries &&
                   end.bytes_read >= begin.bytes_read && end.bytes_written >= begin.bytes_written &&
                   end.rpcs >= begin.rpcs,
               "counters at an operation's end are below those at its start");
  OpKindStats& k = kinds_[kind];
  k.latency_ns.add(end_ns - begin_ns);
  k.round_trips.add(end.round_trips - begin.round_trips);
  k.retries.add(end.retries - begin.retries);
  k.bytes_read.add(end.bytes_read - begin.bytes_read);
  k.bytes_written.add(end.bytes_written - begin.bytes_written);
  k.rpcs.add(end.rpcs - begin.rpcs);
  if (!ok) ++k.failed;
}

void OpStats::merge(const OpStats& o) {
  for (uint32_t k = 0; k < kMaxKinds; ++k) kinds_[k].merge(o.kinds_[k]);
}

OpKindStats OpStats::total() const {
  OpKindStats t;
  for (const OpKindStats& k : kinds_) t.merge(k);
  return t;
}

}  // namespace lw
