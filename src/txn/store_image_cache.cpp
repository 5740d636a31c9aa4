// Built stores' memory images (store_image_cache.h).
#include "latchwork/txn/store_image_cache.h"

#include <utility>

namespace lw::txn {

StoreImages StoreImageCache::find(const StoreImageKey& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->key == key) {
      entries_.splice(entries_.begin(), entries_, it);
      ++hits_;
      return entries_.front().images;
    }
  return {};
}

void StoreImageCache::add(StoreImageKey key, StoreImages images) {
  uint64_t bytes = 0;
  for (const auto& img : images) bytes += img->stored_bytes();
  if (bytes > max_bytes_) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry& e : entries_)
    if (e.key == key) return;  // another run captured it first
  while (!entries_.empty() && bytes_ + bytes > max_bytes_) {
    bytes_ -= entries_.back().bytes;
    entries_.pop_back();
  }
  entries_.push_front(Entry{std::move(key), std::move(images), bytes});
  bytes_ += bytes;
}

uint64_t StoreImageCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

uint64_t StoreImageCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace lw::txn
