// The memory of one memory node, as every backend lays it out.
//
// A node's address space (offsets of RemoteAddr):
//
//   0        4096                         bytes      2^46            2^46 + dm
//   +--------+----------------------------+ ... ------+---------------+
//   |reserved|  host memory (registered)  |  (hole)   | device memory |
//   +--------+----------------------------+ ... ------+---------------+
//
// Offsets below 4096 are reserved so that no valid address is null. Device
// (on-chip NIC) memory is a second registered region far above host memory.
// Storage is 8-byte words so that backends with real threads can access it
// through std::atomic_ref<uint64_t>. Both regions are anonymous mappings whose
// pages the kernel zero-fills on first touch: resident memory follows the
// bytes used, and creating a node costs the same whatever its size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "latchwork/base/assert.h"
#include "latchwork/base/layout.h"
#include "latchwork/base/status.h"
#include "verbs/host_image.h"
#include "verbs/node_memory_reuse.h"
#include "latchwork/verbs/work_request.h"

namespace lw {

class NodeMemory {
 public:
  static constexpr uint64_t kReservedBytes = 4096;
  static constexpr uint64_t kDeviceBase = uint64_t{1} << 46;

  // Throws std::runtime_error, naming the size, if the memory cannot be mapped.
  // track_writes: its owner calls note_written() for every store it makes
  // through bytes()/word() (the simulator does), so that handing the memory
  // on (NodeMemoryReuse) zeroes the pages written instead of scanning every
  // resident page, and keeps them resident for the next node. Only while a
  // NodeMemoryReuse is in effect; otherwise note_written() does nothing.
  // reuse_slot: which kept mapping to prefer (the simulator's node index).
  NodeMemory(uint64_t host_bytes, uint64_t device_bytes, bool track_writes = false, uint32_t reuse_slot = 0);
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;

  // Validates an access as the responder NIC would, without touching memory.
  Status check(uint64_t offset, uint64_t length, bool atomic) const {
    return check_access(host_bytes_, device_bytes_, offset, length, atomic);
  }
  // The same check for a node of this layout known only by its sizes (the
  // verbs backend validates before posting, so misuse never breaks a QP).
  // Inline: the simulator checks every verb.
  static Status check_access(uint64_t host_bytes, uint64_t device_bytes, uint64_t offset,
                             uint64_t length, bool atomic) {
    if (length == 0 || length > kMaxTransferBytes) return Status::kBadLength;
    if (atomic && offset % 8 != 0) return Status::kMisaligned;
    uint64_t end;
    if (offset >= kReservedBytes && offset < host_bytes) {
      end = host_bytes;
    } else if (offset >= kDeviceBase && offset < kDeviceBase + device_bytes) {
      end = kDeviceBase + device_bytes;
    } else {
      return Status::kUnregistered;
    }
    if (length > end - offset) return Status::kOutOfBounds;
    return Status::kOk;
  }
  Status check(const WorkRequest& wr) const {
    return check(wr.remote.offset(), is_atomic(wr.opcode) ? 8 : wr.length, is_atomic(wr.opcode));
  }

  bool is_device(uint64_t offset) const { return offset >= kDeviceBase; }

  // Raw storage of a validated range (byte or word view). Inline: every
  // simulated access goes through it.
  std::byte* bytes(uint64_t offset) {
    if (offset >= kDeviceBase) {
      LW_CHECK(offset - kDeviceBase < device_bytes_);
      return device_.get() + (offset - kDeviceBase);
    }
    LW_CHECK(offset < host_bytes_);
    return host_.get() + offset;
  }
  uint64_t* word(uint64_t offset) { return reinterpret_cast<uint64_t*>(bytes(offset)); }

  // A store to [lo, hi) (host or device offsets, validated, hi > lo)
  // landed. Inline: the simulator notes every WRITE line and atomic.
  void note_written(uint64_t lo, uint64_t hi) {
    if (!track_writes_) return;
    Mapping& m = lo >= kDeviceBase ? device_ : host_;
    const uint64_t base = lo >= kDeviceBase ? kDeviceBase : 0;
    m.note_written(lo - base, hi - base);
  }

