#include "latchwork/verbs/node_memory.h"

#include <cstring>
#include <string>

#include "latchwork/base/assert.h"

namespace lw {

NodeMemory::NodeMemory(uint64_t host_bytes, uint64_t device_bytes)
    : host_bytes_(align_up(host_bytes, kCacheLine)),
      device_bytes_(align_up(device_bytes, kCacheLine)),
      host_(new uint64_t[host_bytes_ / 8]()),
      device_(device_bytes_ ? new uint64_t[device_bytes_ / 8]() : nullptr) {
  LW_CHECK(host_bytes_ > kReservedBytes);
}

Status NodeMemory::check_access(uint64_t host_bytes, uint64_t device_bytes, uint64_t offset,
                                uint64_t length, bool atomic) {
  if (length == 0 || length > kMaxTransferBytes) return Status::kBadLength;
  if (atomic && offset % 8 != 0) return Status::kMisaligned;
  uint64_t begin, end;
  if (offset >= kReservedBytes && offset < host_bytes) {
    begin = kReservedBytes;
    end = host_bytes;
  } else if (offset >= kDeviceBase && offset < kDeviceBase + device_bytes) {
    begin = kDeviceBase;
    end = kDeviceBase + device_bytes;
  } else {
    return Status::kUnregistered;
  }
  (void)begin;
  if (length > end - offset) return Status::kOutOfBounds;
  return Status::kOk;
}

std::byte* NodeMemory::bytes(uint64_t offset) {
  if (offset >= kDeviceBase) {
    LW_CHECK(offset - kDeviceBase < device_bytes_);
    return reinterpret_cast<std::byte*>(device_.get()) + (offset - kDeviceBase);
  }
  LW_CHECK(offset < host_bytes_);
  return reinterpret_cast<std::byte*>(host_.get()) + offset;
}

void NodeMemory::host_copy_in(uint64_t offset, const void* src, uint64_t length) {
  LW_CHECK_MSG(check(offset, length, false) == Status::kOk,
               "host write outside registered memory at offset " + std::to_string(offset));
  std::memcpy(bytes(offset), src, length);
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
