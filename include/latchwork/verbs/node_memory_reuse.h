// Keeps the memory of released memory nodes mapped, for the next node of the
// same size, while one NodeMemoryReuse is alive (`latchwork repro` holds one
// per figure: its points each create nodes of one size and fill them again).
//
// Why: a fresh mapping's pages cost a kernel fault and a zero-fill each on
// first touch, about 0.75 s per GB written on this project's machine; in the
// transaction figures that was a third of the wall time. A kept page is
// already resident and costs a check (and a memset if it was written).
//
// A kept mapping reads zero everywhere, as a fresh one: on release, every
// resident page (mincore) that is not all zero is zeroed and kept, and every
// other range is dropped (MADV_DONTNEED: also a swapped-out page, which
// mincore does not see). So what is kept is the last run's written pages.
// Bounded: at most max_resident_bytes of touched pages are kept; the rest is
// unmapped as before. One is in effect at a time: one made while another is
// alive does nothing (and counts nothing).
#pragma once

#include <cstddef>
#include <cstdint>

namespace lw {

class NodeMemoryReuse {
 public:
  explicit NodeMemoryReuse(uint64_t max_resident_bytes);
  ~NodeMemoryReuse();  // unmaps what it keeps
  NodeMemoryReuse(const NodeMemoryReuse&) = delete;
  NodeMemoryReuse& operator=(const NodeMemoryReuse&) = delete;

  uint64_t reused() const;          // mappings handed out again
  uint64_t kept_bytes() const;      // resident bytes of the mappings kept now

  // NodeMemory's side: a kept mapping of exactly `bytes`, or nullptr; and a
  // mapping released (true: kept, else the caller unmaps it).
  static void* take(uint64_t bytes);
  static bool give(void* base, uint64_t bytes);

 private:
  void* pool_ = nullptr;  // non-null: this one is in effect
};

}  // namespace lw
