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
// it exits; a frame freed after that (a static destructor's) is deleted.
// Under AddressSanitizer (GCC's or Clang's) frames are plain allocations, so
// a use of a destroyed frame is still caught.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define LW_FRAME_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LW_FRAME_POOL 0
#endif
#endif
#ifndef LW_FRAME_POOL
#define LW_FRAME_POOL 1
#endif

namespace lw::detail {

class FramePool {
 public:
  static constexpr size_t kGrain = 64;     // size classes: multiples of a cache line
  static constexpr size_t kClasses = 64;   // class c: blocks of (c + 1) * 64 bytes, up to 4 KB
  static constexpr uint32_t kKeep = 1024;  // free blocks kept per class

  FramePool() = default;
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;
  ~FramePool() {
    for (size_t c = 0; c < kClasses; ++c) {
      while (free_[c] != nullptr) {
        Free* next = free_[c]->next;
        ::operator delete(free_[c], std::align_val_t{kGrain});
        free_[c] = next;
      }
      count_[c] = 0;
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
      return ::operator new((c + 1) * kGrain, std::align_val_t{kGrain});
    }
    return ::operator new(bytes, std::align_val_t{kGrain});
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

  // The calling thread's pool, or null once it has been destroyed (the
  // thread is exiting).
  static FramePool* mine() {
    if (gone()) return nullptr;
    struct Owner {
      FramePool pool;
      ~Owner() { gone() = true; }  // runs before `pool` is destroyed
    };
    thread_local Owner owner;
    return &owner.pool;
  }

 private:
  struct Free {
    Free* next;
  };
  // Sizes 1..64 are class 0, 65..128 class 1, ...; a frame is never empty.
  static size_t class_of(size_t bytes) { return bytes == 0 ? 0 : (bytes - 1) / kGrain; }
  // Whether the thread's pool has been destroyed. Trivially destructible,
  // so it outlives the pool.
  static bool& gone() {
    thread_local bool flag = false;
    return flag;
  }

  Free* free_[kClasses] = {};
  uint32_t count_[kClasses] = {};
};

inline void* allocate_frame(size_t bytes) {
#if LW_FRAME_POOL
  if (FramePool* pool = FramePool::mine()) return pool->allocate(bytes);
  return ::operator new(bytes, std::align_val_t{FramePool::kGrain});
#else
  return ::operator new(bytes);
#endif
}

inline void free_frame(void* p, size_t bytes) noexcept {
#if LW_FRAME_POOL
  if (FramePool* pool = FramePool::mine()) return pool->release(p, bytes);
  ::operator delete(p, std::align_val_t{FramePool::kGrain});
#else
  (void)bytes;
  ::operator delete(p);
#endif
}

}  // namespace lw::detail
