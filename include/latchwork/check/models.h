// History models beyond registers (history.h): counters, maps and sets with
// absent keys and deletes, shared and exclusive holds. Each records
// operations thread-safely (the threads backend records from several OS
// threads) and checks them after the run.
//
// Operations are intervals [start, end] of virtual (sim) or wall ns. An
// operation took effect at one instant inside its interval; one that gave up
// (ok = false) may or may not have taken effect, at an instant after its
// start. The checks are sound: a reported violation is one no such choice of
// instants explains (given the model's values), so correct histories,
// however concurrent, pass. They are not complete (full linearizability
// checking is NP-hard); they catch the classic bugs in O(n log n) per key:
// lost updates, reads of overwritten or erased values, reads that miss
// completed writes, overlapping exclusive holds. Operations that touch one
// instant at their ends ([0, 10] and [10, 20]) count as possibly concurrent.
//
// Every model implements HistoryModel, so a new one plugs into the check
// driver without changing it: SeedRun::add_model(std::make_unique<MyModel>()).
// A serializability model for transactions would record each transaction's
// interval, read set (key -> value seen) and write set (key -> unique value),
// build the direct serialization graph in check() (write-read edges from the
// unique values, write-write and read-write edges from a per-key version order
// fixed by the writes' intervals, real-time edges for strict serializability),
// and report each cycle it finds as a ModelViolation naming the transactions
// (describe(Placement), intervals, values).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "latchwork/base/layout.h"
#include "latchwork/verbs/worker.h"

namespace lw {

struct ModelViolation {
  std::string kind;    // "lost-update", "phantom-read", "overlapping-holds", ...
  uint64_t key = 0;
  Nanos start = 0, end = 0;  // the offending operation's interval
  Placement who;
  std::string detail;  // a sentence naming the operations involved
  // Of the final state (a final value, the final contents), not of one
  // operation: `who` is no one's, so the driver names no worker's causes.
  bool final_state = false;
};

class HistoryModel {
 public:
  virtual ~HistoryModel() = default;
  virtual const char* name() const = 0;  // "counter", "map", ...
  virtual size_t size() const = 0;       // operations recorded
  // Appends every violation, sorted by key, then time.
  virtual void check(std::vector<ModelViolation>* out) const = 0;
};

// Counters changed only by adding (FAA, or READ + WRITE in a broken program)
// and read; `final` values read after the run. Every counter starts at 0.
class CounterModel final : public HistoryModel {
 public:
  // An increment by `amount` (> 0) of counter `key`. `ok`: it completed; an
  // increment that gave up may or may not have taken effect.
  void add(uint64_t key, uint64_t amount, Nanos start, Nanos end, const Placement& who, bool ok = true);
  // A read of counter `key` that returned `value`.
  void read(uint64_t key, uint64_t value, Nanos start, Nanos end, const Placement& who);
  // The value after every worker ended (host-side read).
  void final_value(uint64_t key, uint64_t value);

  const char* name() const override { return "counter"; }
  size_t size() const override;
  // A read must lie between the sum of increments completed before it began
  // and the sum of increments begun before it ended; a final value must be
  // the sum of completed increments plus some of the uncertain ones
  // ("lost-update" when below, "phantom-update" when above). Reads below the
  // bound are "stale-read", above it "phantom-read"; a read below one that
  // ended before it began is "non-monotonic-read"; a final value below a
  // read's is "lost-update". Sums saturate at 2^64 - 1 (sound: a saturated
  // bound only loosens the lower check).
  void check(std::vector<ModelViolation>* out) const override;

 private:
  struct Op { uint64_t key, amount; Nanos start, end; Placement who; bool ok, is_read; };
  mutable std::mutex mu_;
  std::vector<Op> ops_;
  std::vector<std::pair<uint64_t, uint64_t>> finals_;
};

// A map (or a set: value 1) whose keys start absent. Every put stores a
// value unique to that put; erase makes the key absent.
class MapModel final : public HistoryModel {
 public:
  void put(uint64_t key, uint64_t value, Nanos start, Nanos end, const Placement& who, bool ok = true);
  void erase(uint64_t key, Nanos start, Nanos end, const Placement& who, bool ok = true);
  // A lookup: `value` empty means "absent".
  void get(uint64_t key, std::optional<uint64_t> value, Nanos start, Nanos end, const Placement& who);
  // The map's contents after the run (e.g. a full scan): every key present.
  void final_contents(std::vector<std::pair<uint64_t, uint64_t>> contents);

  const char* name() const override { return "map"; }
  size_t size() const override;
  // Per key, linearizability of a register with unique puts and an absent
  // value written by erases: a get returning a value never put on its key
  // ("unknown-value"), one put after it ended ("future-read"), a value
  // certainly overwritten by a later put before it began ("stale-read") or
  // erased ("present-when-absent"), "absent" when a put certainly took
  // effect before it began and no erase could have come between
  // ("absent-when-present"), or final contents that no order of the puts and
  // erases leaves ("lost-update", "lost-erase", "unknown-value"). A put's
  // value must be unique per key (checked: LW_CHECK).
  void check(std::vector<ModelViolation>* out) const override;

 private:
  struct Op { enum Kind : uint8_t { kPut, kErase, kGet } kind; uint64_t key; std::optional<uint64_t> value; Nanos start, end; Placement who; bool ok; };
  mutable std::mutex mu_;
  std::vector<Op> ops_;
  bool have_final_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> final_;
};

// Latch or lock holds: exclusive holds overlap nothing; shared holds overlap
// only shared holds. Holds of one worker never conflict with each other
// (re-entrant records, upgrades), as in History. Kinds: "overlapping-holds"
// (two exclusive), "shared-overlaps-exclusive".
// Record certainly-held intervals only: `acquired` after the acquiring
// atomic returned success, `released` before the release is posted (a
// release batched with the critical section's READ leaves none covering the
// READ). docs/checking.md, "Holds must be certainly held".
class HoldModel final : public HistoryModel {
 public:
  void exclusive(uint64_t key, Nanos acquired, Nanos released, const Placement& who);
  void shared(uint64_t key, Nanos acquired, Nanos released, const Placement& who);

  const char* name() const override { return "holds"; }
  size_t size() const override;
  void check(std::vector<ModelViolation>* out) const override;

 private:
  struct Hold { uint64_t key; Nanos acquired, released; Placement who; bool exclusive; };
  mutable std::mutex mu_;
  std::vector<Hold> holds_;
};

}  // namespace lw
