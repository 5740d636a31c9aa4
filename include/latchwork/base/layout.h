// Constants of the memory system every layout is drawn against.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lw {

// A PCIe/CPU cache line: the unit a NIC reads or writes atomically.
inline constexpr size_t kCacheLine = 64;
// RDMA atomics act on aligned 8-byte words.
inline constexpr size_t kWord = 8;

constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
constexpr uint64_t line_of(uint64_t offset) { return offset / kCacheLine; }

// Virtual time in nanoseconds.
using Nanos = uint64_t;

}  // namespace lw
