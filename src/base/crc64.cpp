#include "latchwork/base/crc64.h"

#include <array>

namespace lw {
namespace {

constexpr uint64_t kPoly = 0xC96C5795D7870F42ull;  // 0x42F0E1EBA9EA3693 reflected

constexpr std::array<uint64_t, 256> make_table() {
  std::array<uint64_t, 256> t{};
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint64_t, 256> kTable = make_table();

}  // namespace

uint64_t crc64_update(uint64_t crc, const void* data, size_t len) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (size_t i = 0; i < len; ++i) crc = kTable[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

}  // namespace lw
