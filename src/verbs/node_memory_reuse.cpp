// Released node memory kept mapped and zeroed (node_memory_reuse.h).
#include "latchwork/verbs/node_memory_reuse.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "latchwork/base/assert.h"
#include "latchwork/base/zero_bytes.h"

namespace lw {

namespace {

struct Kept {
  void* base;
  uint64_t bytes;
  uint64_t resident;
  std::vector<uint64_t> touched;  // pages that may be resident (one bit per 4 KB)
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

// A tracked mapping: zeroes the pages written; the pages stay resident.
// `touched` gains them. Debug builds check that no other page was written
// (a store the owner did not note would reach the next node).
void zero_written(void* base, uint64_t bytes, const std::vector<uint64_t>& written,
                  std::vector<uint64_t>* touched) {
  auto* b = static_cast<std::byte*>(base);
  for (size_t w = 0; w < written.size(); ++w) {
    for (uint64_t bits = written[w]; bits != 0; bits &= bits - 1) {
      const uint64_t p = w * 64 + static_cast<uint64_t>(__builtin_ctzll(bits));
      const uint64_t at = p * kPage;
      LW_CHECK(at < bytes);
      std::memset(b + at, 0, std::min(kPage, bytes - at));
    }
    (*touched)[w] |= written[w];
  }
#ifndef NDEBUG
  std::vector<unsigned char> in_core((bytes + kPage - 1) / kPage);
  if (mincore(base, bytes, in_core.data()) == 0) {
    for (uint64_t p = 0; p < in_core.size(); ++p)
      if ((in_core[p] & 1) != 0)
        LW_CHECK_MSG(all_zero(b + p * kPage, std::min(kPage, bytes - p * kPage)),
                     "node memory written without note_written() at page " + std::to_string(p));
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

void* NodeMemoryReuse::take(uint64_t bytes, std::vector<uint64_t>* touched) {
  touched->clear();
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_pool == nullptr) return nullptr;
  auto& kept = g_pool->kept;
  for (size_t i = kept.size(); i-- > 0;)  // the last kept first: the warmest
    if (kept[i].bytes == bytes) {
      void* base = kept[i].base;
      *touched = std::move(kept[i].touched);
      g_pool->resident -= kept[i].resident;
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
      ++g_pool->reused;
      return base;
    }
  return nullptr;
}

bool NodeMemoryReuse::give(void* base, uint64_t bytes, const std::vector<uint64_t>* written,
                           std::vector<uint64_t> touched) {
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
    zero_written(base, bytes, *written, &touched);
    resident = count_pages(touched) * kPage;
    if (resident > max_resident / 2) {
      // Grown too large to keep whole: start it over with no resident page.
      if (madvise(base, bytes, MADV_DONTNEED) != 0) return false;
      std::fill(touched.begin(), touched.end(), 0);
      resident = 0;
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
  g_pool->kept.push_back({base, bytes, resident, std::move(touched)});
  g_pool->resident += resident;
  return true;
}

}  // namespace lw
