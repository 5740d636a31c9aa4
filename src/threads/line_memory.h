// Node memory shared by real threads, with the atomicity a NIC gives: aligned
// 64-byte lines are read and written atomically, guarded by striped seqlocks.
//
// The hot path is inline: a request checks its bounds and finds its storage
// without a call (region base pointers taken from NodeMemory::bytes once per
// node), and copies each line as whole 8-byte words through std::atomic_ref,
// with at most one variable-length memcpy per line (for a span that does not
// start or end on a word boundary).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "latchwork/base/layout.h"
#include "latchwork/base/status.h"
#include "verbs/node_memory.h"

namespace lw::threads {

class LineMemory {
 public:
  static constexpr size_t kStripes = 4096;
  static constexpr uint64_t kLineWords = kCacheLine / kWord;

  LineMemory(uint64_t host_bytes, uint64_t device_bytes);

  NodeMemory& raw() { return mem_; }

  // NodeMemory::check_access, inline: the same status for every input
  // (tests/threads compares them).
  Status check(uint64_t offset, uint64_t length, bool atomic) const {
    if (length == 0 || length > kMaxTransferBytes) return Status::kBadLength;
    if (atomic && offset % kWord != 0) return Status::kMisaligned;
    uint64_t end;
    if (offset >= NodeMemory::kReservedBytes && offset < host_end_) {
      end = host_end_;
    } else if (offset >= NodeMemory::kDeviceBase && offset - NodeMemory::kDeviceBase < device_bytes_) {
      end = NodeMemory::kDeviceBase + device_bytes_;
    } else {
      return Status::kUnregistered;
    }
    return length > end - offset ? Status::kOutOfBounds : Status::kOk;
  }

  // Storage of a validated offset: NodeMemory::bytes without the call. Each
  // region's storage is contiguous (the constructor checks both ends), so a
  // request resolves its pointer once and walks from it.
  std::byte* storage(uint64_t offset) const {
    return offset >= NodeMemory::kDeviceBase ? device_ + (offset - NodeMemory::kDeviceBase)
                                             : host_ + (offset - NodeMemory::kReservedBytes);
  }

  // Copies [offset, offset+len) out of one line, atomically with respect to
  // every writer of that line. `p` is storage(offset).
  [[gnu::always_inline]] void read_line(uint64_t offset, const std::byte* p, uint64_t len,
                                        std::byte* dst) {
    if (len == kWord && offset % kWord == 0) {  // one word: one atomic load suffices
      const uint64_t v = load(p);
      std::memcpy(dst, &v, kWord);
      return;
    }
    const std::atomic<uint64_t>& s = stripe(offset);
    const uint64_t v1 = s.load(std::memory_order_acquire);
    if ((v1 & 1) == 0) [[likely]] {
      copy_out(offset, p, len, dst);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (s.load(std::memory_order_relaxed) == v1) [[likely]] return;
    }
    read_line_contended(offset, p, len, dst);
  }

  // Stores into one line, atomically with respect to its readers.
  [[gnu::always_inline]] void write_line(uint64_t offset, std::byte* p, uint64_t len, const std::byte* src) {
    std::atomic<uint64_t>& s = stripe(offset);
    const uint64_t v = lock(s);
    copy_in(offset, p, len, src);
    s.store(v + 2, std::memory_order_release);
  }

  // Any word-sized read-modify-write, atomic with line readers and writers
  // (and so with every other update of the word: it takes the line's stripe).
  // `fn(old, &new)` returns whether to store. Returns the old value.
  template <typename Fn>
  uint64_t update_word(uint64_t offset, std::byte* p, Fn&& fn) {
    std::atomic<uint64_t>& s = stripe(offset);
    const uint64_t v = lock(s);
    std::atomic_ref<uint64_t> w(*word(p));
    const uint64_t old = w.load(std::memory_order_relaxed);
    uint64_t next;
    if (fn(old, &next)) w.store(next, std::memory_order_relaxed);
    s.store(v + 2, std::memory_order_release);
    return old;
  }
  static uint64_t load_word(const std::byte* p) { return load(p); }

