// Number formatting shared by the history models' violation messages.
// Formatted in one snprintf: GCC 12 at -O3 misreads `"[" + std::to_string(a)`
// as an overlapping copy (-Werror=restrict).
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

#include "latchwork/base/hex.h"
#include "latchwork/base/layout.h"

namespace lw::model_format {

using lw::hex;

inline std::string span(Nanos a, Nanos b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%" PRIu64 ", %" PRIu64 "] ns", uint64_t{a}, uint64_t{b});
  return buf;
}

}  // namespace lw::model_format
