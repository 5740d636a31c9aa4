// Histogram and OpStats (runtime/op_stats.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "latchwork/base/random.h"
#include "latchwork/runtime/op_stats.h"

namespace lw {
namespace {

TEST(Histogram, EmptyIsZero) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.quantile(0.5), 0u);
  EXPECT_EQ(h.mean(), 0);
  EXPECT_EQ(h.exact(3), 0u);
}

TEST(Histogram, ExactBelow64) {
  Histogram h;
  for (uint64_t v = 0; v < 64; ++v)
    for (uint64_t k = 0; k <= v % 3; ++k) h.add(v);
  for (uint64_t v = 0; v < 64; ++v) EXPECT_EQ(h.exact(v), v % 3 + 1) << v;
  EXPECT_EQ(h.exact(64), 0u);
  EXPECT_EQ(h.quantile(0), 0u);
  EXPECT_EQ(h.quantile(1), 63u);
  EXPECT_EQ(h.max(), 63u);
}

TEST(Histogram, BucketsCoverEveryValueWithSmallRelativeError) {
  // Bucket boundaries are contiguous and monotone up to 2^64 - 1.
  EXPECT_EQ(Histogram::bucket(63), 63u);
  EXPECT_EQ(Histogram::bucket(64), 64u);
  EXPECT_EQ(Histogram::bucket(~uint64_t{0}), Histogram::kBuckets - 1);
  EXPECT_EQ(Histogram::bucket_high(Histogram::kBuckets - 1), ~uint64_t{0});
  for (size_t b = 64; b + 1 < Histogram::kBuckets; ++b) {
    const uint64_t hi = Histogram::bucket_high(b);
    EXPECT_EQ(Histogram::bucket(hi), b);
    EXPECT_EQ(Histogram::bucket(hi + 1), b + 1);
    const uint64_t lo = Histogram::bucket_high(b - 1) + 1;
    EXPECT_LT(static_cast<double>(hi - lo) / static_cast<double>(lo), 0.07) << b;
  }
}

TEST(Histogram, QuantilesWithinSevenPercent) {
  Rng rng(11);
  std::vector<uint64_t> xs;
  Histogram h;
  for (int i = 0; i < 20'000; ++i) {
    const uint64_t v = rng.below(1) + (uint64_t{1} << rng.below(40)) + rng.below(1000);
    xs.push_back(v);
    h.add(v);
  }
  std::sort(xs.begin(), xs.end());
  for (double q : {0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(xs.size())));
    const uint64_t exact = xs[std::max<size_t>(rank, 1) - 1];
    const uint64_t got = h.quantile(q);
    EXPECT_GE(got, exact) << q;  // the bucket's upper end (capped at the max)
    EXPECT_LE(static_cast<double>(got - exact), 0.07 * static_cast<double>(exact)) << q;
  }
  EXPECT_EQ(h.quantile(1), xs.back());
  EXPECT_EQ(h.max(), xs.back());
  uint64_t sum = 0;
  for (uint64_t v : xs) sum += v;
  EXPECT_EQ(h.sum(), sum);
}

TEST(Histogram, MergeEqualsAddingBoth) {
  Histogram a, b, both;
  for (uint64_t v : {1ull, 70ull, 5000ull, 1ull << 40}) {
    a.add(v);
    both.add(v);
  }
  for (uint64_t v : {2ull, 3ull, 999'999ull}) {
    b.add(v);
    both.add(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), both.count());
  EXPECT_EQ(a.sum(), both.sum());
  EXPECT_EQ(a.max(), both.max());
  for (double q : {0.0, 0.2, 0.5, 0.8, 1.0}) EXPECT_EQ(a.quantile(q), both.quantile(q)) << q;
}

TEST(OpStats, RecordsDifferencesPerKindAndMerges) {
  OpCounters begin, end;
  begin.round_trips = 10;
  begin.bytes_read = 100;
  end = begin;
  end.round_trips = 13;
  end.retries = 2;
  end.bytes_read = 164;
  end.bytes_written = 8;
  end.rpcs = 1;
  OpStats a, b;
  a.record(3, begin, end, 1000, 4000, true);
  b.record(3, begin, begin, 0, 10, false);
  b.record(5, begin, end, 0, 7, true);
  a.merge(b);
  const OpKindStats& k = a.kind(3);
  EXPECT_EQ(k.latency_ns.count(), 2u);
  EXPECT_EQ(k.latency_ns.max(), 3000u);
  EXPECT_EQ(k.round_trips.exact(3), 1u);
  EXPECT_EQ(k.round_trips.exact(0), 1u);
  EXPECT_EQ(k.retries.exact(2), 1u);
  EXPECT_EQ(k.bytes_read.max(), 64u);
  EXPECT_EQ(k.bytes_written.sum(), 8u);
  EXPECT_EQ(k.rpcs.sum(), 1u);
  EXPECT_EQ(k.failed, 1u);
  EXPECT_EQ(a.kind(5).latency_ns.count(), 1u);
  EXPECT_EQ(a.kind(0).latency_ns.count(), 0u);
  const OpKindStats t = a.total();
  EXPECT_EQ(t.latency_ns.count(), 3u);
  EXPECT_EQ(t.failed, 1u);
  EXPECT_EQ(t.retries.sum(), 4u);
}

}  // namespace
}  // namespace lw
