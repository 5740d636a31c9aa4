// Sherman's tree: the state shared by tree.cpp (config, create, stats),
// tree_ops.cpp (the operations) and tree_host.cpp (bulk load, contents).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "index_cache.h"
#include "latchwork/structures/sherman/tree.h"
#include "latchwork/verbs/chunk_allocator.h"
#include "node_format.h"

namespace lw::sherman {

// SMART-BT's speculative lookup cache of one compute node: key -> the
// address of the leaf entry that held it. Bounded: at capacity an arbitrary
// mapping goes. Thread-safe; never held across a co_await.
class SpeculativeCache {
 public:
  explicit SpeculativeCache(uint64_t capacity) : capacity_(capacity) {}
  std::optional<RemoteAddr> find(uint64_t key) const {
    std::lock_guard<std::mutex> g(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return RemoteAddr::from_raw(it->second);
  }
  void put(uint64_t key, RemoteAddr entry) {
    std::lock_guard<std::mutex> g(mu_);
    if (map_.size() >= capacity_ && !map_.count(key)) map_.erase(map_.begin());
    map_[key] = entry.raw();
  }
  void drop(uint64_t key) {
    std::lock_guard<std::mutex> g(mu_);
    map_.erase(key);
  }
  size_t size() const {
    std::lock_guard<std::mutex> g(mu_);
    return map_.size();
  }

 private:
  mutable std::mutex mu_;
  uint64_t capacity_;
  std::unordered_map<uint64_t, uint64_t> map_;
};

struct Tree::State {
  TreeConfig cfg;
  ClusterConfig cluster;
  NodeFormat format;
  locks::Hocl hocl;
  uint32_t memory_nodes = 0;
  RemoteAddr root_word;  // 8 bytes on memory node 0: the root node's address

  // Per compute node (placement().node).
  std::vector<std::unique_ptr<IndexCache>> caches;
  std::vector<std::unique_ptr<SpeculativeCache>> speculative;

  // Per thread slot (thread_index), one allocator per memory node, and the
  // thread's round-robin cursor over the memory nodes (§4.2.4).
  struct ThreadAlloc {
    std::vector<std::unique_ptr<ChunkAllocator>> per_node;
    uint32_t next = 0;
  };
  std::vector<ThreadAlloc> allocators;
  std::vector<std::unique_ptr<ChunkAllocator>> host_allocators;
  uint32_t host_next = 0;

  struct Counters {
    std::atomic<uint64_t> leaf_splits{0}, internal_splits{0}, root_splits{0};
    std::atomic<uint64_t> speculative_hits{0}, speculative_misses{0};
    std::atomic<uint64_t> torn_reads{0}, wrap_retries{0}, sibling_hops{0}, restarts{0};
    std::atomic<uint64_t> cache_invalidations{0};
  } stats;

  IndexCache& cache(const Worker& w) {
    const uint32_t n = w.placement().node;
    LW_CHECK_MSG(w.placement().kind == Placement::Kind::kCompute && n < caches.size(),
                 "tree operations run on compute workers");
    return *caches[n];
  }
  SpeculativeCache* spec(const Worker& w) {
    if (!cfg.speculative_lookup) return nullptr;
    return speculative.at(w.placement().node).get();
  }
  // The allocator of the worker's thread for `node`.
  ChunkAllocator& allocator(const Worker& w, NodeId node) {
    const size_t t = thread_index(cluster, w.placement());
    LW_CHECK_MSG(t < allocators.size(), "a thread the tree was not created for");
    auto& pn = allocators[t].per_node;
    if (pn.empty()) pn.resize(memory_nodes);
    LW_CHECK(node < pn.size());
    if (!pn[node]) pn[node] = std::make_unique<ChunkAllocator>(node, cfg.chunk_bytes);
    return *pn[node];
  }
  // The next memory node of the worker's thread, round-robin.
  NodeId next_node(const Worker& w) {
    const size_t t = thread_index(cluster, w.placement());
    LW_CHECK(t < allocators.size());
    return static_cast<NodeId>(allocators[t].next++ % memory_nodes);
  }
  RemoteAddr host_allocate(Backend& b) {
    const NodeId node = static_cast<NodeId>(host_next++ % memory_nodes);
    if (!host_allocators[node])
      host_allocators[node] = std::make_unique<ChunkAllocator>(node, cfg.chunk_bytes);
    return host_allocators[node]->allocate(b, cfg.node_bytes, kCacheLine);
  }
};

// A decoded internal node as the index cache keeps it.
CachedNode to_cached(const Node& n, RemoteAddr addr);

}  // namespace lw::sherman
