// Byte sizes with binary suffixes (parse_bytes.h).
#include "parse_bytes.h"

namespace lw::tool {

// "64M", "1G", "4096": bytes with an optional K/M/G/T (binary) suffix.
std::string parse_bytes(const std::string& text, uint64_t* out) {
  if (text.empty()) return "size is empty";
  size_t digits = text.find_first_not_of("0123456789");
  if (digits == 0) return "size \"" + text + "\" must start with a number";
  if (digits != std::string::npos && digits + 1 != text.size())
    return "size \"" + text + "\": use a number with an optional K, M or G suffix";
  if (text.size() > 15) return "size \"" + text + "\" is too large (at most 1T)";
  const uint64_t v = std::stoull(text.substr(0, digits));
  unsigned shift = 0;
  if (digits != std::string::npos) {
    switch (text[digits]) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      case 'T': case 't': shift = 40; break;
      default: return "size \"" + text + "\": unknown suffix (K, M, G or T)";
    }
  }
  // 17179869185G must not wrap around to 1G.
  if (v > (kMaxNodeProcessBytes >> shift))
    return "size \"" + text + "\" is too large (at most 1T)";
  *out = v << shift;
  return {};
}

}  // namespace lw::tool
