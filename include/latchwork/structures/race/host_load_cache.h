// Host load images (HostLoadImage) shared by runs that load the same records
// into tables of the same layout: a figure's points (repro). Thread-safe:
// `latchwork repro --jobs N` runs points on several threads. Bounded by the
// bytes its images hold; when full, new images are not kept.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "latchwork/structures/race/hash_table.h"

namespace lw::race {

class HostLoadCache {
 public:
  explicit HostLoadCache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // An image that fits `table` and `records` (HashTable::fits), or null.
  std::shared_ptr<const HostLoadImage> find(const HashTable& table, const HostRecords& records) const;
  // Keeps `image` unless the cache would exceed its bound or holds an equal one.
  void add(std::shared_ptr<const HostLoadImage> image);

  uint64_t bytes() const;
  size_t images() const;

 private:
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<const HostLoadImage>> images_;
  uint64_t bytes_ = 0;
};

}  // namespace lw::race
