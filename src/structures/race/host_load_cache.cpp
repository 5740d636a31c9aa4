#include "latchwork/structures/race/host_load_cache.h"

#include <algorithm>

namespace lw::race {

std::shared_ptr<const HostLoadImage> HostLoadCache::find(const HashTable& table,
                                                         const HostRecords& records) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& image : images_)
    if (table.fits(*image, records)) return image;
  return nullptr;
}

void HostLoadCache::add(std::shared_ptr<const HostLoadImage> image) {
  if (!image) return;
  const uint64_t bytes = image->bytes();
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes_ + bytes > max_bytes_) return;
  // Two points that loaded at once both offer their image: keep one.
  const bool equal = std::any_of(images_.begin(), images_.end(),
                                 [&](const auto& held) { return held->same_load(*image); });
  if (equal) return;
  bytes_ += bytes;
  images_.push_back(std::move(image));
}

uint64_t HostLoadCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t HostLoadCache::images() const {
  std::lock_guard<std::mutex> lock(mu_);
  return images_.size();
}

}  // namespace lw::race
