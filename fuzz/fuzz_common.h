// Shared by the libFuzzer targets of fuzz/: input helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace lw::fuzz {

inline std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Inputs that name device or kernel files are skipped: a config may name a NIC
// profile or cluster file by path, and reading /dev/zero or /dev/stdin is a
// resource problem of its own (issue 11 item 1: files read with a size limit,
// tested there), not something a fuzzer should find again on every run.
inline bool names_special_file(const std::string& s) {
  return s.find("/dev") != std::string::npos || s.find("/proc") != std::string::npos ||
         s.find("/sys") != std::string::npos;
}

// A parsed value of a type with from_json / validate / to_json must be valid
// and survive its own round trip byte for byte; anything else aborts.
template <typename T>
void check_round_trip(const T& parsed) {
  if (!parsed.validate().empty()) std::abort();  // from_json accepted an invalid value
  const std::string json = parsed.to_json();
  T again;
  if (!T::from_json(json, &again).empty()) std::abort();  // no round trip
  if (again.to_json() != json) std::abort();
}

}  // namespace lw::fuzz
