#include "line_memory.h"

#include <cstring>
#include <thread>

#include "latchwork/base/assert.h"

namespace lw::threads {
namespace {
// A spin bound far above any legitimate wait: past it a thread is stuck.
constexpr uint64_t kSpinLimit = uint64_t{1} << 32;
}  // namespace

uint64_t LineMemory::lock(std::atomic<uint64_t>& s) {
  for (uint64_t spins = 0;; ++spins) {
    uint64_t v = s.load(std::memory_order_relaxed);
    if ((v & 1) == 0 &&
        s.compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed)) {
      // Orders the odd version before the data stores for seqlock readers.
      std::atomic_thread_fence(std::memory_order_release);
      return v;
    }
    LW_CHECK_MSG(spins < kSpinLimit, "line lock held forever");
    if ((spins & 63) == 63) std::this_thread::yield();
  }
}

void LineMemory::copy_out(uint64_t offset, uint64_t len, std::byte* dst) {
  // Word by word through atomic_ref: writers may be storing concurrently.
  uint64_t end = offset + len;
  for (uint64_t w = offset / 8 * 8; w < end; w += 8) {
    uint64_t v = std::atomic_ref<uint64_t>(*mem_.word(w)).load(std::memory_order_relaxed);
    uint64_t lo = std::max(w, offset), hi = std::min(w + 8, end);
    std::memcpy(dst + (lo - offset), reinterpret_cast<const std::byte*>(&v) + (lo - w), hi - lo);
  }
}

void LineMemory::read_line(uint64_t offset, uint64_t len, std::byte* dst) {
  if (len == 8 && offset % 8 == 0) {  // one word: a single atomic load suffices
    uint64_t v = load_word(offset);
    std::memcpy(dst, &v, 8);
    return;
  }
  std::atomic<uint64_t>& s = stripe(offset);
  for (int attempt = 0; attempt < 64; ++attempt) {
    uint64_t v1 = s.load(std::memory_order_acquire);
    if (v1 & 1) {
      std::this_thread::yield();
      continue;
    }
    copy_out(offset, len, dst);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.load(std::memory_order_relaxed) == v1) return;
  }
  // Under heavy write traffic, stop retrying and exclude writers instead.
  uint64_t v = lock(s);
  copy_out(offset, len, dst);
  s.store(v + 2, std::memory_order_release);
}

void LineMemory::write_line(uint64_t offset, uint64_t len, const std::byte* src) {
  std::atomic<uint64_t>& s = stripe(offset);
  uint64_t v = lock(s);
  uint64_t end = offset + len;
  for (uint64_t w = offset / 8 * 8; w < end; w += 8) {
    std::atomic_ref<uint64_t> word(*mem_.word(w));
    uint64_t lo = std::max(w, offset), hi = std::min(w + 8, end);
    uint64_t val = (hi - lo == 8) ? 0 : word.load(std::memory_order_relaxed);
    std::memcpy(reinterpret_cast<std::byte*>(&val) + (lo - w), src + (lo - offset), hi - lo);
    word.store(val, std::memory_order_relaxed);
  }
  s.store(v + 2, std::memory_order_release);
}

}  // namespace lw::threads