  // Single attempts without waiting or calls, so that the hot verbs stay leaf
  // functions; false: the line's stripe is locked (the caller falls back to
  // write_line / update_word, which wait).
  // read_line for a word-aligned span (len a multiple of 8, one line).
  bool try_read_words(uint64_t offset, const std::byte* p, uint64_t len, std::byte* dst) {
    if (len == kWord) {  // one word: one atomic load suffices
      const uint64_t v = load(p);
      std::memcpy(dst, &v, kWord);
      return true;
    }
    const std::atomic<uint64_t>& s = stripe(offset);
    const uint64_t v1 = s.load(std::memory_order_acquire);
    if (v1 & 1) return false;
    for (uint64_t i = 0; i < len / kWord && i < kLineWords; ++i) {
      const uint64_t w = load_relaxed(p + i * kWord);
      std::memcpy(dst + i * kWord, &w, kWord);
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    return s.load(std::memory_order_relaxed) == v1;
  }
  // write_line for a word-aligned span (len a multiple of 8, one line).
  bool try_write_words(uint64_t offset, std::byte* p, uint64_t len, const std::byte* src) {
    std::atomic<uint64_t>& s = stripe(offset);
    uint64_t v;
    if (!try_lock(s, &v)) return false;
    for (uint64_t i = 0; i < len / kWord && i < kLineWords; ++i) {
      uint64_t w;
      std::memcpy(&w, src + i * kWord, kWord);
      store_relaxed(p + i * kWord, w);
    }
    s.store(v + 2, std::memory_order_release);
    return true;
  }
  // A compare-and-swap of one word, as update_word would do it.
  bool try_cas_word(uint64_t offset, std::byte* p, uint64_t expected, uint64_t desired, uint64_t* old) {
    std::atomic<uint64_t>& s = stripe(offset);
    uint64_t v;
    if (!try_lock(s, &v)) return false;
    std::atomic_ref<uint64_t> w(*word(p));
    const uint64_t seen = w.load(std::memory_order_relaxed);
    if (seen == expected) w.store(desired, std::memory_order_relaxed);
    s.store(v + 2, std::memory_order_release);
    *old = seen;
    return true;
  }

 private:
  static uint64_t* word(const std::byte* p) {
    return reinterpret_cast<uint64_t*>(const_cast<std::byte*>(p));
  }
  static uint64_t load(const std::byte* p) {
    return std::atomic_ref<uint64_t>(*word(p)).load(std::memory_order_acquire);
  }
  static uint64_t load_relaxed(const std::byte* p) {
    return std::atomic_ref<uint64_t>(*word(p)).load(std::memory_order_relaxed);
  }
  static void store_relaxed(std::byte* p, uint64_t v) {
    std::atomic_ref<uint64_t>(*word(p)).store(v, std::memory_order_relaxed);
  }

  std::atomic<uint64_t>& stripe(uint64_t offset) {
    const uint64_t line = offset / kCacheLine;
    return stripes_[(line * 0x9e3779b97f4a7c15ull) >> 52];  // top 12 bits: 4096 stripes
  }
  // Seqlock writer side, one attempt: on success *v is the even version locked.
  static bool try_lock(std::atomic<uint64_t>& s, uint64_t* v) {
    *v = s.load(std::memory_order_relaxed);
    if ((*v & 1) == 0 &&
        s.compare_exchange_weak(*v, *v + 1, std::memory_order_acquire, std::memory_order_relaxed)) {
      // Orders the odd version before the data stores for seqlock readers.
      std::atomic_thread_fence(std::memory_order_release);
      return true;
    }
    return false;
  }
  // Seqlock writer side: returns the even version that was locked.
  static uint64_t lock(std::atomic<uint64_t>& s) {
    uint64_t v;
    return try_lock(s, &v) ? v : lock_slow(s);
  }
  static uint64_t lock_slow(std::atomic<uint64_t>& s);
  // The seqlock read retried while writers interfere, then under the lock.
  [[gnu::noinline]] void read_line_contended(uint64_t offset, const std::byte* p, uint64_t len,
                                             std::byte* dst);

  // Word-aligned spans move word by word (a fixed 8-word loop for a whole
  // line); others go through a line image with one memcpy.
  static void copy_out(uint64_t offset, const std::byte* p, uint64_t len, std::byte* dst) {
    const uint64_t head = offset % kWord;
    if (len == kCacheLine && offset % kCacheLine == 0) {
      for (uint64_t i = 0; i < kLineWords; ++i) {
        const uint64_t v = load_relaxed(p + i * kWord);
        std::memcpy(dst + i * kWord, &v, kWord);
      }
      return;
    }
    const std::byte* first = p - head;
    const uint64_t words = (head + len + kWord - 1) / kWord;  // at most 8: one line
    if (head == 0 && len % kWord == 0) {
      for (uint64_t i = 0; i < words; ++i) {
        const uint64_t v = load_relaxed(first + i * kWord);
        std::memcpy(dst + i * kWord, &v, kWord);
      }
      return;
    }
    uint64_t image[kLineWords];
    for (uint64_t i = 0; i < words; ++i) image[i] = load_relaxed(first + i * kWord);
    // head + len <= 64 (one line); the min says so to the compiler.
    std::memcpy(dst, reinterpret_cast<const std::byte*>(image) + head, std::min(len, kCacheLine - head));
  }

  // Called with the line's stripe locked.
  static void copy_in(uint64_t offset, std::byte* p, uint64_t len, const std::byte* src) {
    const uint64_t head = offset % kWord;
    if (len == kCacheLine && offset % kCacheLine == 0) {
      for (uint64_t i = 0; i < kLineWords; ++i) {
        uint64_t v;
        std::memcpy(&v, src + i * kWord, kWord);
        store_relaxed(p + i * kWord, v);
      }
      return;
    }
    std::byte* first = p - head;
    const uint64_t words = (head + len + kWord - 1) / kWord;  // at most 8: one line
    if (head == 0 && len % kWord == 0) {
      for (uint64_t i = 0; i < words; ++i) {
        uint64_t v;
        std::memcpy(&v, src + i * kWord, kWord);
        store_relaxed(first + i * kWord, v);
      }
      return;
    }
    // Partial first and last words keep the bytes outside the span.
    uint64_t image[kLineWords];
    image[0] = load_relaxed(first);
    image[words - 1] = load_relaxed(first + (words - 1) * kWord);
    std::memcpy(reinterpret_cast<std::byte*>(image) + head, src, std::min(len, kCacheLine - head));
    for (uint64_t i = 0; i < words; ++i) store_relaxed(first + i * kWord, image[i]);
  }

  NodeMemory mem_;
  // The fields every access reads start a cache line of their own, wherever
  // NodeMemory's size puts them.
  alignas(kCacheLine) const uint64_t host_end_;
  const uint64_t device_bytes_;
  std::byte* host_ = nullptr;    // storage of offset kReservedBytes
  std::byte* device_ = nullptr;  // storage of offset kDeviceBase (null without device memory)
  std::array<std::atomic<uint64_t>, kStripes> stripes_{};
};

}  // namespace lw::threads
