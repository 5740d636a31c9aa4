// Sherman's index cache (§4.2.3): one per compute node, shared by its
// threads. It holds copies of internal nodes:
//   - the top levels (the root and the level below it) always, replaced
//     wholesale when the tree grows or a copy turns out stale;
//   - level-1 nodes (parents of leaves) in a cache bounded by bytes, evicting
//     by power of two choices: two random entries, the less recently used
//     goes.
// A copy can be stale: the tree checks the fences and level of every node it
// reaches through one and calls invalidate() when they do not fit, then
// retraverses. Nothing else keeps the cache coherent, and nothing needs to:
// internal nodes only route (the data is read from leaves).
//
// Thread-safe (one mutex; the threads and verbs backends run a compute
// node's threads in parallel). Never held across a co_await.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "latchwork/base/random.h"
#include "latchwork/base/remote_ptr.h"

namespace lw::sherman {

// A decoded internal node as the cache keeps it: separators sorted, and
// children[0] covers [low, separators[0]), children[i] covers
// [separators[i-1], separators[i]), the last [separators.back(), high).
// children.size() == separators.size() + 1.
struct CachedNode {
  RemoteAddr addr;
  uint8_t level = 0;      // >= 1
  uint64_t low = 0, high = 0;
  std::vector<uint64_t> separators;
  std::vector<RemoteAddr> children;
  // Bytes the entry is charged against the budget (the node's size).
  uint64_t bytes() const { return 64 + 16 * children.size(); }
  // The child covering key (low <= key < high assumed).
  RemoteAddr child_for(uint64_t key) const;
};

struct IndexCacheStats {
  uint64_t hits = 0, misses = 0, invalidations = 0, evictions = 0;
  uint64_t entries = 0, bytes = 0;  // level-1 entries held now
};

class IndexCache {
 public:
  // `seed` drives the eviction's random choices (deterministic on sim when
  // calls come in a deterministic order).
  IndexCache(uint64_t capacity_bytes, uint64_t seed);

  // The always-cached top: nodes of the highest two levels (root first).
  // Replaces whatever was there.
  void set_top(std::vector<CachedNode> top);
  // The deepest cached top node covering `key` (a copy); nullopt when the
  // top is empty.
  std::optional<CachedNode> top_for(uint64_t key) const;
  // Drops the whole top (it is re-read from the root word on next use).
  void clear_top();

  // Level-1 nodes. put() replaces an entry with the same addr; evicts by
  // power of two choices while over capacity.
  void put(const CachedNode& n);
  struct LeafRoute {
    RemoteAddr leaf;        // the child for the key
    RemoteAddr level1;      // the cached node that routed it (for invalidate)
  };
  // Counts a hit or a miss.
  std::optional<LeafRoute> find_leaf(uint64_t key);
  // The cached level-1 nodes overlapping [from, to), in key order (range
  // queries use them to READ leaves in parallel).
  std::vector<CachedNode> covering(uint64_t from, uint64_t to) const;
  // Drops the level-1 entry of the node at `level1` (no-op when absent).
  void invalidate(RemoteAddr level1);

  IndexCacheStats stats() const;

 private:
  struct Entry {
    CachedNode node;
    uint64_t last_use = 0;
  };
  void evict_locked();
  // Drops entries_[i], keeping the indexes consistent (swap with the last).
  void remove_locked(uint32_t i);
  // The by_low_ position of the entry with the greatest low <= key, or -1.
  int64_t floor_locked(uint64_t key) const;

  mutable std::mutex mu_;
  uint64_t capacity_bytes_;
  Rng rng_;
  uint64_t clock_ = 0;
  std::vector<CachedNode> top_;
  // Level-1 entries in a vector (random choice in O(1)), indexed by low key
  // (ordered, for find_leaf and covering) and by address.
  std::vector<Entry> entries_;
  std::vector<std::pair<uint64_t, uint32_t>> by_low_;  // sorted (low, entry index)
  std::unordered_map<uint64_t, uint32_t> by_addr_;     // RemoteAddr raw -> entry index
  uint64_t bytes_ = 0;
  IndexCacheStats stats_;
};

}  // namespace lw::sherman
