// A per-key history checker for key-value registers whose writes store unique
// values: records operations and latch holds (from any backend, any thread)
// and reports reads no linearizable execution could return, and exclusive
// latch holds that overlapped.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/base/layout.h"
#include "latchwork/check/models.h"
#include "latchwork/verbs/worker.h"

namespace lw {

// One operation on a key-value register whose every write stores a unique value.
struct HistoryOp {
  enum class Kind : uint8_t { kRead, kWrite };
  Kind kind = Kind::kRead;
  uint64_t key = 0;
  Nanos start = 0, end = 0;  // invocation and response (virtual ns on sim, wall ns elsewhere)
  uint64_t value = 0;        // value written, or value read when `whole`
  bool whole = true;         // a read whose payload carried one value (false: torn, mixed values)
  // Completed. Operations that gave up are not checked, but a write that gave
  // up may or may not have taken effect (it may explain a read's value).
  bool ok = true;
  Placement who;
};

// An interval in which a worker held a key's exclusive latch.
struct LatchHold {
  uint64_t key = 0;
  Nanos acquired = 0, released = 0;
  Placement who;
};

struct HistoryViolation {
  enum class Kind : uint8_t { kTornRead, kStaleRead, kFutureRead, kUnknownValue, kOverlappingHolds };
  Kind kind = Kind::kTornRead;
  uint64_t key = 0;
  Nanos start = 0, end = 0;  // the offending read's (or the later hold's) interval
  Placement who;
  std::string detail;        // a sentence naming the operations involved
};

const char* to_string(HistoryViolation::Kind k);

// "compute 1/0/2" or "memory 0/1/0" (node/thread/coroutine).
std::string describe(const Placement& p);
bool same_worker(const Placement& a, const Placement& b);

// Thread-safe recording (the threads/verbs backends record from several OS threads).
// As a HistoryModel ("register") it checks against set_initial()'s value.
class History final : public HistoryModel {
 public:
  void record(const HistoryOp& op);
  void hold(const LatchHold& h);
  size_t size() const override;  // operations recorded (holds not counted)
  size_t holds() const;
  void clear();

  // Per-key linearizability of a register with unique writes, plus mutual
  // exclusion of holds. `initial` is the value every key holds before any
  // write. Violations come sorted by key, then by time.
  //
  // A read of v is stale when some write w2 certainly took effect after v's
  // write and before the read began: w2 began after v's write ended, and w2
  // either completed, or some other read returned its value, before the read
  // began. O(n log n) per key.
  std::vector<HistoryViolation> check(uint64_t initial = 0) const;
  // check(0) would be ambiguous with the HistoryModel overload below (0 is a
  // null pointer constant too); this exact match keeps such calls working.
  template <std::integral T>
  std::vector<HistoryViolation> check(T initial) const {
    return check(static_cast<uint64_t>(initial));
  }

  // HistoryModel: the violations of check(initial()), kinds spelt with
  // hyphens ("stale-read", "overlapping-holds").
  const char* name() const override { return "register"; }
  void check(std::vector<ModelViolation>* out) const override;
  void set_initial(uint64_t v) { initial_ = v; }
  uint64_t initial() const { return initial_; }

 private:
  uint64_t initial_ = 0;
  mutable std::mutex mu_;
  std::vector<HistoryOp> ops_;
  std::vector<LatchHold> holds_;
};

}  // namespace lw
