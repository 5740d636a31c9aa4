// Bulk-load images kept for equal loads (bulk_images.h).
#include "bulk_images.h"

#include <algorithm>
#include <mutex>

namespace lw::sherman {

namespace {

struct Kept {
  TreeConfig cfg;
  std::vector<std::pair<uint64_t, uint64_t>> pairs;
  std::vector<RemoteAddr> addrs;
  BulkImages images;
  uint64_t bytes = 0;  // pairs, addresses and the images' stored bytes
};

constexpr size_t kMaxKept = 4;
constexpr uint64_t kMaxBytes = uint64_t{512} << 20;

std::mutex g_mu;
std::vector<Kept>& kept() {  // most recently used last
  static std::vector<Kept> k;
  return k;
}

bool same(const Kept& k, const TreeConfig& cfg, std::span<const std::pair<uint64_t, uint64_t>> pairs,
          const std::vector<RemoteAddr>& addrs) {
  return k.cfg == cfg && k.addrs == addrs && std::equal(k.pairs.begin(), k.pairs.end(), pairs.begin(), pairs.end());
}

}  // namespace

BulkImages find_bulk_images(const TreeConfig& cfg, std::span<const std::pair<uint64_t, uint64_t>> pairs,
                            const std::vector<RemoteAddr>& addrs) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto& k = kept();
  for (size_t i = 0; i < k.size(); ++i) {
    if (!same(k[i], cfg, pairs, addrs)) continue;
    std::rotate(k.begin() + static_cast<std::ptrdiff_t>(i), k.begin() + static_cast<std::ptrdiff_t>(i) + 1, k.end());
    return k.back().images;
  }
  return {};
}

void keep_bulk_images(const TreeConfig& cfg, std::span<const std::pair<uint64_t, uint64_t>> pairs,
                      std::vector<RemoteAddr> addrs, BulkImages images) {
  uint64_t bytes = pairs.size_bytes() + addrs.size() * sizeof(RemoteAddr);
  for (const auto& img : images)
    if (img) bytes += img->stored_bytes();
  if (bytes > kMaxBytes) return;
  std::lock_guard<std::mutex> lock(g_mu);
  auto& k = kept();
  for (const Kept& e : k)
    if (same(e, cfg, pairs, addrs)) return;  // another thread kept it first
  uint64_t held = bytes;
  for (const Kept& e : k) held += e.bytes;
  while (!k.empty() && (k.size() >= kMaxKept || held > kMaxBytes)) {
    held -= k.front().bytes;
    k.erase(k.begin());
  }
  k.push_back(Kept{cfg, {pairs.begin(), pairs.end()}, std::move(addrs), std::move(images), bytes});
}

}  // namespace lw::sherman
