// Coroutine frames recycled per thread, by size class.
//
// Every call of a Task function allocates its frame and every finished Task
// frees it: a hash-table lookup under SMART's runtime is a handful of nested
// Tasks per operation, thousands of operations in flight. Frames of a few
// hundred bytes to a few kilobytes miss malloc's per-thread cache and take
// its slower bins (6% of smart-fig7's time in malloc and free). Here a frame
// comes from a free list of its size class and goes back to one: a pop and
// a push.
//
// Each thread keeps its own lists (no locks); a frame freed on another
// thread than the one that made it joins that thread's list, which is fine:
// every block is its own allocation. The lists are bounded (kKeep blocks per
// class, larger frames are not kept), and a thread's blocks are freed when
// it exits. Under AddressSanitizer frames are plain allocations, so a use of
// a destroyed frame is still caught.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace lw::detail {

class FramePool {
 public:
  static constexpr size_t kGrain = 64;     // size classes: multiples of a cache line
  static constexpr size_t kClasses = 64;   // frames up to 4 KB are kept
  static constexpr uint32_t kKeep = 1024;  // free blocks kept per class

  FramePool() = default;
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;
  ~FramePool() {
    for (Free*& head : free_) {
      while (head != nullptr) {
        Free* next = head->next;
        ::operator delete(head, std::align_val_t{kGrain});
        head = next;
      }
    }
  }

  void* allocate(size_t bytes) {
    const size_t c = class_of(bytes);
    if (c < kClasses) {
      if (Free* f = free_[c]) {
        free_[c] = f->next;
        --count_[c];
        return f;
      }
    }
    return ::operator new(c * kGrain, std::align_val_t{kGrain});
  }

  void release(void* p, size_t bytes) noexcept {
    const size_t c = class_of(bytes);
    if (c >= kClasses || count_[c] >= kKeep) {
      ::operator delete(p, std::align_val_t{kGrain});
      return;
    }
    Free* f = static_cast<Free*>(p);
    f->next = free_[c];
    free_[c] = f;
    ++count_[c];
  }

  static FramePool& mine() {
    thread_local FramePool pool;
    return pool;
  }

 private:
  struct Free {
    Free* next;
  };
  static size_t class_of(size_t bytes) { return (bytes + kGrain - 1) / kGrain; }

  Free* free_[kClasses] = {};
  uint32_t count_[kClasses] = {};
};

inline void* allocate_frame(size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  return ::operator new(bytes);
#else
  return FramePool::mine().allocate(bytes);
#endif
}

inline void free_frame(void* p, size_t bytes) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  (void)bytes;
  ::operator delete(p);
#else
  FramePool::mine().release(p, bytes);
#endif
}

}  // namespace lw::detail
