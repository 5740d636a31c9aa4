// A transactional record in remote memory (DrTM+H §2.2, §5.2: OCC needs a
// lock and a version per record; a validation READ fetches both).
//
// A record is whole 64-byte lines:
//
//   line 0   0        8          16                                   64
//            +--------+----------+------------------------------------+
//            | lock   | version  | payload [0, 48)                    |
//            +--------+----------+------------------------------------+
//   line k   0        8                                               64
//   (k >= 1) +--------+-------------------------------------------------+
//            | version| payload [48 + 56 (k-1), 48 + 56 k)              |
//            +--------+-------------------------------------------------+
//
// lock:    0 when free; kLockedBit | (coordinator + 1) while a committer
//          holds it (the Validation phase takes it, Commit releases it).
// version: how many transactions committed a write of this record (0 = as
//          loaded). A committer, holding the lock, writes the new version
//          into every line together with the payload in one WRITE starting
//          at offset 8, then releases the lock with a second WRITE on the
//          same queue pair (WRITEs on one QP execute in order).
//
// Why every line repeats the version: a multi-line READ may fetch its lines
// at different instants (read_lines_unordered), so a reader can see line 0
// of one commit and line 2 of another. Lines are atomic, so a READ whose
// lines all carry the same version saw one commit's image; any other READ
// is torn and is retried (or aborts the transaction).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "latchwork/base/layout.h"

namespace lw::txn {

inline constexpr uint64_t kLockedBit = uint64_t{1} << 63;
inline constexpr uint32_t kRecordLine = 64;
inline constexpr uint32_t kFirstLinePayload = 48;   // line 0 after lock and version
inline constexpr uint32_t kOtherLinePayload = 56;   // lines 1.. after their version
inline constexpr uint32_t kMaxRecordLines = 15;     // a record and its address fit one RPC reply
inline constexpr uint32_t kMaxPayloadBytes = kFirstLinePayload + kOtherLinePayload * (kMaxRecordLines - 1);  // 832
inline constexpr uint32_t kLockOffset = 0;
inline constexpr uint32_t kVersionOffset = 8;

struct RecordHeader {
  uint64_t lock = 0;
  uint64_t version = 0;
};
static_assert(sizeof(RecordHeader) == 16);
static_assert(kMaxRecordLines * kRecordLine == 960);

constexpr uint32_t record_lines(uint32_t payload_bytes) {
  return payload_bytes <= kFirstLinePayload
             ? 1
             : 1 + (payload_bytes - kFirstLinePayload + kOtherLinePayload - 1) / kOtherLinePayload;
}
constexpr uint32_t record_bytes(uint32_t payload_bytes) { return record_lines(payload_bytes) * kRecordLine; }
static_assert(record_bytes(8) == 64 && record_bytes(48) == 64 && record_bytes(49) == 128);
static_assert(record_lines(kMaxPayloadBytes) == kMaxRecordLines);

// The lock word of a coordinator (a global coordinator index).
constexpr uint64_t lock_word(uint32_t coordinator) { return kLockedBit | (uint64_t{coordinator} + 1); }

// Writes the image of a record (lock 0, `version` in every line, `payload`
// zero-padded) into `image` (record_bytes(payload.size()) bytes).
void encode_record(std::span<std::byte> image, uint64_t version, std::span<const std::byte> payload);

// What a READ of a whole record saw.
struct RecordView {
  uint64_t lock = 0;
  uint64_t version = 0;   // line 0's
  bool consistent = false;  // every line carries line 0's version
};
// Decodes `image` (a whole record); copies the payload into `payload`
// (payload.size() bytes, at most the record's capacity).
RecordView decode_record(std::span<const std::byte> image, std::span<std::byte> payload);

// FNV-1a of a payload: how histories name a written value.
uint64_t payload_hash(std::span<const std::byte> payload);

}  // namespace lw::txn
