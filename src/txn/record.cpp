// Encoding and decoding of the record layout drawn in txn/record.h.
#include "latchwork/txn/record.h"

#include <algorithm>
#include <cstring>

#include "latchwork/base/assert.h"

namespace lw::txn {

void encode_record(std::span<std::byte> image, uint64_t version, std::span<const std::byte> payload) {
  const uint32_t lines = record_lines(static_cast<uint32_t>(payload.size()));
  LW_CHECK(payload.size() <= kMaxPayloadBytes);
  LW_CHECK(image.size() >= size_t{lines} * kRecordLine);
  std::memset(image.data(), 0, size_t{lines} * kRecordLine);
  std::memcpy(image.data() + kVersionOffset, &version, 8);
  size_t done = std::min<size_t>(payload.size(), kFirstLinePayload);
  if (done > 0) std::memcpy(image.data() + 16, payload.data(), done);
  for (uint32_t l = 1; l < lines; ++l) {
    std::byte* line = image.data() + size_t{l} * kRecordLine;
    std::memcpy(line, &version, 8);
    const size_t n = std::min<size_t>(payload.size() - done, kOtherLinePayload);
    std::memcpy(line + 8, payload.data() + done, n);
    done += n;
  }
  LW_CHECK(done == payload.size());
}

RecordView decode_record(std::span<const std::byte> image, std::span<std::byte> payload) {
  LW_CHECK(payload.size() <= kMaxPayloadBytes);
  const uint32_t lines = record_lines(static_cast<uint32_t>(payload.size()));
  LW_CHECK(image.size() >= size_t{lines} * kRecordLine);
  RecordView v;
  std::memcpy(&v.lock, image.data() + kLockOffset, 8);
  std::memcpy(&v.version, image.data() + kVersionOffset, 8);
  v.consistent = true;
  size_t done = std::min<size_t>(payload.size(), kFirstLinePayload);
  if (done > 0) std::memcpy(payload.data(), image.data() + 16, done);
  for (uint32_t l = 1; l < lines; ++l) {
    const std::byte* line = image.data() + size_t{l} * kRecordLine;
    uint64_t lv;
    std::memcpy(&lv, line, 8);
    if (lv != v.version) v.consistent = false;
    const size_t n = std::min<size_t>(payload.size() - done, kOtherLinePayload);
    std::memcpy(payload.data() + done, line + 8, n);
    done += n;
  }
  return v;
}

uint64_t payload_hash(std::span<const std::byte> payload) {
  uint64_t h = 1469598103934665603ull;
  for (std::byte b : payload) {
    h ^= static_cast<uint8_t>(b);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace lw::txn
