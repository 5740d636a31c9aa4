// Ring allocation of spans in a buffer: spans are taken in order and given
// back in any order; space is reclaimed from the oldest span on. The logic of
// the verbs backend's bounce buffer, apart from memory registration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>

namespace lw::rdma {

class SpanRing {
 public:
  static constexpr uint64_t kAlign = 64;

  explicit SpanRing(uint64_t capacity = 0) : cap_(capacity) {}

  // A span of `len` bytes (rounded up to kAlign), or false when the ring has
  // no contiguous room now.
  bool take(uint64_t len, uint64_t* offset);
  // Returns a span taken before; giving one back twice is an invariant violation.
  void give_back(uint64_t offset);

  uint64_t capacity() const { return cap_; }
  bool empty() const { return live_.empty(); }
  size_t live() const { return live_.size(); }

 private:
  struct Span {
    uint64_t offset, len;
    bool done;
  };
  uint64_t cap_;
  std::deque<Span> live_;  // in allocation order, given-back ones until they are oldest
};

}  // namespace lw::rdma
