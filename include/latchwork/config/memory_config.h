// What a memory node's memory is made of: DRAM, or persistent memory (SMART
// §6.2.2 and FORD keep their records in Intel Optane DC PMM). The simulator's
// timing models charge PM's longer read latency, its media bandwidth (far
// lower for writes than for reads) and its 256-byte internal access size to
// every one-sided access to a memory node's host memory (device memory is
// on-chip, never PM). JSON: the "memory" object; flag: --memory-kind.
//
// Default values are approximate published figures for Optane DC PMM
// (Izraelevitz et al. 2019, "Basic Performance Measurements of the Intel
// Optane DC Persistent Memory Module", arXiv:1903.05714): random 64-byte
// loads ~305 ns, about 3x local DRAM (~81 ns); six interleaved DIMMs peak at
// ~39.4 GB/s of reads and ~13.9 GB/s of writes (one DIMM: ~6.6 and ~2.3
// GB/s); the DIMM reads and writes media in 256-byte lines, so a smaller
// access costs a whole line of bandwidth. Stores are acknowledged once in the
// memory controller's ADR domain, so their idle latency is close to DRAM's:
// the write extra is small (assumed). Not modelled: CPU accesses of
// memory-node threads and RPC handlers (cpu_access_ns has no address),
// DDIO, the on-DIMM buffer's read-after-write effects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "latchwork/base/layout.h"

namespace lw {

// What every memory node's host memory is.
enum class MemoryKind : uint8_t { kDram, kPm };
std::string_view to_string(MemoryKind k);                 // "dram", "pm"
bool parse_memory_kind(std::string_view s, MemoryKind* out);

struct MemoryConfig {
  MemoryKind kind = MemoryKind::kDram; // dram | pm (JSON and flags: the names)
  Nanos pm_read_extra_ns = 224;        // load latency beyond DRAM's: ~305 - ~81 ns
  Nanos pm_write_extra_ns = 10;        // store latency beyond DRAM's (ADR: small; assumed)
  double pm_read_bytes_per_ns = 39.4;  // media read bandwidth per node (GB/s), 6 DIMMs
  double pm_write_bytes_per_ns = 13.9; // media write bandwidth per node (GB/s), 6 DIMMs
  uint32_t pm_access_bytes = 256;      // media access granularity (an XPLine)

  bool pm() const { return kind == MemoryKind::kPm; }
  // Media bytes an access of `bytes` moves: whole pm_access_bytes lines.
  uint64_t pm_media_bytes(uint64_t bytes) const {
    const uint64_t g = pm_access_bytes ? pm_access_bytes : 1;
    return (bytes + g - 1) / g * g;
  }
  static constexpr uint32_t kMaxAccessBytes = 4096;
  // An error message naming the bad field, or "".
  std::string validate() const;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const MemoryConfig&) const = default;
};

}  // namespace lw
