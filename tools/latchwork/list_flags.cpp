#include "list_flags.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace lw::tool {

std::string parse_uint_list(const std::string& flag, const std::string& text, uint64_t lo,
                            uint64_t hi, std::vector<uint64_t>* out) {
  std::stringstream ss(text);
  std::string item;
  out->clear();
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || item[0] == '-' || *end != '\0' || errno != 0 || v < lo || v > hi)
      return "--" + flag + ": \"" + item + "\" is not a number in [" + std::to_string(lo) + ", " +
             std::to_string(hi) + "]";
    out->push_back(v);
  }
  if (out->empty()) return "--" + flag + ": no values given";
  if (out->size() > 64) return "--" + flag + ": at most 64 values in one sweep";
  return {};
}

}  // namespace lw::tool
