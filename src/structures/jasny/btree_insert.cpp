// B-tree inserts: exclusive latch coupling (pessimistic) and optimistic lock
// coupling, both splitting full nodes eagerly on the way down and then
// restarting, so a parent always has room for the new separator.
#include <utility>

#include "btree_internal.h"
#include "latchwork/sync/exclusive_latch.h"
#include "latchwork/sync/optimistic.h"

namespace lw {

Task<Status> BTree::insert(Worker& w, uint64_t key, uint64_t value, const RetryPolicy& policy) {
  switch (o_.sync) {
    case BTreeSync::kUnsynchronized: co_return Status::kUnsupported;  // no writers without latches
    case BTreeSync::kPessimistic: co_return co_await insert_pessimistic(w, key, value, policy);
    case BTreeSync::kOptimistic: co_return co_await insert_optimistic(w, key, value, policy);
  }
  co_return Status::kUnsupported;
}

Task<Status> BTree::unlatch(Worker& w, RemoteAddr addr, uint64_t held) const {
  Batch b;
  add_unlatch(b, addr, held);
  co_return co_await w.execute(b);
}

Task<Status> BTree::split_root(Worker& w, BTreeNode& root, uint64_t held) const {
  Result<RemoteAddr> got = co_await allocate_nodes(w, 2);
  if (!got.ok()) {
    (void)co_await unlatch(w, root_, held);
    co_return got.status;
  }
  const RemoteAddr left = got.value, right = got.value + stride();
  BTreeNode l = root, r(o_.node_bytes);
  l.set_word(fresh_word());
  r.set_word(fresh_word());
  l.move_upper(l.count() / 2, &r);
  l.set_link(right, r.key(0));
  BTreeNode top(o_.node_bytes);
  top.set_meta(root.level() + 1, 2);
  // keys[0] of an inner node is its low fence; the root's is minus infinity
  // (0). Copying the left child's smallest key would leave a stale fence
  // above keys later inserted below it (latchwork check --structure btree
  // found it: seed 14).
  top.set(0, 0, left.raw());
  top.set(1, r.key(0), right.raw());
  // The new children land before the root points to them (one QP, in order);
  // the root's word is left to the unlatch.
  auto* bytes = static_cast<const std::byte*>(top.data());
  Batch b;
  b.write(left, l.data(), l.bytes());
  b.write(right, r.data(), r.bytes());
  b.write(root_ + kWord, bytes + kWord, top.bytes() - kWord);
  add_unlatch(b, root_, held);
  co_return co_await w.execute(b);
}

Task<Status> BTree::split_child(Worker& w, RemoteAddr parent, BTreeNode& p, uint64_t parent_held,
                                uint32_t slot, RemoteAddr child, BTreeNode& c, uint64_t child_held) const {
  Result<RemoteAddr> got = co_await allocate_nodes(w, 1);
  if (!got.ok()) {
    Batch b;
    add_unlatch(b, child, child_held);
    add_unlatch(b, parent, parent_held);
    (void)co_await w.execute(b);
    co_return got.status;
  }
  const RemoteAddr fresh = got.value;
  BTreeNode r(o_.node_bytes);
  r.set_word(fresh_word());
  c.move_upper(c.count() / 2, &r);
  r.set_link(c.right(), c.high());
  c.set_link(fresh, r.key(0));
  p.insert_child(slot, r.key(0), fresh);
  // New right half, then the left half pointing to it, then the parent:
  // executed in posting order on one QP, each word released last.
  auto* cb = static_cast<const std::byte*>(c.data());
  auto* pb = static_cast<const std::byte*>(p.data());
  Batch b;
  b.write(fresh, r.data(), r.bytes());
  b.write(child + kWord, cb + kWord, c.bytes() - kWord);
  b.write(parent + kWord, pb + kWord, p.bytes() - kWord);
  add_unlatch(b, child, child_held);
  add_unlatch(b, parent, parent_held);
  co_return co_await w.execute(b);
}

Task<Status> BTree::insert_pessimistic(Worker& w, uint64_t key, uint64_t value, const RetryPolicy& policy) {
  constexpr uint64_t kHeld = RwLatch::kExclusive;
  BTreeNode node(o_.node_bytes), child(o_.node_bytes);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Status s = co_await btree::latch_exclusive_read(w, root_, &node, policy);
    if (!ok(s)) co_return s;
    if (node.full()) {
      s = co_await split_root(w, node, kHeld);
      if (!ok(s)) co_return s;
      continue;
    }
    RemoteAddr at = root_;
    bool restart = false;
    for (uint32_t depth = 0; depth < kBTreeMaxDepth && !restart; ++depth) {
      if (node.is_leaf()) {
        node.upsert(key, value);
        auto* bytes = static_cast<const std::byte*>(node.data());
        Batch b;
        b.write(at + kWord, bytes + kWord, node.bytes() - kWord);
        add_unlatch(b, at, kHeld);
        // Waited for, so that the value is in place when insert returns.
        co_return co_await w.execute(b);
      }
      const uint32_t slot = node.child_index(key);
      const RemoteAddr next = node.child(slot);
      s = co_await btree::latch_exclusive_read(w, next, &child, policy);
      if (!ok(s)) {
        (void)co_await unlatch(w, at, kHeld);
        co_return s;
      }
      if (child.full()) {
        s = co_await split_child(w, at, node, kHeld, slot, next, child, kHeld);
        if (!ok(s)) co_return s;
        restart = true;
        continue;
      }
      // The child is safe (it has room): the parent can go, asynchronously.
      Batch b;
      add_unlatch(b, at, kHeld);
      s = w.post(b);
      if (!ok(s)) co_return s;
      at = next;
      std::swap(node, child);
    }
    if (!restart) co_return Status::kRetryExhausted;  // deeper than kBTreeMaxDepth
  }
  co_return Status::kRetryExhausted;
}

