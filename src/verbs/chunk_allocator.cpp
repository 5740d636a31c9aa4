#include "latchwork/verbs/chunk_allocator.h"

#include <cstring>

#include "latchwork/verbs/rpc_builtin.h"

namespace lw {

ChunkAllocator::ChunkAllocator(NodeId node, uint64_t chunk_bytes) : node_(node), chunk_bytes_(chunk_bytes) {
  LW_CHECK(chunk_bytes_ >= kCacheLine && chunk_bytes_ % kCacheLine == 0);
}

RemoteAddr ChunkAllocator::carve(uint64_t bytes, uint64_t align) {
  if (end_ == 0) return {};
  const uint64_t at = align_up(next_, align);
  if (at + bytes > end_) return {};
  next_ = at + bytes;
  return RemoteAddr(node_, at);
}

void ChunkAllocator::install(RemoteAddr chunk) {
  LW_CHECK(chunk.node() == node_);
  ++chunks_;
  next_ = chunk.offset();
  end_ = next_ + chunk_bytes_;
}

RemoteAddr ChunkAllocator::allocate(Backend& backend, uint64_t bytes, uint64_t align) {
  LW_CHECK(align > 0 && align <= kCacheLine && (align & (align - 1)) == 0);
  if (bytes == 0 || bytes > chunk_bytes_) return {};
  if (RemoteAddr r = carve(bytes, align); !r.is_null()) return r;
  if (exhausted_) return {};
  const RemoteAddr chunk = backend.allocate(node_, chunk_bytes_, kCacheLine);
  if (chunk.is_null()) {
    exhausted_ = true;
    return {};
  }
  install(chunk);
  return carve(bytes, align);
}

Task<RemoteAddr> ChunkAllocator::fetch_chunk(Worker& w) {
  const uint64_t req[2] = {chunk_bytes_, kCacheLine};
  std::byte reply[8];
  for (uint32_t attempt = 0; attempt < kRefillAttempts; ++attempt) {
    Result<uint32_t> r = co_await w.call(node_, kAllocChunkHandler,
                                         std::as_bytes(std::span(req)), std::span(reply));
    if (r.status == Status::kQueueFull) {
      co_await w.sleep(Nanos{1000} << attempt);  // back off while the node is swamped
      continue;
    }
    if (!r.ok() || r.value != sizeof reply) co_return RemoteAddr();
    uint64_t raw;
    std::memcpy(&raw, reply, sizeof raw);
    co_return RemoteAddr::from_raw(raw);
  }
  co_return RemoteAddr();
}

Task<RemoteAddr> ChunkAllocator::allocate(Worker& w, uint64_t bytes, uint64_t align) {
  LW_CHECK(align > 0 && align <= kCacheLine && (align & (align - 1)) == 0);
  if (bytes == 0 || bytes > chunk_bytes_) co_return RemoteAddr();
  // Each pass either carves, gives up, waits out one refill, or refills:
  // a waiter is woken only after a refill ended, so the passes are bounded.
  for (uint32_t pass = 0;; ++pass) {
    LW_CHECK_MSG(pass < 1'000'000, "ChunkAllocator: a coroutine never got memory");
    if (RemoteAddr r = carve(bytes, align); !r.is_null()) co_return r;
    if (exhausted_) co_return RemoteAddr();
    if (refilling_) {
      waiting_.push_back(w.port());
      co_await w.park();
      continue;
    }
    refilling_ = true;
    const RemoteAddr chunk = co_await fetch_chunk(w);
    refilling_ = false;
    if (chunk.is_null()) exhausted_ = true;
    else install(chunk);
    // Wake every waiter, in the order they came; each retries.
    std::vector<WorkerPort*> wake;
    wake.swap(waiting_);
    for (WorkerPort* p : wake) p->unpark();
    if (chunk.is_null()) co_return RemoteAddr();
  }
}

}  // namespace lw
