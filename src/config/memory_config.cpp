// MemoryConfig's validation (config/memory_config.h).
#include "latchwork/config/memory_config.h"

#include <cmath>
#include <sstream>

namespace lw {

std::string_view to_string(MemoryKind k) { return k == MemoryKind::kPm ? "pm" : "dram"; }

bool parse_memory_kind(std::string_view s, MemoryKind* out) {
  if (s == "dram") *out = MemoryKind::kDram;
  else if (s == "pm") *out = MemoryKind::kPm;
  else return false;
  return true;
}

std::string MemoryConfig::validate() const {
  constexpr Nanos kMaxNs = 1'000'000'000;  // ClusterConfig::kMaxLatencyNs
  if (pm_read_extra_ns > kMaxNs) return "memory.pm_read_extra_ns must be at most 1 s";
  if (pm_write_extra_ns > kMaxNs) return "memory.pm_write_extra_ns must be at most 1 s";
  // A positive rate: 0.001 B/ns (1 MB/s) .. 12.5 TB/s, as timing.bytes_per_ns.
  for (auto [name, v] : {std::pair{"memory.pm_read_bytes_per_ns", pm_read_bytes_per_ns},
                         std::pair{"memory.pm_write_bytes_per_ns", pm_write_bytes_per_ns}})
    if (!(std::isfinite(v) && v >= 0.001 && v <= 12'500)) {
      std::ostringstream os;
      os << name << " must be in [0.001, 12500], got " << v;
      return os.str();
    }
  if (pm_access_bytes < 1 || pm_access_bytes > kMaxAccessBytes)
    return "memory.pm_access_bytes must be in [1, " + std::to_string(kMaxAccessBytes) + "], got " +
           std::to_string(pm_access_bytes);
  return {};
}

}  // namespace lw
