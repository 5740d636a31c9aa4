// Comma-separated number lists for sweep flags ("1,2,4,8").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lw::tool {

// Parses `text` into values in [lo, hi]; returns an error naming `flag` or "".
std::string parse_uint_list(const std::string& flag, const std::string& text, uint64_t lo,
                            uint64_t hi, std::vector<uint64_t>* out);

}  // namespace lw::tool
