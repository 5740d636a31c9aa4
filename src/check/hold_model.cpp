// The hold model: per key, holds sorted by acquisition, each compared with
// the latest-releasing earlier hold of another worker in each mode. Every
// earlier hold began no later, so if any of them overlaps the new hold, the
// latest-releasing one does: O(n log n) per key, one report per hold that
// overlaps an earlier one.
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "latchwork/base/assert.h"
#include "model_format.h"
#include "latchwork/check/history.h"
#include "latchwork/check/models.h"

namespace lw {
namespace {

using model_format::hex;
using model_format::span;

// The latest-releasing hold so far, and the latest-releasing one of any
// other worker than its: whichever worker asks, one of them is its rival.
template <typename H>
struct Latest {
  const H* last = nullptr;
  const H* other = nullptr;

  const H* rival(const H& h) const {
    if (last && !same_worker(last->who, h.who)) return last;
    return other;
  }
  void add(const H* h) {
    if (!last || h->released > last->released) {
      if (last && !same_worker(last->who, h->who)) other = last;
      last = h;
    } else if (!same_worker(last->who, h->who) && (!other || h->released > other->released)) {
      other = h;
    }
  }
};

template <typename H>
bool overlap(const H& a, const H& b) {
  return a.acquired < b.released && b.acquired < a.released;  // touching is fine
}

}  // namespace

void HoldModel::exclusive(uint64_t key, Nanos acquired, Nanos released, const Placement& who) {
  LW_CHECK(acquired <= released);
  std::lock_guard<std::mutex> g(mu_);
  holds_.push_back({key, acquired, released, who, true});
}

void HoldModel::shared(uint64_t key, Nanos acquired, Nanos released, const Placement& who) {
  LW_CHECK(acquired <= released);
  std::lock_guard<std::mutex> g(mu_);
  holds_.push_back({key, acquired, released, who, false});
}

size_t HoldModel::size() const {
  std::lock_guard<std::mutex> g(mu_);
  return holds_.size();
}

void HoldModel::check(std::vector<ModelViolation>* out) const {
  LW_CHECK(out != nullptr);
  std::lock_guard<std::mutex> g(mu_);
  std::vector<const Hold*> holds;
  holds.reserve(holds_.size());
  for (const Hold& h : holds_) holds.push_back(&h);
  std::sort(holds.begin(), holds.end(), [](const Hold* a, const Hold* b) {
    if (a->key != b->key) return a->key < b->key;
    if (a->acquired != b->acquired) return a->acquired < b->acquired;
    return a->released < b->released;
  });
  auto text = [](const Hold& h) {
    return std::string(h.exclusive ? "exclusive" : "shared") + " hold by " + describe(h.who) +
           " during " + span(h.acquired, h.released);
  };
  Latest<Hold> excl, shar;
  for (size_t i = 0; i < holds.size(); ++i) {
    const Hold& h = *holds[i];
    if (i == 0 || holds[i - 1]->key != h.key) excl = shar = {};
    // An exclusive rival conflicts with any hold; a shared one only with an
    // exclusive hold.
    const Hold* rival = excl.rival(h);
    if (!(rival && overlap(*rival, h))) rival = h.exclusive ? shar.rival(h) : nullptr;
    if (rival && overlap(*rival, h)) {
      ModelViolation v;
      v.kind = h.exclusive && rival->exclusive ? "overlapping-holds" : "shared-overlaps-exclusive";
      v.key = h.key;
      v.start = h.acquired;
      v.end = h.released;
      v.who = h.who;
      v.detail = "key " + std::to_string(h.key) + ": " + text(h) + " overlaps the " + text(*rival);
      out->push_back(std::move(v));
    }
    (h.exclusive ? excl : shar).add(&h);
  }
  // Already sorted by key, then acquisition.
}

}  // namespace lw
