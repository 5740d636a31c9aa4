// A 64-bit word as "0x..." for messages and traces. One snprintf: GCC 12 at
// -O3 misreads `"0x" + std::to_string(...)`-style concatenations as
// overlapping copies (-Werror=restrict).
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace lw {

inline std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

}  // namespace lw
