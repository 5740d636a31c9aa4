// The layout of a remote B+-tree node, and a host-side image of one.
//
// A node is `node_bytes` (a multiple of 64) on one memory node, read and
// written as 64-bit words. C = capacity = (node_bytes / 8 - 4) / 2 entries
// (254 for 4 KB, 30 for 512 B):
//
//   byte 0        8              16         24        32          32+8C        32+16C
//      +---------+-------+-------+----------+---------+-----------+------------+-----+
//      |  word   | level | count |  right   |  high   | keys[C]   | vals[C]    | pad |
//      +---------+-------+-------+----------+---------+-----------+------------+-----+
//        latch /   u32     u32     sibling    fence     sorted       leaf: values
//        version                  RemoteAddr  key       uint64       inner: child
//                                 (0: none)                          RemoteAddr raw
//
// word: the VersionWord of sync/optimistic.h (optimistic), an RwLatch word
// (pessimistic) or unused (unsynchronized). Only atomics touch it after the
// node is published; writes of a node cover bytes 8.. so they never race
// with an atomic on the word (a NIC atomic may lose a racing WRITE, §3.3).
//
// Inner node with count n: child i holds keys in [keys[i], keys[i+1]); keys[0]
// acts as minus infinity. Leaf: keys[0..n) sorted, vals[i] belongs to keys[i].
// right/high (B-link): keys >= high live in the right sibling; set by splits
// and bulk load, kept for structural checks and future move-right readers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "latchwork/base/assert.h"
#include "latchwork/base/layout.h"
#include "latchwork/base/remote_ptr.h"

namespace lw {

struct BTreeNodeHeader {
  uint64_t word;
  uint32_t level;  // 0 = leaf
  uint32_t count;
  uint64_t right;  // RemoteAddr::raw() of the right sibling, 0 = none
  uint64_t high;   // fence key, meaningful when right != 0
};
static_assert(sizeof(BTreeNodeHeader) == 32, "the header is four words");
static_assert(offsetof(BTreeNodeHeader, word) == 0, "the latch word leads the node (one atomic target)");
static_assert(offsetof(BTreeNodeHeader, right) % kWord == 0 && offsetof(BTreeNodeHeader, high) % kWord == 0);

inline constexpr uint32_t kBTreeHeaderWords = sizeof(BTreeNodeHeader) / kWord;
inline constexpr uint32_t kBTreeMaxDepth = 32;  // bounds every descent

constexpr bool btree_node_size_ok(uint32_t bytes) {
  return bytes >= 256 && bytes <= (64u << 10) && bytes % kCacheLine == 0;
}
constexpr uint32_t btree_capacity(uint32_t node_bytes) {
  return (node_bytes / kWord - kBTreeHeaderWords) / 2;
}
static_assert(btree_node_size_ok(4096) && btree_capacity(4096) == 254);
static_assert(btree_capacity(512) == 30);

// A node as read into (or built in) compute-node memory.
class BTreeNode {
 public:
  explicit BTreeNode(uint32_t node_bytes)
      : w_(node_bytes / kWord, 0), cap_(btree_capacity(node_bytes)) {
    LW_CHECK(btree_node_size_ok(node_bytes));
  }

  void* data() { return w_.data(); }
  const void* data() const { return w_.data(); }
  uint32_t bytes() const { return static_cast<uint32_t>(w_.size() * kWord); }
  uint32_t capacity() const { return cap_; }

  uint64_t word() const { return w_[0]; }
  void set_word(uint64_t v) { w_[0] = v; }
  uint32_t level() const { return static_cast<uint32_t>(w_[1]); }
  uint32_t count() const { return static_cast<uint32_t>(w_[1] >> 32); }
  void set_meta(uint32_t level, uint32_t count) { w_[1] = uint64_t{level} | uint64_t{count} << 32; }
  RemoteAddr right() const { return RemoteAddr::from_raw(w_[2]); }
  uint64_t high() const { return w_[3]; }
  void set_link(RemoteAddr right, uint64_t high) {
    w_[2] = right.raw();
    w_[3] = high;
  }
  bool is_leaf() const { return level() == 0; }
  bool full() const { return count() >= cap_; }
  // A validated image must pass this; a torn one may not.
  bool sane() const { return count() <= cap_ && (is_leaf() || count() >= 1) && level() < kBTreeMaxDepth; }

  uint64_t key(uint32_t i) const { return w_[kBTreeHeaderWords + i]; }
  uint64_t val(uint32_t i) const { return w_[kBTreeHeaderWords + cap_ + i]; }
  RemoteAddr child(uint32_t i) const { return RemoteAddr::from_raw(val(i)); }
  void set(uint32_t i, uint64_t key, uint64_t val) {
    w_[kBTreeHeaderWords + i] = key;
    w_[kBTreeHeaderWords + cap_ + i] = val;
  }

  // First index whose key is >= `key` (count() if none).
  uint32_t lower_bound(uint64_t key) const;
  // Inner: the child covering `key` (the last i with keys[i] <= key, else 0).
  uint32_t child_index(uint64_t key) const;
  // Leaf: the value of `key`, if present.
  bool find(uint64_t key, uint64_t* val) const;
  // Leaf: updates `key` in place or inserts it (not full(), or the key present).
  void upsert(uint64_t key, uint64_t val);
  // Inner: inserts the separator of a new child right after child `at`.
  void insert_child(uint32_t at, uint64_t key, RemoteAddr child);
  // Moves entries [from, count) to the empty `right` node (same level).
  void move_upper(uint32_t from, BTreeNode* right);

 private:
  std::vector<uint64_t> w_;
  uint32_t cap_;
};

}  // namespace lw
