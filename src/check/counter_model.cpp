// The counter model: per key, each read is bounded below by the increments
// that completed before it began (and by reads that ended before it began:
// a counter only grows) and above by the increments begun before it ended;
// each final value by the completed increments and every increment, and by
// the reads. Prefix sums over increments sorted by end and by start make
// every bound one binary search: O(n log n) per key.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>

#include "latchwork/base/assert.h"
#include "model_format.h"
#include "latchwork/check/history.h"
#include "latchwork/check/models.h"

namespace lw {
namespace {

using model_format::hex;
using model_format::span;

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Saturating: the true sum is at least this, so "below the lower bound" stays
// sound; the upper bound saturates at a value no read can exceed.
uint64_t sat_add(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }

template <typename Op>
std::string op_text(const Op& o) {
  if (o.is_read)
    return "read by " + describe(o.who) + " during " + span(o.start, o.end) + " returning " +
           std::to_string(o.amount);
  return "+" + std::to_string(o.amount) + " by " + describe(o.who) + " during " +
         span(o.start, o.end) + (o.ok ? "" : " (gave up)");
}

template <typename Op>
ModelViolation violation(const char* kind, const Op& o, std::string detail) {
  ModelViolation v;
  v.kind = kind;
  v.key = o.key;
  v.start = o.start;
  v.end = o.end;
  v.who = o.who;
  v.detail = std::move(detail);
  return v;
}

}  // namespace

void CounterModel::add(uint64_t key, uint64_t amount, Nanos start, Nanos end, const Placement& who,
                       bool ok) {
  // A zero increment is a read; the bounds assume every add moves the counter.
  LW_CHECK_MSG(amount > 0, "CounterModel::add needs amount > 0");
  LW_CHECK(start <= end);
  std::lock_guard<std::mutex> g(mu_);
  ops_.push_back({key, amount, start, end, who, ok, false});
}

void CounterModel::read(uint64_t key, uint64_t value, Nanos start, Nanos end, const Placement& who) {
  LW_CHECK(start <= end);
  std::lock_guard<std::mutex> g(mu_);
  ops_.push_back({key, value, start, end, who, true, true});  // `amount` holds the value read
}

void CounterModel::final_value(uint64_t key, uint64_t value) {
  std::lock_guard<std::mutex> g(mu_);
  finals_.emplace_back(key, value);
}

size_t CounterModel::size() const {
  std::lock_guard<std::mutex> g(mu_);
  return ops_.size();
}

void CounterModel::check(std::vector<ModelViolation>* out) const {
  LW_CHECK(out != nullptr);
  std::lock_guard<std::mutex> g(mu_);
  const size_t first = out->size();  // `out` may hold other models' violations
  std::vector<const Op*> ops;
  ops.reserve(ops_.size());
  for (const Op& o : ops_) ops.push_back(&o);
  std::stable_sort(ops.begin(), ops.end(), [](const Op* a, const Op* b) { return a->key < b->key; });
  std::vector<std::pair<uint64_t, uint64_t>> finals = finals_;
  std::stable_sort(finals.begin(), finals.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  // Per key, reused across keys to bound allocations.
  std::vector<const Op*> by_end, by_start, reads;
  std::vector<uint64_t> done_sum, begun_sum;  // prefix sums (done_sum[i]: first i)
  std::vector<size_t> max_read;               // index into reads of the prefix maximum
  size_t fi = 0;
  for (size_t i = 0; i < ops.size() || fi < finals.size();) {
    // The next key: the smaller of the next operation's and the next final's.
    uint64_t key = i < ops.size() ? ops[i]->key : finals[fi].first;
    if (fi < finals.size()) key = std::min(key, finals[fi].first);
    by_end.clear();
    by_start.clear();
    reads.clear();
    Nanos last = 0;
    for (; i < ops.size() && ops[i]->key == key; ++i) {
      const Op* o = ops[i];
      last = std::max(last, o->end);
      if (o->is_read) reads.push_back(o);
      else {
        by_start.push_back(o);
        if (o->ok) by_end.push_back(o);
      }
    }
    std::sort(by_end.begin(), by_end.end(), [](const Op* a, const Op* b) { return a->end < b->end; });
    std::sort(by_start.begin(), by_start.end(),
              [](const Op* a, const Op* b) { return a->start < b->start; });
    done_sum.assign(1, 0);
    for (const Op* o : by_end) done_sum.push_back(sat_add(done_sum.back(), o->amount));
    begun_sum.assign(1, 0);
    for (const Op* o : by_start) begun_sum.push_back(sat_add(begun_sum.back(), o->amount));
    std::sort(reads.begin(), reads.end(), [](const Op* a, const Op* b) { return a->end < b->end; });
    max_read.resize(reads.size());
    for (size_t r = 0; r < reads.size(); ++r)
      max_read[r] = (r > 0 && reads[max_read[r - 1]]->amount >= reads[r]->amount) ? max_read[r - 1] : r;

    const std::string head = "counter " + std::to_string(key) + ": ";
    for (const Op* r : reads) {
      const uint64_t value = r->amount;
      // Increments completed strictly before the read began.
      const size_t done = static_cast<size_t>(
          std::lower_bound(by_end.begin(), by_end.end(), r->start,
                           [](const Op* o, Nanos t) { return o->end < t; }) -
          by_end.begin());
      // Increments begun no later than the read ended.
      const size_t begun = static_cast<size_t>(
          std::upper_bound(by_start.begin(), by_start.end(), r->end,
                           [](Nanos t, const Op* o) { return t < o->start; }) -
          by_start.begin());
      // Reads that ended strictly before this one began.
      const size_t earlier = static_cast<size_t>(
          std::lower_bound(reads.begin(), reads.end(), r->start,
                           [](const Op* o, Nanos t) { return o->end < t; }) -
          reads.begin());
      if (value < done_sum[done]) {
        out->push_back(violation(
            "stale-read", *r,
            head + op_text(*r) + ", but " + std::to_string(done) + " increments totalling " +
                std::to_string(done_sum[done]) + " completed before it began (the last: " +
                op_text(*by_end[done - 1]) + ")"));
      } else if (value > begun_sum[begun]) {
        out->push_back(violation(
            "phantom-read", *r,
            head + op_text(*r) + ", but only " + std::to_string(begun) + " increments totalling " +
                std::to_string(begun_sum[begun]) + " began before it ended" +
                (begun < by_start.size() ? " (the next: " + op_text(*by_start[begun]) + ")" : "")));
      } else if (earlier > 0 && reads[max_read[earlier - 1]]->amount > value) {
        out->push_back(violation("non-monotonic-read", *r,
                                 head + op_text(*r) + ", below the earlier " +
                                     op_text(*reads[max_read[earlier - 1]]) +
                                     " (a counter only grows)"));
      }
    }

    for (; fi < finals.size() && finals[fi].first == key; ++fi) {
      const uint64_t f = finals[fi].second;
      ModelViolation v;
      v.key = key;
      v.start = v.end = last;  // after every operation of the key
      v.final_state = true;
      const std::string fh = head + "final value " + std::to_string(f);
      if (f < done_sum.back()) {
        v.kind = "lost-update";
        v.detail = fh + " is below the " + std::to_string(by_end.size()) +
                   " completed increments totalling " + std::to_string(done_sum.back()) +
                   " (the last to complete: " + op_text(*by_end.back()) + ")";
      } else if (f > begun_sum.back()) {
        v.kind = "phantom-update";
        v.detail = fh + " exceeds all " + std::to_string(by_start.size()) +
                   " increments, completed or not, totalling " + std::to_string(begun_sum.back());
      } else if (!reads.empty() && reads[max_read.back()]->amount > f) {
        v.kind = "lost-update";
        v.detail = fh + " is below the " + op_text(*reads[max_read.back()]) +
                   " (increments it saw were lost)";
      } else {
        continue;
      }
      out->push_back(std::move(v));
    }
  }
  // Sorted by key, then time (stable: reads keep their end order).
  std::stable_sort(out->begin() + static_cast<ptrdiff_t>(first), out->end(), [](const ModelViolation& a, const ModelViolation& b) {
    return a.key != b.key ? a.key < b.key : a.start < b.start;
  });
}

}  // namespace lw
