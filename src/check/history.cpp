// The per-key history checker: each whole read is checked against the writes
// of its key (unknown, future and stale values), holds of one key against
// each other. Sorting by time keeps a key's check O(n log n).
#include "latchwork/check/history.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "latchwork/base/assert.h"
#include "model_format.h"

namespace lw {
namespace {

using model_format::hex;
using model_format::span;

constexpr Nanos kNever = std::numeric_limits<Nanos>::max();

std::string write_span(const HistoryOp& w) {
  if (w.ok) return span(w.start, w.end);
  char buf[80];
  std::snprintf(buf, sizeof buf, "[%" PRIu64 ", gave up at %" PRIu64 "] ns", uint64_t{w.start},
                uint64_t{w.end});
  return buf;
}

std::string read_head(const HistoryOp& r) {
  return "read of key " + std::to_string(r.key) + " by " + describe(r.who) + " during " +
         span(r.start, r.end);
}

// A write that certainly took effect by `by`: it completed then, or `reader`
// returned its value by then.
struct Effect {
  Nanos by = kNever;
  Nanos start = 0;
  const HistoryOp* write = nullptr;
  const HistoryOp* reader = nullptr;  // null: the write's own completion
};

std::string witness(const Effect& e) {
  std::string s = "write " + hex(e.write->value) + " by " + describe(e.write->who) + " " +
                  write_span(*e.write);
  if (e.reader)
    s += " (its value was read by " + describe(e.reader->who) + " during " +
         span(e.reader->start, e.reader->end) + ")";
  return s;
}

HistoryViolation violation(HistoryViolation::Kind k, const HistoryOp& r, std::string detail) {
  HistoryViolation v;
  v.kind = k;
  v.key = r.key;
  v.start = r.start;
  v.end = r.end;
  v.who = r.who;
  v.detail = std::move(detail);
  return v;
}

// Checks the operations of one key; `ops` all name that key.
void check_key(const std::vector<const HistoryOp*>& ops, uint64_t initial,
               std::vector<HistoryViolation>* out) {
  // Unique writes: a value names its write (the earliest, should one repeat).
  std::unordered_map<uint64_t, const HistoryOp*> writer;
  for (const HistoryOp* op : ops) {
    if (op->kind != HistoryOp::Kind::kWrite) continue;
    auto [it, inserted] = writer.emplace(op->value, op);
    if (!inserted && op->start < it->second->start) it->second = op;
  }
  auto source = [&](const HistoryOp& r) -> const HistoryOp* {
    auto it = writer.find(r.value);
    return it == writer.end() ? nullptr : it->second;
  };
  auto checked = [](const HistoryOp& op) { return op.kind == HistoryOp::Kind::kRead && op.ok; };

  // When each write certainly took effect: its completion, or the end of the
  // first read that returned its value (a read that did not precede it).
  std::unordered_map<const HistoryOp*, Effect> effect;
  for (const auto& [value, w] : writer) {
    Effect& e = effect[w];
    e.write = w;
    e.start = w->start;
    if (w->ok) e.by = w->end;
  }
  for (const HistoryOp* r : ops) {
    if (!checked(*r) || !r->whole) continue;
    const HistoryOp* w = source(*r);
    if (!w || w->start > r->end) continue;
    Effect& e = effect[w];
    if (r->end < e.by) {
      e.by = r->end;
      e.reader = r;
    }
  }
  // Sorted by when they took effect, with the latest start of each prefix:
  // "some write took effect before t and began after u" is one binary search.
  std::vector<Effect> done;
  done.reserve(effect.size());
  for (const auto& [w, e] : effect)
    if (e.by != kNever) done.push_back(e);
  std::sort(done.begin(), done.end(), [](const Effect& a, const Effect& b) {
    if (a.by != b.by) return a.by < b.by;
    return a.start != b.start ? a.start < b.start : a.write < b.write;
  });
  std::vector<size_t> latest_start(done.size());
  for (size_t i = 0; i < done.size(); ++i)
    latest_start[i] = (i > 0 && done[latest_start[i - 1]].start >= done[i].start) ? latest_start[i - 1] : i;

  using K = HistoryViolation::Kind;
  for (const HistoryOp* r : ops) {
    if (!checked(*r)) continue;
    if (!r->whole) {
      out->push_back(violation(K::kTornRead, *r,
                               read_head(*r) + " returned a torn payload mixing several values"));
      continue;
    }
    const HistoryOp* w = source(*r);
    if (!w && r->value != initial) {
      out->push_back(violation(K::kUnknownValue, *r,
                               read_head(*r) + " returned value " + hex(r->value) +
                                   ", which is neither the initial value " + hex(initial) +
                                   " nor written by any write of the key"));
      continue;
    }
    if (w && w->start > r->end) {
      out->push_back(violation(K::kFutureRead, *r,
                               read_head(*r) + " returned value " + hex(r->value) + " of write by " +
                                   describe(w->who) + " " + write_span(*w) +
                                   ", which began after the read ended"));
      continue;
    }
    // Writes that took effect strictly before the read began.
    const auto before = std::lower_bound(done.begin(), done.end(), r->start,
                                         [](const Effect& e, Nanos t) { return e.by < t; });
    const size_t n = static_cast<size_t>(before - done.begin());
    if (n == 0) continue;
    if (!w) {
      out->push_back(violation(K::kStaleRead, *r,
                               read_head(*r) + " returned the initial value " + hex(initial) +
                                   ", but " + witness(done[0]) +
                                   " overwrote it before the read began"));
      continue;
    }
    const Effect& later = done[latest_start[n - 1]];
    if (later.start > w->end) {
      out->push_back(violation(K::kStaleRead, *r,
                               read_head(*r) + " returned value " + hex(r->value) +
                                   " written during " + write_span(*w) + " by " + describe(w->who) +
                                   ", but " + witness(later) + " overwrote it before the read began"));
    }
  }
}

// Holds of one key sorted by acquisition: each is compared with the
// latest-ending earlier hold of another worker.
void check_holds(std::vector<const LatchHold*>& holds, std::vector<HistoryViolation>* out) {
  std::sort(holds.begin(), holds.end(), [](const LatchHold* a, const LatchHold* b) {
    return a->acquired != b->acquired ? a->acquired < b->acquired : a->released < b->released;
  });
  const LatchHold* last = nullptr;   // latest release so far
  const LatchHold* other = nullptr;  // latest release by a worker other than last's
  for (const LatchHold* h : holds) {
    const LatchHold* rival = nullptr;
    if (last && !same_worker(last->who, h->who)) rival = last;
    else if (other) rival = other;
    if (rival && h->acquired < rival->released && rival->acquired < h->released) {
      HistoryViolation v;
      v.kind = HistoryViolation::Kind::kOverlappingHolds;
      v.key = h->key;
      v.start = h->acquired;
      v.end = h->released;
      v.who = h->who;
      v.detail = "exclusive latch of key " + std::to_string(h->key) + " held by " +
                 describe(h->who) + " during " + span(h->acquired, h->released) +
                 " while " + describe(rival->who) + " held it during " +
                 span(rival->acquired, rival->released);
      out->push_back(std::move(v));
    }
    if (!last || h->released > last->released) {
      if (last && !same_worker(last->who, h->who)) other = last;
      last = h;
    } else if (!same_worker(last->who, h->who) && (!other || h->released > other->released)) {
      other = h;
    }
  }
}

}  // namespace

const char* to_string(HistoryViolation::Kind k) {
  switch (k) {
    case HistoryViolation::Kind::kTornRead: return "torn_read";
    case HistoryViolation::Kind::kStaleRead: return "stale_read";
    case HistoryViolation::Kind::kFutureRead: return "future_read";
    case HistoryViolation::Kind::kUnknownValue: return "unknown_value";
    case HistoryViolation::Kind::kOverlappingHolds: return "overlapping_holds";
  }
  return "?";
}

std::string describe(const Placement& p) {
  return std::string(p.on_memory_node() ? "memory " : "compute ") + std::to_string(p.node) + "/" +
         std::to_string(p.thread) + "/" + std::to_string(p.coroutine);
}

bool same_worker(const Placement& a, const Placement& b) {
  return a.kind == b.kind && a.node == b.node && a.thread == b.thread && a.coroutine == b.coroutine;
}

void History::record(const HistoryOp& op) {
  std::lock_guard<std::mutex> g(mu_);
  ops_.push_back(op);
}

void History::hold(const LatchHold& h) {
  std::lock_guard<std::mutex> g(mu_);
  holds_.push_back(h);
}

size_t History::size() const {
  std::lock_guard<std::mutex> g(mu_);
  return ops_.size();
}

size_t History::holds() const {
  std::lock_guard<std::mutex> g(mu_);
  return holds_.size();
}

void History::clear() {
  std::lock_guard<std::mutex> g(mu_);
  ops_.clear();
  holds_.clear();
}

std::vector<HistoryViolation> History::check(uint64_t initial) const {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<HistoryViolation> out;
  // Group by key, keeping recording order within a key.
  std::vector<const HistoryOp*> ops;
  ops.reserve(ops_.size());
  for (const HistoryOp& op : ops_) ops.push_back(&op);
  std::stable_sort(ops.begin(), ops.end(),
                   [](const HistoryOp* a, const HistoryOp* b) { return a->key < b->key; });
  std::vector<const HistoryOp*> group;
  for (size_t i = 0; i < ops.size();) {
    size_t j = i;
    while (j < ops.size() && ops[j]->key == ops[i]->key) ++j;
    group.assign(ops.begin() + static_cast<ptrdiff_t>(i), ops.begin() + static_cast<ptrdiff_t>(j));
    check_key(group, initial, &out);
    i = j;
  }
  std::vector<const LatchHold*> holds;
  holds.reserve(holds_.size());
  for (const LatchHold& h : holds_) holds.push_back(&h);
  std::stable_sort(holds.begin(), holds.end(),
                   [](const LatchHold* a, const LatchHold* b) { return a->key < b->key; });
  std::vector<const LatchHold*> key_holds;
  for (size_t i = 0; i < holds.size();) {
    size_t j = i;
    while (j < holds.size() && holds[j]->key == holds[i]->key) ++j;
    key_holds.assign(holds.begin() + static_cast<ptrdiff_t>(i), holds.begin() + static_cast<ptrdiff_t>(j));
    check_holds(key_holds, &out);
    i = j;
  }
  std::stable_sort(out.begin(), out.end(), [](const HistoryViolation& a, const HistoryViolation& b) {
    return a.key != b.key ? a.key < b.key : a.start < b.start;
  });
  return out;
}

void History::check(std::vector<ModelViolation>* out) const {
  LW_CHECK(out != nullptr);
  for (HistoryViolation& v : check(initial_)) {
    ModelViolation m;
    m.kind = to_string(v.kind);
    std::replace(m.kind.begin(), m.kind.end(), '_', '-');  // the models' spelling
    m.key = v.key;
    m.start = v.start;
    m.end = v.end;
    m.who = v.who;
    m.detail = std::move(v.detail);
    out->push_back(std::move(m));
  }
}

}  // namespace lw
