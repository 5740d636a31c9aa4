// In-memory operations on a B+-tree node image (layout: btree_node.h).
#include "latchwork/structures/jasny/btree_node.h"

namespace lw {

uint32_t BTreeNode::lower_bound(uint64_t key) const {
  uint32_t lo = 0, hi = count();
  while (lo < hi) {  // binary search: at most log2(capacity) steps
    const uint32_t mid = lo + (hi - lo) / 2;
    if (this->key(mid) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

uint32_t BTreeNode::child_index(uint64_t key) const {
  LW_CHECK(!is_leaf() && count() >= 1);
  // The first key > `key`, minus one; keys[0] counts as minus infinity.
  uint32_t lo = 1, hi = count();
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (this->key(mid) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

bool BTreeNode::find(uint64_t key, uint64_t* v) const {
  const uint32_t i = lower_bound(key);
  if (i == count() || this->key(i) != key) return false;
  *v = val(i);
  return true;
}

void BTreeNode::upsert(uint64_t key, uint64_t v) {
  LW_CHECK(is_leaf());
  const uint32_t n = count(), at = lower_bound(key);
  if (at < n && this->key(at) == key) {
    set(at, key, v);
    return;
  }
  LW_CHECK_MSG(n < cap_, "insert into a full leaf");
  for (uint32_t i = n; i > at; --i) set(i, this->key(i - 1), val(i - 1));
  set(at, key, v);
  set_meta(level(), n + 1);
}

void BTreeNode::insert_child(uint32_t at, uint64_t key, RemoteAddr c) {
  LW_CHECK(!is_leaf());
  const uint32_t n = count();
  LW_CHECK_MSG(n < cap_ && at < n, "separator into a full inner node");
  for (uint32_t i = n; i > at + 1; --i) set(i, this->key(i - 1), val(i - 1));
  set(at + 1, key, c.raw());
  set_meta(level(), n + 1);
}

void BTreeNode::move_upper(uint32_t from, BTreeNode* r) {
  const uint32_t n = count();
  LW_CHECK(from > 0 && from < n && r->count() == 0 && r->cap_ == cap_);
  for (uint32_t i = from; i < n; ++i) r->set(i - from, key(i), val(i));
  r->set_meta(level(), n - from);
  // Clear the moved slots so images stay deterministic.
  for (uint32_t i = from; i < n; ++i) set(i, 0, 0);
  set_meta(level(), from);
}

}  // namespace lw
