// The engine's shared state: handler ids and the per-thread location caches
// (DrTM §5.1, DrTM+H §6.1: a record's address, learnt from a lookup or an
// RPC reply, saves the bucket READ next time).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "latchwork/txn/txn.h"
#include "wire.h"

namespace lw::txn {

// One thread's cache; only that thread's coroutines use it (no lock).
class LocationCache {
 public:
  explicit LocationCache(uint64_t capacity) : capacity_(capacity) {}
  RemoteAddr find(TableId t, uint64_t key) const {
    auto it = map_.find(slot(t, key));
    return it == map_.end() ? RemoteAddr() : RemoteAddr::from_raw(it->second);
  }
  // No eviction: beyond capacity the cache stops filling.
  void fill(TableId t, uint64_t key, RemoteAddr a) {
    if (map_.size() < capacity_) map_.emplace(slot(t, key), a.raw());
  }

 private:
  struct Key {
    TableId t;
    uint64_t key;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.key * 0x9e3779b97f4a7c15ull ^ k.t); }
  };
  static Key slot(TableId t, uint64_t key) { return {t, key}; }
  uint64_t capacity_;
  std::unordered_map<Key, uint64_t, Hash> map_;
};

struct Engine::Impl {
  HandlerId ids[wire::kHandlers] = {};
  bool have_handlers = false;
  // Record locks are freed with CAS(lock word -> 0), awaited, instead of a
  // WRITE of 0: where a failed CAS writes back what it read (Soft-RoCE;
  // Capabilities::failed_cas_writes_back), another coordinator's failed lock
  // CAS spanning the WRITE rewrites the lock word over it, and the record
  // stays locked for good. NIC atomics do not lose each other.
  bool release_by_cas = false;
  std::vector<std::unique_ptr<LocationCache>> caches;  // by thread_index()
};

// Whether a design calls any handler (disaggregated FORD does not).
bool needs_handlers(const DesignConfig& d, uint32_t replicas);

}  // namespace lw::txn
