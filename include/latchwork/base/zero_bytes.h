// Whether a byte range is all zero, a 64-byte line at a time with an early
// exit (set-up and node-memory reuse test pages of images with it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace lw {

inline bool all_zero(const std::byte* p, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    uint64_t w[8];
    std::memcpy(w, p + i, 64);
    if ((w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) != 0) return false;
  }
  for (; i < n; ++i)
    if (p[i] != std::byte{0}) return false;
  return true;
}

}  // namespace lw
