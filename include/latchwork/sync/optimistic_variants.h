// Optimistic schemes beyond OptimisticBlock (Jasny et al. §4.5 and §6).
//
// Reversed layout with write unlatch (§4.5): the version word is last, so one
// WRITE of payload + new word unlatches (WRITEs land in increasing address
// order: the word lands after the data). Readers use no atomics, so no NIC
// atomic can lose the unlatch. Correct.
//
//   | payload ...................................... | word |   word = version<<1 | L
//   writer: READ word; CAS v|0 -> v|1; WRITE payload + (v+1)|0
//   reader: READ word; READ payload; READ word; valid if unlatched and unchanged
//
// Out-of-place updates with marking (§6): a slot word points at an immutable
// record; bit 0 marks an update in progress. Correct (records are never
// changed in place; this module never reuses them: reclaiming them needs
// epochs, which the check runs do without).
//
//   slot | record address | M |     record | payload ........ |
//   writer: CAS p|0 -> p|1; WRITE payload to a fresh record q; WRITE slot = q|0
//   reader: READ slot; marked -> retry; READ record p
//
// In-place marking (§6), a negative control: the mark word sits in front of
// the data, which is overwritten in place. One READ cannot tell a mark it
// fetched late from data it fetched early (the lines of a READ may be fetched
// in any order), so it can accept a torn tuple. Broken.
//
//   | mark | payload ........................ |
//   writer: CAS mark 0 -> 1; WRITE payload; WRITE mark 0
//   reader: one READ; valid if mark == 0
#pragma once

#include <span>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/sync/retry.h"

namespace lw {

struct ReversedVersionTuple {
  RemoteAddr base;          // payload_bytes of payload, then the word
  uint32_t payload_bytes;   // a multiple of 8
  RemoteAddr word() const { return base + payload_bytes; }
  static uint64_t bytes(uint32_t payload_bytes) { return uint64_t{payload_bytes} + kWord; }
};
Task<Status> reversed_write(Worker& w, const ReversedVersionTuple& t, std::span<const std::byte> payload,
                            const RetryPolicy& policy = {});
Task<Status> reversed_read(Worker& w, const ReversedVersionTuple& t, std::span<std::byte> payload,
                           const RetryPolicy& policy = {});

struct OutOfPlaceSlot {
  RemoteAddr slot;          // 8-byte word: record address | mark
  uint32_t payload_bytes;
  static constexpr uint64_t kMark = 1;
};
// `fresh` is a record of payload_bytes the caller owns and never reuses.
Task<Status> out_of_place_write(Worker& w, const OutOfPlaceSlot& s, RemoteAddr fresh,
                                std::span<const std::byte> payload, const RetryPolicy& policy = {});
Task<Status> out_of_place_read(Worker& w, const OutOfPlaceSlot& s, std::span<std::byte> payload,
                               const RetryPolicy& policy = {});

struct InPlaceMarkedTuple {
  RemoteAddr base;          // mark word, then payload_bytes
  uint32_t payload_bytes;
  static uint64_t bytes(uint32_t payload_bytes) { return uint64_t{payload_bytes} + kWord; }
};
Task<Status> in_place_marked_write(Worker& w, const InPlaceMarkedTuple& t,
                                   std::span<const std::byte> payload, const RetryPolicy& policy = {});
Task<Status> in_place_marked_read(Worker& w, const InPlaceMarkedTuple& t, std::span<std::byte> payload,
                                  const RetryPolicy& policy = {});

}  // namespace lw
