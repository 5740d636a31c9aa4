#include "verbs/node_memory.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "latchwork/base/assert.h"
#include "verbs/node_memory_reuse.h"

namespace lw {

NodeMemory::NodeMemory(uint64_t host_bytes, uint64_t device_bytes, bool track_writes, uint32_t reuse_slot)
    // Only worth it when the memory will be handed on: elsewhere (a single
    // run, a benchmark) the simulator's stores skip the bookkeeping.
    : track_writes_(track_writes && NodeMemoryReuse::active()),
      host_bytes_(align_up(host_bytes, kCacheLine)),
      device_bytes_(align_up(device_bytes, kCacheLine)),
      host_(host_bytes_, "host", track_writes_, reuse_slot),
      device_(device_bytes_, "device", track_writes_, reuse_slot) {
  LW_CHECK(host_bytes_ > kReservedBytes);
}

NodeMemory::Mapping::Mapping(uint64_t bytes, const char* what, bool track, uint32_t slot)
    : bytes_(bytes), slot_(slot) {
  if (bytes == 0) return;
  if (track) written_.assign(NodeMemoryReuse::bitmap_words(bytes), 0);
  // Zero, or (tracked) holding a pending image.
  if (void* kept = NodeMemoryReuse::take(bytes, slot, &touched_, track ? &image_ : nullptr)) {
    base_ = static_cast<std::byte*>(kept);
    pending_ = image_ != nullptr;
    return;
  }
  base_ = map_fresh(bytes, what);
}

std::byte* NodeMemory::Mapping::map_fresh(uint64_t bytes, const char* what) {
  // NORESERVE: a large node that a run barely touches must not need swap
  // space for all of it up front.
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    throw std::runtime_error("cannot map " + std::to_string(bytes) + " bytes of " + what +
                             " memory for a memory node (memory_node_bytes / device_memory_bytes): " +
                             std::strerror(err));
  }
  // Ordinary 4 KB pages, no MADV_HUGEPAGE: the first write into a huge page
  // zeroes all 2 MB of it, and workloads write sparsely over large nodes
  // (latches of random tuples). Measured on this project's machine:
  // `latchwork repro jasny-fig10` took 8.3 s and 1 GB resident with huge
  // pages advised (75% of it zeroing), 2.4 s and 124 MB without; perf's dense
  // random READs and CAS over 8 MB ran at the same speed either way.
  return static_cast<std::byte*>(p);
}

NodeMemory::Mapping::~Mapping() {
  if (base_ == nullptr) return;
  if (!NodeMemoryReuse::give(base_, bytes_, written_.empty() ? nullptr : &written_, std::move(touched_), slot_,
                             std::move(image_)))
    munmap(base_, bytes_);
}

bool NodeMemory::Mapping::claim_pending(const HostImage& img) {
  if (!pending_ || image_.get() != &img) return false;
  pending_ = false;
  return true;
}

bool NodeMemory::Mapping::unwritten() const {
  if (written_.empty() || base_ == nullptr) return false;  // untracked: unknown
  for (uint64_t w : written_)
    if (w != 0) return false;
  return true;
}

bool NodeMemory::Mapping::exchange_for(const HostImage& img) {
  if (image_ != nullptr && !pending_) return false;  // holds an installed image
  if (!unwritten()) return false;
  void* base = base_;
  if (!NodeMemoryReuse::exchange(&base, bytes_, slot_, &touched_, &image_, img)) return false;
  base_ = static_cast<std::byte*>(base);
  pending_ = true;
  return true;
}

