#include "line_memory.h"

#include <thread>

#include "latchwork/base/assert.h"

namespace lw::threads {
namespace {
// A spin bound far above any legitimate wait: past it a thread is stuck.
constexpr uint64_t kSpinLimit = uint64_t{1} << 32;
// Optimistic attempts of a contended line read before it takes the lock.
constexpr int kOptimisticReads = 64;
}  // namespace

LineMemory::LineMemory(uint64_t host_bytes, uint64_t device_bytes)
    : mem_(host_bytes, device_bytes), host_end_(mem_.host_bytes()), device_bytes_(mem_.device_bytes()) {
  host_ = mem_.bytes(NodeMemory::kReservedBytes);
  LW_CHECK_MSG(mem_.bytes(host_end_ - kWord) == storage(host_end_ - kWord),
               "host memory storage is not contiguous");
  if (device_bytes_ > 0) {
    device_ = mem_.bytes(NodeMemory::kDeviceBase);
    LW_CHECK_MSG(mem_.bytes(NodeMemory::kDeviceBase + device_bytes_ - kWord) ==
                     storage(NodeMemory::kDeviceBase + device_bytes_ - kWord),
                 "device memory storage is not contiguous");
  }
}

uint64_t LineMemory::lock_slow(std::atomic<uint64_t>& s) {
  for (uint64_t spins = 0;; ++spins) {
    uint64_t v = s.load(std::memory_order_relaxed);
    if ((v & 1) == 0 &&
        s.compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed)) {
      std::atomic_thread_fence(std::memory_order_release);
      return v;
    }
    LW_CHECK_MSG(spins < kSpinLimit, "line lock held forever");
    if ((spins & 63) == 63) std::this_thread::yield();
  }
}

void LineMemory::read_line_contended(uint64_t offset, const std::byte* p, uint64_t len,
                                     std::byte* dst) {
  std::atomic<uint64_t>& s = stripe(offset);
  for (int attempt = 0; attempt < kOptimisticReads; ++attempt) {
    const uint64_t v1 = s.load(std::memory_order_acquire);
    if (v1 & 1) {
      std::this_thread::yield();
      continue;
    }
    copy_out(offset, p, len, dst);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.load(std::memory_order_relaxed) == v1) return;
  }
  // Under heavy write traffic, stop retrying and exclude writers instead.
  const uint64_t v = lock(s);
  copy_out(offset, p, len, dst);
  s.store(v + 2, std::memory_order_release);
}

}  // namespace lw::threads
