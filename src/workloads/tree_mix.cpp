#include "latchwork/workloads/tree_mix.h"

#include <algorithm>
#include <mutex>
#include <numeric>

#include "base/setup_store.h"
#include "latchwork/base/assert.h"

namespace lw {

const char* to_string(TreeMix m) {
  switch (m) {
    case TreeMix::kWriteOnly: return "write-only";
    case TreeMix::kWriteIntensive: return "write-intensive";
    case TreeMix::kReadIntensive: return "read-intensive";
    case TreeMix::kRangeOnly: return "range-only";
    case TreeMix::kRangeWrite: return "range-write";
    case TreeMix::kWriteHeavy: return "write-heavy";
    case TreeMix::kReadHeavy: return "read-heavy";
    case TreeMix::kReadOnly: return "read-only";
    case TreeMix::kAllOps: return "all-ops";
  }
  return "?";
}

bool parse_tree_mix(const std::string& s, TreeMix* out) {
  for (TreeMix m : {TreeMix::kWriteOnly, TreeMix::kWriteIntensive, TreeMix::kReadIntensive, TreeMix::kRangeOnly,
                    TreeMix::kRangeWrite, TreeMix::kWriteHeavy, TreeMix::kReadHeavy, TreeMix::kReadOnly, TreeMix::kAllOps}) {
    if (s == to_string(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

namespace tree_workload {

KeySet::KeySet(uint64_t keys, double zipf, uint64_t seed) : zipf_theta_(zipf), seed_(seed) {
  LW_CHECK(keys >= 1);
  uint64_t s = seed ^ 0x5348'4552'4d41'4e00ull;  // "SHERMAN"
  sorted_.reserve(keys);
  while (sorted_.size() < keys) {
    const size_t have = sorted_.size();
    for (uint64_t i = have; i < keys; ++i) {
      const uint64_t k = (splitmix64(s) >> 1) & ~uint64_t{1};
      if (k != 0) sorted_.push_back(k);
    }
    std::sort(sorted_.begin(), sorted_.end());
    sorted_.erase(std::unique(sorted_.begin(), sorted_.end()), sorted_.end());
  }
  if (zipf > 0) zipf_ = ZipfKeys::shared(keys, zipf);
  uint64_t a = splitmix64(s) % keys;
  if (a == 0) a = 1;
  while (std::gcd(a, keys) != 1) a = a + 1 < keys ? a + 1 : 1;
  mul_ = keys == 1 ? 1 : a;
  add_ = splitmix64(s) % keys;
}

std::shared_ptr<const KeySet> KeySet::shared(uint64_t keys, double zipf, uint64_t seed) {
  return SetupStore::process().get_or_make<const KeySet>(
      SetupKey("tree.key-set").add(keys).add(zipf).add(seed), SetupLifetime::kProcess,
      [&] { return std::make_shared<const KeySet>(keys, zipf, seed); },
      [](const KeySet& k) { return k.size() * sizeof(uint64_t); });
}

uint64_t KeySet::index_of_rank(uint64_t rank) const {
  const unsigned __int128 x = static_cast<unsigned __int128>(mul_) * rank + add_;
  return static_cast<uint64_t>(x % sorted_.size());
}

uint64_t KeySet::draw_index(Rng& rng) const {
  const uint64_t rank = zipf_ ? zipf_->sample(rng) : rng.below(sorted_.size());
  return index_of_rank(rank);
}

OpType draw_op(TreeMix m, Rng& rng, bool inserter) {
  const uint64_t p = rng.below(100);
  switch (m) {
    case TreeMix::kWriteOnly: return OpType::kInsert;
    case TreeMix::kWriteIntensive:
    case TreeMix::kWriteHeavy: return p < 50 ? OpType::kInsert : OpType::kLookup;
    case TreeMix::kReadIntensive:
    case TreeMix::kReadHeavy: return p < 5 ? OpType::kInsert : OpType::kLookup;
    case TreeMix::kRangeOnly: return OpType::kRange;
    case TreeMix::kRangeWrite: return inserter ? OpType::kInsert : OpType::kRange;
    case TreeMix::kReadOnly: return OpType::kLookup;
    case TreeMix::kAllOps:
      return p < 30 ? OpType::kLookup : p < 60 ? OpType::kInsert : p < 75 ? OpType::kRemove : OpType::kRange;
  }
  return OpType::kLookup;
}

bool mix_inserts_fresh(TreeMix m) {
  return m == TreeMix::kWriteOnly || m == TreeMix::kWriteIntensive || m == TreeMix::kReadIntensive ||
         m == TreeMix::kRangeWrite || m == TreeMix::kAllOps;
}

}  // namespace tree_workload
}  // namespace lw
