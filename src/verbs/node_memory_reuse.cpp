// Released node memory kept mapped and zeroed (node_memory_reuse.h).
#include "verbs/node_memory_reuse.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <new>
#include <vector>

#include "base/setup_store.h"
#include "latchwork/base/assert.h"
#include "latchwork/base/zero_bytes.h"

namespace lw {

namespace {

struct Kept {
  void* base;
  uint64_t bytes;
  uint64_t resident;
  std::vector<uint64_t> touched;  // pages that may be resident (one bit per 4 KB)
  uint32_t slot;
  std::shared_ptr<const HostImage> image;  // its bytes, at its offsets (null: all zero)
};

struct Pool {
  uint64_t max_resident = 0;
  uint64_t resident = 0;
  uint64_t reused = 0;
  std::vector<Kept> kept;
};

// Mappings kept at most, whatever their resident bytes (address space).
constexpr size_t kMaxKept = 64;

std::mutex g_mu;
Pool* g_pool = nullptr;  // the live NodeMemoryReuse's, under g_mu

constexpr uint64_t kPage = NodeMemoryReuse::kPageBytes;

// Makes every byte of the mapping read zero, keeping the pages that were
// written (resident and not all zero: zeroed here) and dropping the rest, so
// that what is kept is one run's writes, not the union of every run's. False
// if mincore or madvise fails (the caller unmaps). *resident: bytes kept;
// *touched: those pages.
bool clean(void* base, uint64_t bytes, uint64_t* resident, std::vector<uint64_t>* touched) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t pages = (bytes + page - 1) / page;
  std::vector<unsigned char> in_core;
  try {
    in_core.resize(pages);
  } catch (const std::bad_alloc&) {  // called from a destructor: unmap instead
    return false;
  }
  if (mincore(base, bytes, in_core.data()) != 0) return false;
  auto* b = static_cast<std::byte*>(base);
  *resident = 0;
  uint64_t drop = 0;  // first page of the current run of pages to drop
  for (uint64_t i = 0; i <= pages; ++i) {
    std::byte* p = i < pages ? b + i * page : nullptr;
    const uint64_t n = i < pages ? std::min(page, bytes - i * page) : 0;
    // Written: resident (a page only read maps the shared zero page, which
    // reads as all zero) and not all zero.
    const bool written = i < pages && (in_core[i] & 1) != 0 && !all_zero(p, n);
    if (!written && i < pages) continue;
    if (drop < i && madvise(b + drop * page, (i - drop) * page, MADV_DONTNEED) != 0) return false;
    drop = i + 1;
    if (i == pages) break;
    std::memset(p, 0, n);
    *resident += page;
    for (uint64_t b = i * page / kPage; b < (i * page + n + kPage - 1) / kPage; ++b)
      (*touched)[b >> 6] |= uint64_t{1} << (b & 63);
  }
  return true;
}

// Writes node offsets [lo, hi) as they read in a mapping that holds `image`
// (null: zero everywhere) to dst[0, hi - lo).
void reset(std::byte* dst, uint64_t lo, uint64_t hi, const HostImage* image) {
  const uint64_t ilo = image ? std::clamp(image->offset(), lo, hi) : hi;
  const uint64_t ihi = image ? std::clamp(image->offset() + image->bytes(), lo, hi) : hi;
  if (lo < ilo) std::memset(dst, 0, ilo - lo);
  if (ilo < ihi) image->restore(ilo, ihi, dst + (ilo - lo));
  if (ihi < hi) std::memset(dst + (ihi - lo), 0, hi - ihi);
}

// A tracked mapping: resets the pages written (to zero, or to the image it
// keeps); the pages stay resident. `touched` gains them. Debug builds check
// that no other page differs (a store the owner did not note would reach
// the next node).
void reset_written(void* base, uint64_t bytes, const std::vector<uint64_t>& written, const HostImage* image,
                   std::vector<uint64_t>* touched) {
  auto* b = static_cast<std::byte*>(base);
  for (size_t w = 0; w < written.size(); ++w) {
    for (uint64_t bits = written[w]; bits != 0; bits &= bits - 1) {
      const uint64_t p = w * 64 + static_cast<uint64_t>(__builtin_ctzll(bits));
      const uint64_t at = p * kPage;
      LW_CHECK(at < bytes);
      reset(b + at, at, std::min(at + kPage, bytes), image);
    }
    (*touched)[w] |= written[w];
  }
#ifndef NDEBUG
  std::vector<unsigned char> in_core((bytes + kPage - 1) / kPage);
  std::vector<std::byte> want(kPage);
  if (mincore(base, bytes, in_core.data()) == 0) {
    for (uint64_t p = 0; p < in_core.size(); ++p) {
      if ((in_core[p] & 1) == 0) continue;
      const uint64_t at = p * kPage, n = std::min(kPage, bytes - at);
      reset(want.data(), at, at + n, image);
      LW_CHECK_MSG(std::memcmp(b + at, want.data(), n) == 0,
                   "node memory written without note_written() at page " + std::to_string(p));
    }
  }
#endif
}

uint64_t count_pages(const std::vector<uint64_t>& touched) {
  uint64_t n = 0;
  for (uint64_t w : touched) n += static_cast<uint64_t>(__builtin_popcountll(w));
  return n;
}

}  // namespace

