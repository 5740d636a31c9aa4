// The map model: per key, a register whose puts store unique values and
// whose erases store "absent". A write certainly took effect by its
// completion, or (a put) by the end of a get that returned its value. With
// the certain writes sorted by that time, and the latest start of each
// prefix, "some write took effect before t and began after u" is one binary
// search; with the erases sorted by start, and the latest end of each
// prefix, so is "some erase could come after u and before t". O(n log n)
// per key.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "latchwork/base/assert.h"
#include "model_format.h"
#include "latchwork/check/history.h"
#include "latchwork/check/models.h"

namespace lw {
namespace {

using model_format::hex;
using model_format::span;

constexpr Nanos kNever = std::numeric_limits<Nanos>::max();

// A write that certainly took effect by `by`: its completion, or the end of
// `reader`, a get that returned its value.
template <typename Op>
struct Effect {
  Nanos by = kNever;
  const Op* write = nullptr;
  const Op* reader = nullptr;
};

// Certain writes sorted by `by`, with the index of the latest start in each
// prefix.
template <typename Op>
struct Certain {
  std::vector<Effect<Op>> done;
  std::vector<size_t> latest;

  void build() {
    std::sort(done.begin(), done.end(), [](const Effect<Op>& a, const Effect<Op>& b) {
      if (a.by != b.by) return a.by < b.by;
      return a.write->start < b.write->start;
    });
    latest.resize(done.size());
    for (size_t i = 0; i < done.size(); ++i)
      latest[i] = (i > 0 && done[latest[i - 1]].write->start >= done[i].write->start) ? latest[i - 1] : i;
  }
  // The latest-starting write that certainly took effect strictly before t.
  const Effect<Op>* latest_before(Nanos t) const {
    const size_t n = static_cast<size_t>(
        std::lower_bound(done.begin(), done.end(), t,
                         [](const Effect<Op>& e, Nanos x) { return e.by < x; }) -
        done.begin());
    return n == 0 ? nullptr : &done[latest[n - 1]];
  }
};

}  // namespace

void MapModel::put(uint64_t key, uint64_t value, Nanos start, Nanos end, const Placement& who, bool ok) {
  LW_CHECK(start <= end);
  std::lock_guard<std::mutex> g(mu_);
  ops_.push_back({Op::kPut, key, value, start, end, who, ok});
}

void MapModel::erase(uint64_t key, Nanos start, Nanos end, const Placement& who, bool ok) {
  LW_CHECK(start <= end);
  std::lock_guard<std::mutex> g(mu_);
  ops_.push_back({Op::kErase, key, std::nullopt, start, end, who, ok});
}

void MapModel::get(uint64_t key, std::optional<uint64_t> value, Nanos start, Nanos end,
                   const Placement& who) {
  LW_CHECK(start <= end);
  std::lock_guard<std::mutex> g(mu_);
  ops_.push_back({Op::kGet, key, value, start, end, who, true});
}

void MapModel::final_contents(std::vector<std::pair<uint64_t, uint64_t>> contents) {
  std::lock_guard<std::mutex> g(mu_);
  have_final_ = true;
  final_ = std::move(contents);
}

size_t MapModel::size() const {
  std::lock_guard<std::mutex> g(mu_);
  return ops_.size();
}

void MapModel::check(std::vector<ModelViolation>* out) const {
  LW_CHECK(out != nullptr);
  std::lock_guard<std::mutex> g(mu_);
  const size_t first = out->size();  // `out` may hold other models' violations

  auto text = [](const Op& o) {
    std::string s;
    if (o.kind == Op::kPut) s = "put " + hex(*o.value);
    else if (o.kind == Op::kErase) s = "erase";
    else s = "get";
    s += " by " + describe(o.who) + " during " + span(o.start, o.end);
    if (o.kind == Op::kGet) s += o.value ? " returning " + hex(*o.value) : " returning absent";
    if (!o.ok) s += " (gave up)";
    return s;
  };
  auto witness = [&](const Effect<Op>& e) {
    std::string s = text(*e.write);
    if (e.reader) s += " (its value was read by the " + text(*e.reader) + ")";
    return s;
  };
  auto report = [&](const char* kind, uint64_t key, const Op* o, Nanos at, std::string detail) {
    ModelViolation v;
    v.kind = kind;
    v.key = key;
    v.start = o ? o->start : at;
    v.end = o ? o->end : at;
    if (o) v.who = o->who;
    v.final_state = o == nullptr;  // the final contents'
    v.detail = std::move(detail);
    out->push_back(std::move(v));
  };

  std::vector<const Op*> ops;
  ops.reserve(ops_.size());
  for (const Op& o : ops_) ops.push_back(&o);
  std::stable_sort(ops.begin(), ops.end(), [](const Op* a, const Op* b) { return a->key < b->key; });
  std::vector<std::pair<uint64_t, uint64_t>> finals = have_final_ ? final_ : decltype(final_){};
  std::stable_sort(finals.begin(), finals.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  // Per key, reused across keys.
  std::unordered_map<uint64_t, Effect<Op>> puts;  // value -> its put's effect
  Certain<Op> writes, certain_puts;
  std::vector<const Op*> erases;     // sorted by start
  std::vector<size_t> erase_end;     // the latest-ending erase of each prefix of `erases`
  size_t fi = 0;
  for (size_t i = 0; i < ops.size() || fi < finals.size();) {
    uint64_t key = i < ops.size() ? ops[i]->key : finals[fi].first;
    if (fi < finals.size()) key = std::min(key, finals[fi].first);
    size_t j = i;
    Nanos last = 0;
    while (j < ops.size() && ops[j]->key == key) last = std::max(last, ops[j++]->end);
    const std::string head = "key " + std::to_string(key) + ": ";

    puts.clear();
    erases.clear();
    for (size_t k = i; k < j; ++k) {
      const Op* o = ops[k];
      if (o->kind == Op::kErase) erases.push_back(o);
      if (o->kind != Op::kPut) continue;
      auto [it, fresh] = puts.try_emplace(*o->value);
      LW_CHECK_MSG(fresh, "MapModel: two puts of value " + hex(*o->value) + " to key " +
                              std::to_string(key) + " (put values must be unique per key)");
      it->second.write = o;
      if (o->ok) it->second.by = o->end;
    }
    auto source = [&](const Op& get) -> Effect<Op>* {
      auto it = puts.find(*get.value);
      return it == puts.end() ? nullptr : &it->second;
    };
    // A get that returned a put's value (and did not end before the put
    // began) proves the put took effect by the get's end.
    for (size_t k = i; k < j; ++k) {
      const Op* o = ops[k];
      if (o->kind != Op::kGet || !o->value) continue;
      Effect<Op>* e = source(*o);
      if (e && e->write->start <= o->end && o->end < e->by) {
        e->by = o->end;
        e->reader = o;
      }
    }
    writes.done.clear();
    certain_puts.done.clear();
    for (const auto& [value, e] : puts) {
      if (e.by == kNever) continue;
      writes.done.push_back(e);
      certain_puts.done.push_back(e);
    }
    for (const Op* o : erases)
      if (o->ok) writes.done.push_back({o->end, o, nullptr});
    writes.build();
    certain_puts.build();
    std::sort(erases.begin(), erases.end(), [](const Op* a, const Op* b) { return a->start < b->start; });
    erase_end.clear();
    for (size_t k = 0; k < erases.size(); ++k)
      erase_end.push_back(k > 0 && erases[erase_end[k - 1]]->end >= erases[k]->end ? erase_end[k - 1] : k);
    // The latest-ending erase among those begun no later than t (null: none).
    auto erase_until = [&](Nanos t) -> const Op* {
      const size_t n = static_cast<size_t>(
          std::upper_bound(erases.begin(), erases.end(), t,
                           [](Nanos x, const Op* o) { return x < o->start; }) -
          erases.begin());
      return n == 0 ? nullptr : erases[erase_end[n - 1]];
    };

    for (size_t k = i; k < j; ++k) {
      const Op* r = ops[k];
      if (r->kind != Op::kGet) continue;
      if (r->value) {
        const Effect<Op>* src = source(*r);
        if (!src) {
          report("unknown-value", key, r, 0,
                 head + text(*r) + ", a value no put of the key stored");
          continue;
        }
        const Op& w = *src->write;
        if (w.start > r->end) {
          report("future-read", key, r, 0,
                 head + text(*r) + ", the value of the " + text(w) + ", which began after the get ended");
          continue;
        }
        const Effect<Op>* later = writes.latest_before(r->start);
        if (later && later->write->start > w.end) {
          const bool erased = later->write->kind == Op::kErase;
          report(erased ? "present-when-absent" : "stale-read", key, r, 0,
                 head + text(*r) + ", the value of the " + text(w) + ", but the " + witness(*later) +
                     (erased ? " erased it" : " overwrote it") + " before the get began");
        }
        continue;
      }
      // Absent: fine unless a put certainly took effect before the get began
      // and no erase can sit between that put and the get.
      const Effect<Op>* p = certain_puts.latest_before(r->start);
      if (!p) continue;
      const Op* e = erase_until(r->end);
      if (e && e->end >= p->write->start) continue;
      report("absent-when-present", key, r, 0,
             head + text(*r) + ", but the " + witness(*p) +
                 " took effect before the get began and no erase could follow it" +
                 (e ? " (the latest-ending erase begun in time: " + text(*e) + ")" : " (no erase began in time)"));
    }

    if (have_final_) {
      const Effect<Op>* latest = writes.done.empty() ? nullptr : &writes.done[writes.latest.back()];
      bool present = false;
      for (; fi < finals.size() && finals[fi].first == key; ++fi) {
        const uint64_t v = finals[fi].second;
        const std::string fh = head + "final value " + hex(v);
        if (present) {
          report("duplicate-key", key, nullptr, last, fh + " listed again in the final contents");
          continue;
        }
        present = true;
        auto it = puts.find(v);
        if (it == puts.end()) {
          report("unknown-value", key, nullptr, last, fh + " was stored by no put of the key");
          continue;
        }
        const Op& w = *it->second.write;
        if (latest && latest->write->start > w.end) {
          const bool erased = latest->write->kind == Op::kErase;
          report(erased ? "lost-erase" : "lost-update", key, nullptr, last,
                 fh + " (" + text(w) + "), but the " + witness(*latest) + " took effect after it");
        }
      }
      if (!present) {
        const Effect<Op>* p = certain_puts.done.empty() ? nullptr : &certain_puts.done[certain_puts.latest.back()];
        const Op* e = erases.empty() ? nullptr : erase_until(kNever);
        if (p && !(e && e->end >= p->write->start))
          report("lost-update", key, nullptr, last,
                 head + "absent from the final contents, but the " + witness(*p) +
                     " took effect and no erase could follow it");
      }
    }
    i = j;
  }
  std::stable_sort(out->begin() + static_cast<ptrdiff_t>(first), out->end(),
                   [](const ModelViolation& a, const ModelViolation& b) {
                     return a.key != b.key ? a.key < b.key : a.start < b.start;
                   });
}

}  // namespace lw
