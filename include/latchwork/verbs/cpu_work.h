// The kinds of CPU work whose cost the simulator models, shared by
// coroutines (Worker::compute) and RPC handlers (RpcServer::compute).
#pragma once

#include <cstdint>

namespace lw {

// CPU work whose cost the simulator models (elsewhere it takes real time):
// the checks of optimistic schemes (Jasny et al. §4.4: CRC is O(n) in bytes,
// FaRM O(n) in cache lines) and an operation's own steps (issue 42). The
// NIC model's costs per unit are measured (bench/cpu_work.cpp); the simple
// timing model charges the checks only.
enum class CpuWork : uint8_t {
  kCrc64Byte,   // one byte through CRC-64
  kFarmLine,    // one cache line's version checked or stamped
  kKeyHash,     // one key through a structure's hash functions (RACE: both)
  kKeyScan,     // one slot or entry tested in a scan (bucket slots, node entries)
  kOpIssue,     // a client's per-operation loop: draw the key, time the operation
  kCopyByte,    // one byte copied: a record into a message, a log entry or a buffer
  kTxnRecord,   // one record through a transaction's read/write set (copies apart)
};

}  // namespace lw
