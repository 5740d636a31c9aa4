#include "line_memory.h"

#include <thread>

#include "latchwork/base/assert.h"

namespace lw::threads {
namespace {
// A spin bound far above any legitimate wait: past it a thread is stuck.
constexpr uint64_t kSpinLimit = uint64_t{1} << 32;
}  // namespace

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

void LineMemory::pause(int) { std::this_thread::yield(); }

}  // namespace lw::threads