NodeMemoryReuse::NodeMemoryReuse(uint64_t max_resident_bytes) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_pool != nullptr) return;  // another is alive: this one does nothing
  pool_ = g_pool = new Pool;
  g_pool->max_resident = max_resident_bytes;
}

NodeMemoryReuse::~NodeMemoryReuse() {
  if (pool_ == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_pool = nullptr;
  }
  auto* p = static_cast<Pool*>(pool_);
  for (const Kept& k : p->kept) munmap(k.base, k.bytes);
  delete p;
  // The set-up products kept for this scope (images: they pay off only
  // where node memory is handed on) go with it.
  SetupStore::process().drop_scoped();
}

bool NodeMemoryReuse::active() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_pool != nullptr;
}

uint64_t NodeMemoryReuse::reused() const {
  std::lock_guard<std::mutex> lock(g_mu);
  return pool_ ? static_cast<Pool*>(pool_)->reused : 0;
}

uint64_t NodeMemoryReuse::kept_bytes() const {
  std::lock_guard<std::mutex> lock(g_mu);
  return pool_ ? static_cast<Pool*>(pool_)->resident : 0;
}

void* NodeMemoryReuse::take(uint64_t bytes, uint32_t slot, std::vector<uint64_t>* touched,
                            std::shared_ptr<const HostImage>* image, bool zero_only) {
  touched->clear();
  std::shared_ptr<const HostImage> held;
  void* base = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_pool == nullptr) return nullptr;
    auto& kept = g_pool->kept;
    // The last kept of its slot first, else the last kept: the warmest.
    size_t found = kept.size();
    for (size_t i = kept.size(); i-- > 0;) {
      if (kept[i].bytes != bytes || (zero_only && kept[i].image != nullptr)) continue;
      if (found == kept.size()) found = i;
      if (kept[i].slot == slot) {
        found = i;
        break;
      }
    }
    if (found == kept.size()) return nullptr;
    Kept& k = kept[found];
    base = k.base;
    *touched = std::move(k.touched);
    held = std::move(k.image);
    g_pool->resident -= k.resident;
    kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(found));
    ++g_pool->reused;
  }
  if (image != nullptr) {
    *image = std::move(held);
  } else if (held != nullptr) {  // a taker that cannot hold an image gets zeros
    auto* b = static_cast<std::byte*>(base);
    held->nonzero_ranges(held->offset(), held->offset() + held->bytes(),
                         [&](uint64_t lo, uint64_t hi) { std::memset(b + lo, 0, hi - lo); });
  }
  return base;
}

bool NodeMemoryReuse::exchange(void** base, uint64_t bytes, uint32_t slot, std::vector<uint64_t>* touched,
                               std::shared_ptr<const HostImage>* image, const HostImage& wanted) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_pool == nullptr) return false;
  for (size_t i = g_pool->kept.size(); i-- > 0;) {
    Kept& k = g_pool->kept[i];
    if (k.bytes != bytes || k.image.get() != &wanted) continue;
    std::vector<uint64_t> mine = std::move(*touched);
    mine.resize(bitmap_words(bytes), 0);
    const uint64_t resident = count_pages(mine) * kPage;
    if (g_pool->resident - k.resident + resident > g_pool->max_resident) {
      *touched = std::move(mine);
      return false;
    }
    g_pool->resident += resident - k.resident;
    std::swap(*base, k.base);
    std::swap(*image, k.image);
    *touched = std::move(k.touched);
    k.touched = std::move(mine);
    k.resident = resident;
    k.slot = slot;
    ++g_pool->reused;
    return true;
  }
  return false;
}

bool NodeMemoryReuse::give(void* base, uint64_t bytes, const std::vector<uint64_t>* written,
                           std::vector<uint64_t> touched, uint32_t slot, std::shared_ptr<const HostImage> image) {
  LW_CHECK(image == nullptr || written != nullptr);
  uint64_t max_resident = 0;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_pool == nullptr) return false;
    max_resident = g_pool->max_resident;
  }
  uint64_t resident = 0;
  try {
    touched.resize(bitmap_words(bytes), 0);
  } catch (const std::bad_alloc&) {  // called from a destructor: unmap instead
    return false;
  }
  if (written != nullptr) {
    LW_CHECK(written->size() == touched.size());
    reset_written(base, bytes, *written, image.get(), &touched);
    resident = count_pages(touched) * kPage;
    if (resident > max_resident / 2) {
      // Grown too large to keep whole: start it over with no resident page.
      if (madvise(base, bytes, MADV_DONTNEED) != 0) return false;
      std::fill(touched.begin(), touched.end(), 0);
      resident = 0;
      image = nullptr;
    }
  } else {
    std::fill(touched.begin(), touched.end(), 0);
    if (!clean(base, bytes, &resident, &touched)) return false;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  // The pool may have ended while this mapping was cleaned.
  if (g_pool == nullptr || g_pool->kept.size() >= kMaxKept ||
      g_pool->resident + resident > g_pool->max_resident)
    return false;
  g_pool->kept.push_back({base, bytes, resident, std::move(touched), slot, std::move(image)});
  g_pool->resident += resident;
  return true;
}

}  // namespace lw
