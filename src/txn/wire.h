// The engine's private formats: RPC requests and replies of the two-sided
// phases, and the redo/undo log entries in the log rings (DrTM+H §5.4: an
// entry is framed by its length at its beginning and its end, so a reader
// sees whether a one-sided WRITE of it completed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "latchwork/txn/record.h"
#include "latchwork/txn/store.h"
#include "latchwork/verbs/rpc.h"

namespace lw::txn::wire {

// Handler names (what `latchwork node` serves): Engine::handlers order.
inline constexpr const char* kGet = "txn.get";
inline constexpr const char* kLock = "txn.lock";
inline constexpr const char* kValidate = "txn.validate";
inline constexpr const char* kUnlock = "txn.unlock";
inline constexpr const char* kCommit = "txn.commit";
inline constexpr const char* kLog = "txn.log";
inline constexpr const char* kReclaim = "txn.reclaim";
enum HandlerIndex : uint32_t { kGetIx, kLockIx, kValidateIx, kUnlockIx, kCommitIx, kLogIx, kReclaimIx, kHandlers };

// Per-record outcome codes in replies.
enum Code : uint32_t { kOk = 0, kLocked = 1, kMissing = 2, kTorn = 3, kBad = 4 };

// Every request starts with this.
struct Header {
  uint32_t n = 0;            // items
  uint32_t coordinator = 0;  // global coordinator (lock words)
};
static_assert(sizeof(Header) == 8);

// txn.get: Header, n GetItem. Reply: n x (GetReply, image of `bytes`).
struct GetItem {
  uint16_t table = 0;
  uint16_t lock = 0;  // 1: CPU-CAS the lock first (FaSST-OCC's execution RPC)
  uint32_t pad = 0;
  uint64_t key = 0;
};
static_assert(sizeof(GetItem) == 16);
struct GetReply {
  uint32_t code = 0;
  uint32_t bytes = 0;  // image bytes that follow
  uint64_t addr = 0;   // RemoteAddr::raw() of the record (hybrid refills its cache)
};
static_assert(sizeof(GetReply) == 16);

// txn.lock: Header, n record offsets. Reply: LockReply, n versions (read
// after locking). A failed CAS releases this request's locks: locked == index
// of the failed record; all locked: locked == n.
struct LockReply {
  uint32_t locked = 0;
  uint32_t pad = 0;
};
static_assert(sizeof(LockReply) == 8);

// txn.validate: Header, n record offsets. Reply: n RecordHeader.
// txn.unlock: Header, n record offsets; releases those the coordinator holds.

// txn.commit: Header, n x (CommitItem, payload padded to 8). Writes the
// image from offset 8 (version in every line) and then releases the lock.
struct CommitItem {
  uint64_t offset = 0;
  uint64_t version = 0;
  uint32_t payload_bytes = 0;
  uint32_t pad = 0;
};
static_assert(sizeof(CommitItem) == 24);

// txn.log: uint64 node offset, then bytes copied there (a log entry chunk).
// txn.reclaim: ReclaimRequest. Reply: uint64 the ring's tail after applying.
struct ReclaimRequest {
  uint64_t ring = 0;  // node offset of the ring (its tail word)
  uint64_t to = 0;    // apply entries up to this logical position
};
static_assert(sizeof(ReclaimRequest) == 16);

// A log ring: a tail word (logical position applied so far) in its first
// line, then a data area of log_ring_bytes - 64 bytes. Logical positions
// grow forever; an entry sits at position % capacity and never straddles the
// end: a kWrap length word means "continue at the next lap".
inline constexpr uint64_t kRingHeader = 64;
inline constexpr uint64_t kWrap = ~uint64_t{0};
struct EntryHead {
  uint64_t len = 0;  // whole entry, both length words included
  uint32_t coordinator = 0;
  uint32_t count = 0;
};
static_assert(sizeof(EntryHead) == 16);
struct LogItem {
  uint16_t table = 0;
  uint16_t pad = 0;
  uint32_t payload_bytes = 0;
  uint64_t key = 0;
  uint64_t version = 0;
};
static_assert(sizeof(LogItem) == 24);

constexpr uint64_t pad8(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

// Appends a trivially copyable value to a byte vector.
template <typename T>
void put(std::vector<std::byte>& out, const T& v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}
inline void put_bytes(std::vector<std::byte>& out, std::span<const std::byte> b, uint64_t padded) {
  const size_t at = out.size();
  out.resize(at + padded, std::byte{0});
  std::memcpy(out.data() + at, b.data(), b.size());
}
template <typename T>
T get(std::span<const std::byte> in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  return v;
}

// Whether every line of a record image carries line 0's version.
inline bool image_consistent(std::span<const std::byte> image, uint32_t lines) {
  uint64_t v0;
  std::memcpy(&v0, image.data() + kVersionOffset, 8);
  for (uint32_t l = 1; l < lines; ++l) {
    uint64_t v;
    std::memcpy(&v, image.data() + size_t{l} * kRecordLine, 8);
    if (v != v0) return false;
  }
  return true;
}

}  // namespace lw::txn::wire
