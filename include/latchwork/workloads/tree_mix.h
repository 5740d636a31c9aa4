// The B+Tree workloads (Sherman Table 3, SMART §6.2.1): the operation mixes,
// and the key set they draw from, loaded keys spread over [1, 2^63). Run by
// run_sherman (bench/sherman_run.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "latchwork/base/random.h"
#include "latchwork/base/zipf.h"

namespace lw {

// Sherman Table 3 and SMART §6.2.1's mixes. Inserts pick a loaded key with
// probability 2/3 (an update, §5.1.3) and a fresh key otherwise.
enum class TreeMix : uint8_t {
  kWriteOnly,       // 100% insert
  kWriteIntensive,  // 50% insert, 50% lookup
  kReadIntensive,   // 5% insert, 95% lookup
  kRangeOnly,       // 100% range
  kRangeWrite,      // half the coroutines insert, half run ranges
  kWriteHeavy,      // SMART: 50% update, 50% lookup (updates of loaded keys)
  kReadHeavy,       // SMART: 5% update, 95% lookup
  kReadOnly,        // SMART: 100% lookup
  // Not a paper's: every operation (30% lookup, 30% insert, 15% remove, 25%
  // range), for checks (make test-verbs). Lookups may miss removed keys.
  kAllOps,
};
const char* to_string(TreeMix m);
// "write-only" | "write-intensive" | "read-intensive" | "range-only" |
// "range-write" | "write-heavy" | "read-heavy" | "read-only" | "all-ops".
bool parse_tree_mix(const std::string& s, TreeMix* out);

namespace tree_workload {

// Loaded keys are even, fresh keys odd: a fresh key is
// (random & ~kFreshWriterMask) | (writer << 1) | 1, so it is never a loaded
// key and its writer (< 2^16) can be read back from it.
inline constexpr uint64_t kFreshWriterMask = (uint64_t{1} << 17) - 1;
inline bool is_fresh(uint64_t key) { return key & 1; }
inline uint64_t fresh_writer(uint64_t key) { return (key & kFreshWriterMask) >> 1; }
inline uint64_t fresh_key(uint64_t random, uint64_t writer) {
  return ((random >> 1) & ~kFreshWriterMask) | (writer << 1) | 1;
}
// The value a loaded key holds after the bulk load: below 2^32, so it never
// equals a value a coroutine writes ((writer + 1) << 32 | seq).
inline uint64_t initial_value(uint64_t key) { return key & 0xffffffffull; }
inline uint64_t tagged_value(uint64_t writer, uint64_t seq) { return ((writer + 1) << 32) | (seq & 0xffffffffull); }
inline uint64_t value_writer_plus_one(uint64_t v) { return v >> 32; }

class KeySet {
 public:
  // `keys` distinct even keys in [2, 2^63), sorted, drawn from `seed`;
  // popularity rank r is the loaded index (mul r + add) mod keys (a seeded
  // bijection, so hot keys are not neighbours).
  KeySet(uint64_t keys, double zipf, uint64_t seed);
  // The same key set, shared: a figure's points load the same keys, and
  // drawing and sorting them was a third of a Sherman point's wall time.
  // Kept in the process's set-up store (bounded by bytes).
  static std::shared_ptr<const KeySet> shared(uint64_t keys, double zipf, uint64_t seed);
  uint64_t size() const { return sorted_.size(); }
  const std::vector<uint64_t>& sorted() const { return sorted_; }
  uint64_t key(uint64_t index) const { return sorted_[index]; }
  // A loaded index drawn by popularity (Zipf or uniform).
  uint64_t draw_index(Rng& rng) const;
  uint64_t index_of_rank(uint64_t rank) const;

 private:
  std::vector<uint64_t> sorted_;
  double zipf_theta_ = 0;
  uint64_t seed_ = 0;
  std::shared_ptr<const ZipfKeys> zipf_;
  uint64_t mul_ = 1, add_ = 0;
};

enum class OpType : uint8_t { kLookup, kInsert, kRange, kRemove };

// What a coroutine does next, by the mix; `inserter` is for range-write
// (half the coroutines insert, the other half run ranges).
OpType draw_op(TreeMix m, Rng& rng, bool inserter);
// Whether the mix's inserts may add fresh keys (Table 3's) or only update
// loaded keys (SMART's mixes).
bool mix_inserts_fresh(TreeMix m);
// Whether the mix removes keys (then a lookup may rightly miss a loaded key).
inline bool mix_removes(TreeMix m) { return m == TreeMix::kAllOps; }
// The model's mark of a key its writer removed (values written are below 2^48).
inline constexpr uint64_t kRemovedMark = ~uint64_t{0};

}  // namespace tree_workload
}  // namespace lw
