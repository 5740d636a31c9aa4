// Keeps the memory of released memory nodes mapped, for the next node of the
// same size, while one NodeMemoryReuse is alive (`latchwork repro` holds one
// per figure: its points each create nodes of one size and fill them again).
//
// Why: a fresh mapping's pages cost a kernel fault and a zero-fill each on
// first touch, about 0.75 s per GB written on this project's machine; in the
// transaction figures that was a third of the wall time. A kept page is
// already resident and costs a check (and a memset if it was written).
//
// A kept mapping reads zero everywhere, as a fresh one, or holds one host
// image. On release:
// - a tracked mapping (its owner noted every page it wrote: the simulator's
//   nodes) has exactly those pages zeroed; every page stays resident, so the
//   next node writes without faults, and nothing else is scanned. One that
//   installed a host image keeps it: its written pages get the image's bytes
//   back, and the next node to install that image there copies nothing (a
//   DrTM+H point copied and then zeroed 6-10 MB per node for the 1-2 MB
//   its run wrote);
// - any other mapping has every resident page (mincore) that is not all zero
//   zeroed and kept, and every other range dropped (MADV_DONTNEED: also a
//   swapped-out page, which mincore does not see).
// Bounded: at most max_resident_bytes of pages ever written are kept (a
// mapping beyond that is dropped to no resident page first, or unmapped);
// at most 64 mappings. One is in effect at a time: one made while another
// is alive does nothing (and counts nothing).
//
// While one is in effect, producers of set-up keep their memory images in
// the set-up store (base/setup_store.h, SetupLifetime::kReuseScope); its end
// drops them. This is not one of the store's products because it reuses
// pages, not content: a released mapping has no key but its size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "verbs/host_image.h"

namespace lw {

class NodeMemoryReuse {
 public:
  explicit NodeMemoryReuse(uint64_t max_resident_bytes);
  ~NodeMemoryReuse();  // unmaps what it keeps
  NodeMemoryReuse(const NodeMemoryReuse&) = delete;
  NodeMemoryReuse& operator=(const NodeMemoryReuse&) = delete;

  // The unit of the page bitmaps below, and their length in words.
  static constexpr uint64_t kPageBytes = 4096;
  static uint64_t bitmap_words(uint64_t bytes) { return ((bytes + kPageBytes - 1) / kPageBytes + 63) / 64; }

  uint64_t reused() const;          // mappings handed out again
  // Whether one is in effect now (nodes made then note their writes).
  static bool active();
  uint64_t kept_bytes() const;      // resident bytes of the mappings kept now

  // NodeMemory's side. take(): a kept mapping of exactly `bytes`, or
  // nullptr, the last one given with the same `slot` first (the simulator's
  // memory node index: the next point's node n reuses node n's mapping),
  // with *touched (one bit per 4 KB page) set to its pages that may be
  // resident (empty: none). It reads zero, except that with `image` non-null
  // it may hold a host image (*image: which, at its own offsets; null: none)
  // that its taker installs again for free or zeroes (NodeMemory::settle).
  // give(): a mapping released (true: kept, else the caller unmaps it),
  // with its pages written since it was taken (null: not tracked, scan it),
  // `touched` as take() left it, and the image it holds outside the written
  // pages (tracked mappings only): those pages are restored to it, not zeroed.
  // zero_only: only one that holds no image.
  static void* take(uint64_t bytes, uint32_t slot, std::vector<uint64_t>* touched,
                    std::shared_ptr<const HostImage>* image, bool zero_only = false);
  static bool give(void* base, uint64_t bytes, const std::vector<uint64_t>* written,
                   std::vector<uint64_t> touched, uint32_t slot, std::shared_ptr<const HostImage> image);

  // A kept mapping of `bytes` that holds `wanted`, exchanged for the
  // caller's (at *base, written nowhere since it was taken, holding *image
  // or zero, with *touched): the caller's is kept in its place, and *base,
  // *touched and *image become the other's. False (nothing changed) if none
  // holds it or the pool's bound would be passed.
  static bool exchange(void** base, uint64_t bytes, uint32_t slot, std::vector<uint64_t>* touched,
                       std::shared_ptr<const HostImage>* image, const HostImage& wanted);

 private:
  void* pool_ = nullptr;  // non-null: this one is in effect
};

}  // namespace lw
