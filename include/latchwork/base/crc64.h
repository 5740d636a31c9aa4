// CRC-64/XZ (ECMA-182 polynomial, reflected, init and xorout all ones): the
// checksum of the CRC consistency check.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lw {

// Continues a CRC over more bytes; start with crc64_update(0, ...).
uint64_t crc64_update(uint64_t crc, const void* data, size_t len) noexcept;
inline uint64_t crc64(const void* data, size_t len) noexcept { return crc64_update(0, data, len); }

}  // namespace lw
