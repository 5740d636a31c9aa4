// Remote memory for the coroutines of one compute thread: large chunks taken
// from a memory node by RPC (kAllocChunkHandler), carved up locally by
// bumping a pointer, as Sherman's compute nodes do (§4.2.4: 8 MB chunks), so
// most allocations cost no message.
//
//   ChunkAllocator alloc(node);                       // shared by a thread's coroutines
//   RemoteAddr a = co_await alloc.allocate(w, 256, 64);
//
// Sharing: one allocator may serve every coroutine of one thread (not
// several threads). While one coroutine refills, the others that need a new
// chunk park and are woken in order when it arrives, so a thread holds one
// chunk at a time. The host-side overload takes chunks with
// Backend::allocate, for set-up outside run().
#pragma once

#include <cstdint>
#include <vector>

#include "latchwork/runtime/task.h"
#include "latchwork/verbs/backend.h"
#include "latchwork/verbs/worker.h"

namespace lw {

class ChunkAllocator {
 public:
  static constexpr uint64_t kDefaultChunk = 8ull << 20;  // Sherman §4.2.4
  // Attempts of one refill that the node's full RPC queue turns away.
  static constexpr uint32_t kRefillAttempts = 8;

  explicit ChunkAllocator(NodeId node, uint64_t chunk_bytes = kDefaultChunk);
  ChunkAllocator(const ChunkAllocator&) = delete;
  ChunkAllocator& operator=(const ChunkAllocator&) = delete;

  // `bytes` aligned to `align` (a power of two, at most 64), from a coroutine
  // of the thread that owns this allocator. Null when the request exceeds a
  // chunk, or the node has no chunk left.
  Task<RemoteAddr> allocate(Worker& w, uint64_t bytes, uint64_t align = kWord);
  // The same from the host, outside run().
  RemoteAddr allocate(Backend& backend, uint64_t bytes, uint64_t align = kWord);

  uint64_t chunks() const { return chunks_; }          // chunks taken so far
  uint64_t chunk_bytes() const { return chunk_bytes_; }
  NodeId node() const { return node_; }

 private:
  // Carves from the current chunk; null when it has no room.
  RemoteAddr carve(uint64_t bytes, uint64_t align);
  void install(RemoteAddr chunk);
  // One kAllocChunkHandler call, retried while the node's queue is full.
  Task<RemoteAddr> fetch_chunk(Worker& w);

  NodeId node_;
  uint64_t chunk_bytes_;
  uint64_t next_ = 0, end_ = 0;  // the current chunk's free range (offsets)
  uint64_t chunks_ = 0;
  bool exhausted_ = false;       // the node said it has no chunk left
  bool refilling_ = false;
  std::vector<WorkerPort*> waiting_;  // parked until the refill ends, in order
};

}  // namespace lw