  // Set-up copies from the host, outside any run; checked like a NIC access.
  void host_copy_in(uint64_t offset, const void* src, uint64_t length);
  void host_copy_out(uint64_t offset, void* dst, uint64_t length);

  // Bump allocation in host or device memory; returns 0 when full. Safe to
  // call from several threads (the memory node's allocation service).
  uint64_t allocate(uint64_t length, uint64_t align);
  uint64_t allocate_device(uint64_t length, uint64_t align);

  uint64_t host_bytes() const { return host_bytes_; }
  uint64_t device_bytes() const { return device_bytes_; }

  // Makes host memory [img.offset(), + img.bytes()) read as `img`, copying
  // its non-zero pages: the range must still be as allocate() handed it out
  // (all zero). Not while workers run. A tracked node keeps `img` alive and
  // hands it on with its mapping (NodeMemoryReuse): the next node built in
  // that mapping that installs `img` copies nothing. A node whose host
  // memory was not written yet may swap it for a kept mapping that holds
  // `img`: pointers from bytes() taken before are then stale.
  // True if its bytes were there already (held by the mapping: no copy).
  bool install_image(const HostImage& img);

  // A tracked node may start in a kept mapping that still holds the host
  // image its last node installed, to be installed again for free. Until
  // then the image is pending: copying in or out of its range drops it
  // first (Mapping::drop_pending: the node then reads zero there), and so
  // does settle(), which the owner calls before any other access (bytes(),
  // word(): the simulator calls it when a run starts).
  void settle() { host_.drop_pending(); }

 private:
  // An anonymous private mapping of zero pages, unmapped (or handed on) on
  // destruction, with one bit per page (NodeMemoryReuse::kPageBytes) of
  // what was written since (written_; tracked mappings only, else empty) and
  // of what may be resident (touched_, handed along by NodeMemoryReuse).
  class Mapping {
   public:
    Mapping(uint64_t bytes, const char* what, bool track, uint32_t slot);
    ~Mapping();
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    std::byte* get() const { return base_; }
    void note_written(uint64_t lo, uint64_t hi) {
      constexpr uint64_t kPage = NodeMemoryReuse::kPageBytes;
      for (uint64_t p = lo / kPage, last = (hi - 1) / kPage; p <= last; ++p)
        written_[p >> 6] |= uint64_t{1} << (p & 63);
    }
    // The pending image (held from the pool, not installed): true and no
    // longer pending if it is `img`.
    bool claim_pending(const HostImage& img);
    // Drops the pending image if it overlaps [lo, hi) (offsets): if nothing
    // was written yet, by trading this mapping for a zero one (the pool
    // keeps it, with its image, for a node that installs it); else zeroed.
    void drop_pending(uint64_t lo = 0, uint64_t hi = ~uint64_t{0});
    // Not written since it was taken: exchanged for a kept mapping whose
    // pending image is `img` (NodeMemoryReuse::exchange), if there is one.
    bool exchange_for(const HostImage& img);
    // Whether it can keep an installed image (tracked, holding none yet),
    // and keeping it: its pages count as resident, not as written.
    bool can_keep_image() const { return !written_.empty() && image_ == nullptr; }
    void keep_image(std::shared_ptr<const HostImage> img);

   private:
    bool unwritten() const;
    static std::byte* map_fresh(uint64_t bytes, const char* what);  // throws if it cannot
    std::byte* base_ = nullptr;
    uint64_t bytes_ = 0;
    uint32_t slot_ = 0;
    std::vector<uint64_t> written_, touched_;
    // What it holds outside the written pages: zero, or this image.
    std::shared_ptr<const HostImage> image_;
    bool pending_ = false;  // image_ came from the pool and is not installed
  };

  bool track_writes_;
  uint64_t host_bytes_;
  uint64_t device_bytes_;
  Mapping host_;
  Mapping device_;
  std::mutex alloc_mu_;
  uint64_t host_next_ = kReservedBytes;
  uint64_t device_next_ = 0;
};

}  // namespace lw
