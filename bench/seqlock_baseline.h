// The reference the threads backend is measured against: the least a
// bounds-checked access with the same 64-byte line atomicity must do (one
// seqlock per line stripe: a READ validates its version, a WRITE or CAS
// takes it), behind a call like a verb. Word-aligned accesses only.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "latchwork/base/assert.h"
#include "latchwork/base/layout.h"

namespace lw::bench {

class SeqlockBaseline {
 public:
  explicit SeqlockBaseline(uint64_t bytes) : words_(bytes / 8), bytes_(bytes) {}

  uint64_t bytes() const { return bytes_; }

  [[gnu::noinline]] bool read(uint64_t off, uint64_t len, std::byte* dst) {
    if (!in_bounds(off, len)) return false;
    for (uint64_t done = 0; done < len; done += kCacheLine) {
      const uint64_t n = std::min<uint64_t>(kCacheLine, len - done);
      std::atomic<uint64_t>& s = stripe(off + done);
      for (;;) {
        const uint64_t v = s.load(std::memory_order_acquire);
        if (v & 1) continue;
        for (uint64_t i = 0; i < n / 8; ++i) {
          const uint64_t w = ref(off + done + i * 8).load(std::memory_order_relaxed);
          std::memcpy(dst + done + i * 8, &w, 8);
        }
        std::atomic_thread_fence(std::memory_order_acquire);
        if (s.load(std::memory_order_relaxed) == v) break;
      }
    }
    return true;
  }

  [[gnu::noinline]] bool write(uint64_t off, uint64_t len, const std::byte* src) {
    if (!in_bounds(off, len)) return false;
    for (uint64_t done = 0; done < len; done += kCacheLine) {
      const uint64_t n = std::min<uint64_t>(kCacheLine, len - done);
      std::atomic<uint64_t>& s = stripe(off + done);
      const uint64_t v = lock(s);
      for (uint64_t i = 0; i < n / 8; ++i) {
        uint64_t w;
        std::memcpy(&w, src + done + i * 8, 8);
        ref(off + done + i * 8).store(w, std::memory_order_relaxed);
      }
      s.store(v + 2, std::memory_order_release);
    }
    return true;
  }

  [[gnu::noinline]] bool cas(uint64_t off, uint64_t expected, uint64_t desired, uint64_t* old) {
    if (!in_bounds(off, 8) || off % 8 != 0) return false;
    std::atomic<uint64_t>& s = stripe(off);
    const uint64_t v = lock(s);
    *old = ref(off).load(std::memory_order_relaxed);
    if (*old == expected) ref(off).store(desired, std::memory_order_relaxed);
    s.store(v + 2, std::memory_order_release);
    return true;
  }

 private:
  bool in_bounds(uint64_t off, uint64_t len) const {
    LW_CHECK(off % 8 == 0 && len % 8 == 0);
    return len > 0 && off < bytes_ && len <= bytes_ - off;
  }
  std::atomic_ref<uint64_t> ref(uint64_t off) { return std::atomic_ref<uint64_t>(words_[off / 8]); }
  std::atomic<uint64_t>& stripe(uint64_t off) {
    return stripes_[((off / kCacheLine) * 0x9e3779b97f4a7c15ull) >> 52];
  }
  static uint64_t lock(std::atomic<uint64_t>& s) {
    for (;;) {
      uint64_t v = s.load(std::memory_order_relaxed);
      if ((v & 1) == 0 &&
          s.compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed)) {
        std::atomic_thread_fence(std::memory_order_release);
        return v;
      }
    }
  }

  std::vector<uint64_t> words_;
  uint64_t bytes_;
  std::array<std::atomic<uint64_t>, 4096> stripes_{};
};

}  // namespace lw::bench
