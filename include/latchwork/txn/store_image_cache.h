// Memory images of built stores, shared by the runs of a repro figure: a
// store built again from the same plan at the same addresses copies the first
// build's memory image (Backend::host_install_image) instead of
// encoding and writing every record and bucket again.
//
// Exact: an image is used only for the same plan object (the same records,
// tables, home answers and layout: StorePlanCache hands out one object per
// such load) and the same address of every table allocation, so the bytes
// are those the writes would produce. Thread-safe;
// bounded by the bytes the images hold (the oldest go first; one larger
// than the bound is not kept).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "latchwork/verbs/host_image.h"
#include "latchwork/base/remote_ptr.h"

namespace lw::txn {

struct StorePlan;

// What decides a built store's bytes.
struct StoreImageKey {
  // Compared by identity (held: never reused). It fixes the records, the
  // store's nodes and replicas and every allocation's size.
  std::shared_ptr<const StorePlan> plan;
  // Every index and record heap, in build order, and its bytes. The log
  // rings are not in the image: they start zero (and so runs with other
  // coordinator counts share the image).
  std::vector<RemoteAddr> allocations;
  std::vector<uint64_t> sizes;
  bool operator==(const StoreImageKey& o) const {
    return plan == o.plan && allocations == o.allocations && sizes == o.sizes;
  }
};

// One image per store node: the node's allocations, first to last.
using StoreImages = std::vector<std::shared_ptr<const HostImage>>;

class StoreImageCache {
 public:
  explicit StoreImageCache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // The images of a store built with `key`, or empty.
  StoreImages find(const StoreImageKey& key) const;
  // Keeps `images` for `key` (a no-op if it is there or too large).
  void add(StoreImageKey key, StoreImages images);

  uint64_t hits() const;
  uint64_t bytes() const;  // held by the kept images' files

 private:
  struct Entry {
    StoreImageKey key;
    StoreImages images;
    uint64_t bytes = 0;
  };
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  mutable std::list<Entry> entries_;  // most recently used first
  uint64_t bytes_ = 0;
  mutable uint64_t hits_ = 0;
};

}  // namespace lw::txn
