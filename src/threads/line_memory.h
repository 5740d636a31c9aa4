// Node memory shared by real threads, with the atomicity a NIC gives: aligned
// 64-byte lines are read and written atomically, guarded by striped seqlocks.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "latchwork/base/random.h"
#include "latchwork/verbs/node_memory.h"

namespace lw::threads {

class LineMemory {
 public:
  LineMemory(uint64_t host_bytes, uint64_t device_bytes) : mem_(host_bytes, device_bytes) {}

  NodeMemory& raw() { return mem_; }

  // Copies [offset, offset+len) out of one line, atomically with respect to
  // every writer of that line.
  void read_line(uint64_t offset, uint64_t len, std::byte* dst);
  // Stores into one line, atomically with respect to its readers.
  void write_line(uint64_t offset, uint64_t len, const std::byte* src);
  // Any word-sized read-modify-write, atomic with line readers and writers.
  // `fn(old, &new)` returns whether to store. Returns the old value.
  template <typename Fn>
  uint64_t update_word(uint64_t offset, Fn&& fn) {
    std::atomic<uint64_t>& s = stripe(offset);
    uint64_t v = lock(s);
    std::atomic_ref<uint64_t> w(*mem_.word(offset));
    uint64_t old = w.load(std::memory_order_relaxed), next;
    if (fn(old, &next)) w.store(next, std::memory_order_relaxed);
    s.store(v + 2, std::memory_order_release);
    return old;
  }
  uint64_t load_word(uint64_t offset) {
    return std::atomic_ref<uint64_t>(*mem_.word(offset)).load(std::memory_order_acquire);
  }

 private:
  static constexpr size_t kStripes = 4096;
  std::atomic<uint64_t>& stripe(uint64_t offset) {
    uint64_t line = offset / kCacheLine;
    return stripes_[(line * 0x9e3779b97f4a7c15ull) >> 52];  // top 12 bits: 4096 stripes
  }
  // Seqlock writer side: returns the even version that was locked.
  static uint64_t lock(std::atomic<uint64_t>& s);
  void copy_out(uint64_t offset, uint64_t len, std::byte* dst);

  NodeMemory mem_;
  std::array<std::atomic<uint64_t>, kStripes> stripes_{};
};

}  // namespace lw::threads