void NodeMemory::Mapping::drop_pending(uint64_t lo, uint64_t hi) {
  if (!pending_ || hi <= image_->offset() || lo >= image_->offset() + image_->bytes()) return;
  if (unwritten()) {
    // A zero mapping: a kept one, or a fresh one (its pages fault on first
    // touch; the nodes that install no image write little).
    std::vector<uint64_t> touched;
    std::byte* zero = static_cast<std::byte*>(NodeMemoryReuse::take(bytes_, slot_, &touched, nullptr, true));
    if (zero == nullptr) {
      try {
        zero = map_fresh(bytes_, "host");
      } catch (const std::runtime_error&) {
        zero = nullptr;  // zeroed in place below
      }
    }
    if (zero != nullptr) {
      if (!NodeMemoryReuse::give(base_, bytes_, &written_, std::move(touched_), slot_, std::move(image_)))
        munmap(base_, bytes_);
      base_ = zero;
      touched_ = std::move(touched);
      image_ = nullptr;
      pending_ = false;
      return;
    }
  }
  // Its pages stay resident (touched_ has them): zeroed, as never installed.
  image_->nonzero_ranges(image_->offset(), image_->offset() + image_->bytes(),
                         [&](uint64_t a, uint64_t b) { std::memset(base_ + a, 0, b - a); });
  image_ = nullptr;
  pending_ = false;
}

void NodeMemory::Mapping::keep_image(std::shared_ptr<const HostImage> img) {
  LW_CHECK(can_keep_image());
  touched_.resize(written_.size(), 0);
  constexpr uint64_t kPage = NodeMemoryReuse::kPageBytes;
  img->nonzero_ranges(img->offset(), img->offset() + img->bytes(), [&](uint64_t lo, uint64_t hi) {
    for (uint64_t p = lo / kPage, last = (hi - 1) / kPage; p <= last; ++p)
      touched_[p >> 6] |= uint64_t{1} << (p & 63);
  });
  image_ = std::move(img);
}

bool NodeMemory::install_image(const HostImage& img) {
  LW_CHECK_MSG(img.offset() >= kReservedBytes && img.offset() < host_bytes_ &&
                   img.bytes() <= host_bytes_ - img.offset(),
               "a host image outside host memory");
  // Its bytes are there already, or in another kept mapping (this one's
  // pointers from bytes() are then stale: nothing runs yet).
  if (host_.claim_pending(img) || (host_.exchange_for(img) && host_.claim_pending(img))) return true;
  host_.drop_pending();
  img.copy_nonzero(img.offset(), img.offset() + img.bytes(), bytes(img.offset()));
  if (host_.can_keep_image()) {
    host_.keep_image(img.shared_from_this());
  } else {
    img.nonzero_ranges(img.offset(), img.offset() + img.bytes(), [&](uint64_t lo, uint64_t hi) { note_written(lo, hi); });
  }
  return false;
}

void NodeMemory::host_copy_in(uint64_t offset, const void* src, uint64_t length) {
  LW_CHECK_MSG(check(offset, length, false) == Status::kOk,
               "host write outside registered memory at offset " + std::to_string(offset));
  host_.drop_pending(offset, offset + length);
  std::memcpy(bytes(offset), src, length);
  note_written(offset, offset + length);
}

void NodeMemory::host_copy_out(uint64_t offset, void* dst, uint64_t length) {
  LW_CHECK_MSG(check(offset, length, false) == Status::kOk,
               "host read outside registered memory at offset " + std::to_string(offset));
  host_.drop_pending(offset, offset + length);
  std::memcpy(dst, bytes(offset), length);
}

uint64_t NodeMemory::allocate(uint64_t length, uint64_t align) {
  LW_CHECK(align > 0 && (align & (align - 1)) == 0);
  std::lock_guard<std::mutex> lock(alloc_mu_);
  uint64_t at = align_up(host_next_, align);
  if (length == 0 || at + length > host_bytes_ || at + length < at) return 0;
  host_next_ = at + length;
  return at;
}

uint64_t NodeMemory::allocate_device(uint64_t length, uint64_t align) {
  LW_CHECK(align > 0 && (align & (align - 1)) == 0);
  std::lock_guard<std::mutex> lock(alloc_mu_);
  uint64_t at = align_up(device_next_, align);
  if (length == 0 || at + length > device_bytes_) return 0;
  device_next_ = at + length;
  return kDeviceBase + at;
}

}  // namespace lw
