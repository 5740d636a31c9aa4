// Remote memory for one worker: large chunks taken from a memory node, carved
// up locally by bumping a pointer (as Sherman's compute nodes do), so most
// allocations cost no message. One allocator per worker; not shared.
#pragma once

#include "latchwork/verbs/backend.h"

namespace lw {

class ChunkAllocator {
 public:
  static constexpr uint64_t kDefaultChunk = 1ull << 20;

  ChunkAllocator(Backend& backend, NodeId node, uint64_t chunk_bytes = kDefaultChunk)
      : backend_(backend), node_(node), chunk_bytes_(chunk_bytes) {
    LW_CHECK(chunk_bytes_ >= kCacheLine && chunk_bytes_ % kCacheLine == 0);
  }

  // `bytes` aligned to `align` (a power of two, at most 64). Null when the
  // request exceeds a chunk or the node is out of memory.
  RemoteAddr allocate(uint64_t bytes, uint64_t align = kWord) {
    LW_CHECK(align > 0 && align <= kCacheLine && (align & (align - 1)) == 0);
    if (bytes == 0 || bytes > chunk_bytes_) return {};
    uint64_t at = align_up(next_, align);
    if (chunk_.is_null() || at + bytes > chunk_end_) {
      chunk_ = backend_.allocate(node_, chunk_bytes_, kCacheLine);
      if (chunk_.is_null()) return {};
      ++chunks_;
      at = chunk_.offset();
      chunk_end_ = at + chunk_bytes_;
    }
    next_ = at + bytes;
    return RemoteAddr(node_, at);
  }

  uint64_t chunks() const { return chunks_; }

 private:
  Backend& backend_;
  NodeId node_;
  uint64_t chunk_bytes_;
  RemoteAddr chunk_;
  uint64_t next_ = 0;
  uint64_t chunk_end_ = 0;
  uint64_t chunks_ = 0;
};

}  // namespace lw
