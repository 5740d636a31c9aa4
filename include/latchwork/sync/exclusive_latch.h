// Pessimistic latches on one remote 8-byte word (Jasny et al. §3.1, Fig. 3).
#pragma once

#include "latchwork/base/remote_ptr.h"
#include "latchwork/sync/retry.h"

namespace lw {

// Exclusive latch: CAS 0 -> 1 to latch, CAS 1 -> 0 to unlatch.
//
//   bit 63                                        1   0
//      +-------------------------------------------+---+
//      |                 zero                      | L |   L = latched
//      +-------------------------------------------+---+
class ExclusiveLatch {
 public:
  struct Word {
    uint64_t bits;
  };
  static_assert(sizeof(Word) == 8 && alignof(Word) == 8, "an RDMA atomic acts on 8 aligned bytes");
  static constexpr uint64_t kFree = 0;
  static constexpr uint64_t kLatched = 1;

  explicit ExclusiveLatch(RemotePtr<Word> word) : word_(word.addr()) {}

  Task<Status> lock(Worker& w, const RetryPolicy& policy = {}) const;
  Task<Status> unlock(Worker& w) const;
  RemoteAddr addr() const { return word_; }

 private:
  RemoteAddr word_;
};

// Reader/writer latch: readers FAA the count, writers CAS the exclusive bit.
//
//   bit 63                                        1   0
//      +-------------------------------------------+---+
//      |             reader count                  | X |   X = exclusive
//      +-------------------------------------------+---+
//
// A reader adds 2 (FAA); if X was set it subtracts 2 again and retries. A
// writer CASes 0 -> 1 (no readers, not latched) and unlatches by FAA(-1): a
// CAS 1 -> 0 would fail whenever a reader's transient increment is in place.
class RwLatch {
 public:
  struct Word {
    uint64_t bits;
  };
  static_assert(sizeof(Word) == 8 && alignof(Word) == 8, "an RDMA atomic acts on 8 aligned bytes");
  static constexpr uint64_t kExclusive = 1;
  static constexpr uint64_t kReader = 2;

  explicit RwLatch(RemotePtr<Word> word) : word_(word.addr()) {}

  Task<Status> lock_shared(Worker& w, const RetryPolicy& policy = {}) const;
  Task<Status> unlock_shared(Worker& w) const;
  Task<Status> lock(Worker& w, const RetryPolicy& policy = {}) const;
  Task<Status> unlock(Worker& w) const;
  RemoteAddr addr() const { return word_; }

 private:
  RemoteAddr word_;
};

}  // namespace lw