Task<Status> BTree::insert_optimistic(Worker& w, uint64_t key, uint64_t value, const RetryPolicy& policy) {
  BTreeNode node(o_.node_bytes), child(o_.node_bytes);
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    if (attempt > 0) co_await backoff.wait(w);
    bool valid = false;
    Status s = co_await btree::read_versioned(w, root_, &node, &valid);
    if (!ok(s)) co_return s;
    if (!valid) continue;
    if (node.full()) {
      // Latching from the version read keeps the image we split current.
      const uint64_t seen = node.word();
      Result<uint64_t> r = co_await w.cas(root_, seen, seen | VersionWord::kLatched);
      if (!r.ok()) co_return r.status;
      if (r.value != seen) continue;
      s = co_await split_root(w, node, seen | VersionWord::kLatched);
      if (!ok(s)) co_return s;
      continue;
    }
    RemoteAddr at = root_;
    for (uint32_t depth = 0; depth < kBTreeMaxDepth && valid; ++depth) {
      const uint64_t seen = node.word(), held = seen | VersionWord::kLatched;
      if (node.is_leaf()) {
        Result<uint64_t> r = co_await w.cas(at, seen, held);
        if (!r.ok()) co_return r.status;
        if (r.value != seen) break;  // changed since it was read: restart
        node.upsert(key, value);
        auto* bytes = static_cast<const std::byte*>(node.data());
        Batch b;
        b.write(at + kWord, bytes + kWord, node.bytes() - kWord);
        add_unlatch(b, at, held);
        co_return co_await w.execute(b);
      }
      const uint32_t slot = node.child_index(key);
      const RemoteAddr next = node.child(slot);
      s = co_await btree::read_versioned(w, next, &child, &valid, at, seen);
      if (!ok(s)) co_return s;
      if (!valid) break;
      if (child.full()) {
        // Parent first, then child (top-down), each from the version read.
        Result<uint64_t> r = co_await w.cas(at, seen, held);
        if (!r.ok()) co_return r.status;
        if (r.value != seen) break;
        const uint64_t child_seen = child.word(), child_held = child_seen | VersionWord::kLatched;
        r = co_await w.cas(next, child_seen, child_held);
        if (!r.ok()) co_return r.status;
        if (r.value != child_seen) {
          s = co_await unlatch(w, at, held);
          if (!ok(s)) co_return s;
          break;
        }
        s = co_await split_child(w, at, node, held, slot, next, child, child_held);
        if (!ok(s)) co_return s;
        break;
      }
      at = next;
      std::swap(node, child);
    }
  }
  co_return Status::kRetryExhausted;
}

}  // namespace lw
