#include "latchwork/verbs/node_memory.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "latchwork/base/assert.h"
#include "latchwork/verbs/node_memory_reuse.h"

namespace lw {

NodeMemory::NodeMemory(uint64_t host_bytes, uint64_t device_bytes, bool track_writes)
    // Only worth it when the memory will be handed on: elsewhere (a single
    // run, a benchmark) the simulator's stores skip the bookkeeping.
    : track_writes_(track_writes && NodeMemoryReuse::active()),
      host_bytes_(align_up(host_bytes, kCacheLine)),
      device_bytes_(align_up(device_bytes, kCacheLine)),
      host_(host_bytes_, "host", track_writes_),
      device_(device_bytes_, "device", track_writes_) {
  LW_CHECK(host_bytes_ > kReservedBytes);
}

NodeMemory::Mapping::Mapping(uint64_t bytes, const char* what, bool track) : bytes_(bytes) {
  if (bytes == 0) return;
  if (track) written_.assign(NodeMemoryReuse::bitmap_words(bytes), 0);
  if (void* kept = NodeMemoryReuse::take(bytes, &touched_)) {  // already zero
    base_ = static_cast<std::byte*>(kept);
    return;
  }
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
  base_ = static_cast<std::byte*>(p);
  // Ordinary 4 KB pages, no MADV_HUGEPAGE: the first write into a huge page
  // zeroes all 2 MB of it, and workloads write sparsely over large nodes
  // (latches of random tuples). Measured on this project's machine:
  // `latchwork repro jasny-fig10` took 8.3 s and 1 GB resident with huge
  // pages advised (75% of it zeroing), 2.4 s and 124 MB without; perf's dense
  // random READs and CAS over 8 MB ran at the same speed either way.
}

NodeMemory::Mapping::~Mapping() {
  if (base_ == nullptr) return;
  if (!NodeMemoryReuse::give(base_, bytes_, written_.empty() ? nullptr : &written_, std::move(touched_)))
    munmap(base_, bytes_);
}

void NodeMemory::install_image(const HostImage& img) {
  LW_CHECK_MSG(img.offset() >= kReservedBytes && img.offset() < host_bytes_ &&
                   img.bytes() <= host_bytes_ - img.offset(),
               "a host image outside host memory");
  img.copy_nonzero(img.offset(), img.offset() + img.bytes(), bytes(img.offset()));
  img.nonzero_ranges(img.offset(), img.offset() + img.bytes(), [&](uint64_t lo, uint64_t hi) { note_written(lo, hi); });
}

void NodeMemory::host_copy_in(uint64_t offset, const void* src, uint64_t length) {
  LW_CHECK_MSG(check(offset, length, false) == Status::kOk,
               "host write outside registered memory at offset " + std::to_string(offset));
  std::memcpy(bytes(offset), src, length);
  note_written(offset, offset + length);
}

void NodeMemory::host_copy_out(uint64_t offset, void* dst, uint64_t length) {
  LW_CHECK_MSG(check(offset, length, false) == Status::kOk,
               "host read outside registered memory at offset " + std::to_string(offset));
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
