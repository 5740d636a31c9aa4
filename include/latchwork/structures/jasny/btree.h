// A remote B+-tree of uint64 keys and values in fixed-size nodes on one
// memory node (node layout: btree_node.h), synchronized one of three ways
// (Jasny et al. §3, §4.1, Fig. 11):
//
//   unsynchronized  a bare READ per node, no latches: the upper bound of
//                   lookups; insert is unsupported.
//   pessimistic     latch coupling on RwLatch words. Lookups: [FAA +2, READ
//                   node] per level (speculative read), the parent's FAA -2
//                   posted without waiting (async unlatch). Inserts:
//                   [CAS 0 -> X, READ node] top-down, each ancestor unlatched
//                   once its child is latched and not full.
//   optimistic      optimistic lock coupling on VersionWords. Each node is
//                   read by versioning (READ word, READ node, READ word); the
//                   parent's word is read again with the child's last READ and
//                   must be unchanged; any mismatch restarts from the root.
//                   Inserts CAS the leaf's word from the version they read
//                   (and on a split the parent's first) and bump it when done.
//
// Full nodes are split eagerly on the way down (with their parent latched),
// then the operation restarts, so a parent always has room for a separator.
// The root never moves: a full root is split in place into two new children.
// Nodes come from a pool allocated at create(); a remote FAA on the pool's
// counter hands them out, so allocation during run() costs one atomic.
// Every retry and restart is bounded by the RetryPolicy (kRetryExhausted).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "latchwork/structures/jasny/btree_node.h"
#include "latchwork/sync/retry.h"
#include "latchwork/verbs/backend.h"

namespace lw {

enum class BTreeSync : uint8_t { kUnsynchronized, kPessimistic, kOptimistic };
const char* to_string(BTreeSync s);
bool parse_btree_sync(std::string_view name, BTreeSync* out);

struct BTreeOptions {
  BTreeSync sync = BTreeSync::kOptimistic;
  uint32_t node_bytes = 4096;  // a multiple of 64, 256 B to 64 KB
  // Bytes between neighbouring nodes: with a 4 KB stride every latch word
  // would share its low 12 bits and so one NIC lock-table slot (§3.2, Fig. 5).
  uint32_t node_padding = 64;
  uint64_t max_nodes = 4096;  // the node pool, allocated by create()
  NodeId memory_node = 0;
  double fill = 0.8;          // bulk load: share of each node filled

  std::string validate() const;
};

class BTree {
 public:
  // Allocates the node pool and an empty root leaf.
  static std::string create(Backend& backend, const BTreeOptions& options, std::unique_ptr<BTree>* out);

  const BTreeOptions& options() const { return o_; }
  uint32_t capacity() const { return btree_capacity(o_.node_bytes); }
  RemoteAddr root() const { return root_; }

  // Host-side, before run(), on an empty tree: builds full levels from
  // strictly increasing keys, each node filled to options().fill.
  std::string bulk_load(Backend& backend, const std::vector<std::pair<uint64_t, uint64_t>>& sorted);
  // Host-side: levels of the tree (1 = the root is a leaf).
  uint32_t height(Backend& backend) const;
  // Host-side, outside run(): the value of `key`, if present.
  bool host_lookup(Backend& backend, uint64_t key, uint64_t* value) const;
  // Host-side, after run(): walks every level and checks order, fences,
  // sibling links and latch words; returns "" or what is wrong, and the
  // number of keys through *keys.
  std::string check_structure(Backend& backend, uint64_t* keys = nullptr) const;

  // Host-side, after run(): "" when every allocated node's latch word is
  // free, else the first taken one and its value (walks the node pool, so
  // it answers even when the tree's links are broken).
  std::string latch_state(Backend& backend) const;

  Task<Status> lookup(Worker& w, uint64_t key, uint64_t* value, bool* found,
                      const RetryPolicy& policy = {}) const;
  // Inserts `key` or updates its value in place.
  Task<Status> insert(Worker& w, uint64_t key, uint64_t value, const RetryPolicy& policy = {});

 private:
  explicit BTree(const BTreeOptions& o) : o_(o) {}

  Task<Status> lookup_unsynchronized(Worker& w, uint64_t key, uint64_t* value, bool* found) const;
  Task<Status> lookup_pessimistic(Worker& w, uint64_t key, uint64_t* value, bool* found,
                                  const RetryPolicy& policy) const;
  Task<Status> lookup_optimistic(Worker& w, uint64_t key, uint64_t* value, bool* found,
                                 const RetryPolicy& policy) const;
  Task<Status> insert_pessimistic(Worker& w, uint64_t key, uint64_t value, const RetryPolicy& policy);
  Task<Status> insert_optimistic(Worker& w, uint64_t key, uint64_t value, const RetryPolicy& policy);

  // Remote node allocation: FAA on the pool counter; null when the pool is spent.
  Task<Result<RemoteAddr>> allocate_nodes(Worker& w, uint32_t n) const;
  RemoteAddr node_at(uint64_t index) const { return pool_ + index * stride(); }
  uint64_t stride() const { return o_.node_bytes + o_.node_padding; }
  // The word of a fresh, unlatched node.
  uint64_t fresh_word() const { return 0; }
  // Appends the requests that unlatch `addr` (latched word `held`) to `b`.
  void add_unlatch(Batch& b, RemoteAddr addr, uint64_t held) const;
  // Unlatches `addr` without changing the node, and waits.
  Task<Status> unlatch(Worker& w, RemoteAddr addr, uint64_t held) const;
  // Splits the full `child` (latched, word `child_held`) below `parent`
  // (latched, `parent_held`) and unlatches both, in one batch.
  // `slot` is the child's index in the parent.
  Task<Status> split_child(Worker& w, RemoteAddr parent, BTreeNode& p, uint64_t parent_held, uint32_t slot,
                           RemoteAddr child, BTreeNode& c, uint64_t child_held) const;
  // Splits the full, latched root in place into two new children and unlatches it.
  Task<Status> split_root(Worker& w, BTreeNode& root, uint64_t held) const;

  BTreeOptions o_;
  RemoteAddr root_;
  RemoteAddr counter_;  // next free pool index
  RemoteAddr pool_;
};

}  // namespace lw
