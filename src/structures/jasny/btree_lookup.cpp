// B-tree lookups: a bare READ per level (unsynchronized), shared latch
// coupling (pessimistic) and optimistic lock coupling.
#include <utility>

#include "btree_internal.h"

namespace lw {

Task<Status> BTree::lookup(Worker& w, uint64_t key, uint64_t* value, bool* found,
                           const RetryPolicy& policy) const {
  *found = false;
  switch (o_.sync) {
    case BTreeSync::kUnsynchronized: co_return co_await lookup_unsynchronized(w, key, value, found);
    case BTreeSync::kPessimistic: co_return co_await lookup_pessimistic(w, key, value, found, policy);
    case BTreeSync::kOptimistic: co_return co_await lookup_optimistic(w, key, value, found, policy);
  }
  co_return Status::kUnsupported;
}

Task<Status> BTree::lookup_unsynchronized(Worker& w, uint64_t key, uint64_t* value, bool* found) const {
  BTreeNode node(o_.node_bytes);
  RemoteAddr at = root_;
  for (uint32_t depth = 0; depth < kBTreeMaxDepth; ++depth) {
    Status s = co_await w.read(node.data(), at, node.bytes());
    if (!ok(s)) co_return s;
    LW_CHECK_MSG(node.sane(), "B-tree node " + at.to_string() + " is malformed (concurrent writer?)");
    if (node.is_leaf()) {
      *found = node.find(key, value);
      co_return Status::kOk;
    }
    at = node.child(node.child_index(key));
  }
  co_return Status::kRetryExhausted;
}

Task<Status> BTree::lookup_pessimistic(Worker& w, uint64_t key, uint64_t* value, bool* found,
                                       const RetryPolicy& policy) const {
  BTreeNode node(o_.node_bytes), child(o_.node_bytes);
  Status s = co_await btree::latch_shared_read(w, root_, &node, policy);
  if (!ok(s)) co_return s;
  RemoteAddr at = root_;
  for (uint32_t depth = 0; depth < kBTreeMaxDepth; ++depth) {
    if (node.is_leaf()) {
      *found = node.find(key, value);
      co_return btree::post_unlatch_shared(w, at);
    }
    // Latch coupling: the child is latched before the parent is let go.
    const RemoteAddr next = node.child(node.child_index(key));
    s = co_await btree::latch_shared_read(w, next, &child, policy);
    const Status released = btree::post_unlatch_shared(w, at);
    if (!ok(s)) co_return s;
    if (!ok(released)) co_return released;
    at = next;
    std::swap(node, child);
  }
  co_return btree::post_unlatch_shared(w, at);
}

Task<Status> BTree::lookup_optimistic(Worker& w, uint64_t key, uint64_t* value, bool* found,
                                      const RetryPolicy& policy) const {
  BTreeNode node(o_.node_bytes), child(o_.node_bytes);
  Backoff backoff(policy);
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    if (attempt > 0) co_await backoff.wait(w);
    bool valid = false;
    Status s = co_await btree::read_versioned(w, root_, &node, &valid);
    if (!ok(s)) co_return s;
    if (!valid) continue;
    RemoteAddr at = root_;
    for (uint32_t depth = 0; depth < kBTreeMaxDepth && valid; ++depth) {
      if (node.is_leaf()) {
        *found = node.find(key, value);
        co_return Status::kOk;
      }
      // The child is only trusted if the parent did not change meanwhile
      // (a split moves keys out of the child before the parent shows it).
      const RemoteAddr next = node.child(node.child_index(key));
      s = co_await btree::read_versioned(w, next, &child, &valid, at, node.word());
      if (!ok(s)) co_return s;
      at = next;
      std::swap(node, child);
    }
  }
  co_return Status::kRetryExhausted;
}

}  // namespace lw
