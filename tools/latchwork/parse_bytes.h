// --size values of the node processes (`latchwork memnode`, `latchwork node`).
#pragma once

#include <cstdint>
#include <string>

namespace lw::tool {

// The largest --size (MemnodeOptions::validate checks [1 MiB, 1 TiB]).
inline constexpr uint64_t kMaxNodeProcessBytes = 1ull << 40;

// "64M", "1G", "4096": bytes with an optional K/M/G/T (binary) suffix; "" or
// a message.
std::string parse_bytes(const std::string& text, uint64_t* out);

}  // namespace lw::tool
