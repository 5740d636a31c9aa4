// The key of a bulk load's images (bulk_images.h).
#include "bulk_images.h"

namespace lw::sherman {

static_assert(sizeof(RemoteAddr) == 8 && std::has_unique_object_representations_v<RemoteAddr>);

SetupKey bulk_images_key(const TreeConfig& cfg, std::span<const std::pair<uint64_t, uint64_t>> pairs,
                         std::span<const RemoteAddr> addrs) {
  SetupKey k("sherman.bulk-images");
  k.add_compared(cfg).add(pairs).add(addrs);
  return k;
}

uint64_t bulk_images_bytes(const BulkImages& images) {
  uint64_t bytes = 0;
  for (const auto& img : images)
    if (img) bytes += img->stored_bytes();
  return bytes;
}

}  // namespace lw::sherman
