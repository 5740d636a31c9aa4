// The simulator's flat maps and caches against the standard containers they
// replaced.
#include <gtest/gtest.h>

#include <list>
#include <unordered_map>

#include "flat_map.h"
#include "latchwork/base/random.h"
#include "nic_model.h"

namespace lw::sim {
namespace {

TEST(FlatMap, FindsWhatWasInsertedUntilErased) {
  FlatMap<int> m;
  EXPECT_EQ(m.find(8), nullptr);
  EXPECT_TRUE(m.emplace(8, 1).second);
  EXPECT_FALSE(m.emplace(8, 2).second);  // present: unchanged
  EXPECT_EQ(*m.find(8), 1);
  m[16] = 3;
  EXPECT_EQ(m.size(), 2u);
  EXPECT_TRUE(m.erase(8));
  EXPECT_FALSE(m.erase(8));
  EXPECT_EQ(m.find(8), nullptr);
  EXPECT_EQ(*m.find(16), 3);
}

// Word offsets that collide in the table (64 or 4,096 keys, 8 or 4,096
// bytes apart), churned at random: `step(rng, m, ref, key)` does the same to
// the map and to the reference; after each step their sizes agree, and at the
// end every reference entry is found.
template <typename Step>
void churn(uint64_t seeds, Step step) {
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    Rng rng(seed);
    FlatMap<uint64_t> m;
    std::unordered_map<uint64_t, uint64_t> ref;
    const uint64_t keys = seed % 2 ? 64 : 4096;
    for (int i = 0; i < 50000; ++i) {
      const uint64_t k = rng.below(keys) * (seed % 3 == 0 ? 4096 : 8);
      step(rng, m, ref, k);
      if (::testing::Test::HasFatalFailure()) return;
      ASSERT_EQ(m.size(), ref.size());
    }
    for (const auto& [k, v] : ref) ASSERT_EQ(*m.find(k), v);
  }
}
using Ref = std::unordered_map<uint64_t, uint64_t>;

// Backward-shift deletion must keep every live key findable.
TEST(FlatMap, MatchesAnUnorderedMapUnderChurn) {
  churn(10, [](Rng& rng, FlatMap<uint64_t>& m, Ref& ref, uint64_t k) {
    switch (rng.below(3)) {
      case 0: {
        const uint64_t v = rng.next();
        ASSERT_EQ(m.emplace(k, v).second, ref.emplace(k, v).second);
        break;
      }
      case 1:
        ASSERT_EQ(m.erase(k), ref.erase(k) == 1);
        break;
      default: {
        const uint64_t* v = m.find(k);
        auto it = ref.find(k);
        ASSERT_EQ(v != nullptr, it != ref.end());
        if (v) {
          ASSERT_EQ(*v, it->second);
        }
      }
    }
  });
}

// The one-probe-run calls the atomic unit uses: insert_absent after a failed
// find, erase_found on a find's pointer.
TEST(FlatMap, InsertAbsentAndEraseFoundMatchAnUnorderedMap) {
  churn(6, [](Rng& rng, FlatMap<uint64_t>& m, Ref& ref, uint64_t k) {
    uint64_t* found = m.find(k);
    ASSERT_EQ(found != nullptr, ref.count(k) == 1);
    if (found == nullptr) {
      const uint64_t v = rng.next();
      ASSERT_EQ(*m.insert_absent(k, v), v);
      ref.emplace(k, v);
    } else if (rng.below(2) == 0) {
      ASSERT_EQ(*found, ref.at(k));
      m.erase_found(found);
      ref.erase(k);
      ASSERT_EQ(m.find(k), nullptr);
    }
  });
}

TEST(FlatMap, InsertAbsentOfAPresentKeyIsAnInvariantViolation) {
  FlatMap<int> m;
  m.emplace(8, 1);
  ThrowOnInvariant throwing;
  EXPECT_THROW(m.insert_absent(8, 2), InvariantViolation);
}

// erase_if drops exactly the entries it selects, and the rest stay findable
// (their probe runs are rebuilt).
TEST(FlatMap, EraseIfMatchesAnUnorderedMap) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Rng rng(seed);
    FlatMap<uint64_t> m;
    std::unordered_map<uint64_t, uint64_t> ref;
    for (int round = 0; round < 20; ++round) {
      for (int i = 0; i < 500; ++i) {
        const uint64_t k = rng.below(2048) * 8, v = rng.below(100);
        m.emplace(k, v);
        ref.emplace(k, v);
      }
      const uint64_t cut = rng.below(100);
      m.erase_if([cut](uint64_t v) { return v < cut; });
      std::erase_if(ref, [cut](const auto& kv) { return kv.second < cut; });
      ASSERT_EQ(m.size(), ref.size());
      for (const auto& [k, v] : ref) {
        const uint64_t* found = m.find(k);
        ASSERT_NE(found, nullptr);
        ASSERT_EQ(*found, v);
      }
      for (uint64_t k = 0; k < 2048 * 8; k += 8) ASSERT_EQ(m.find(k) != nullptr, ref.count(k) == 1);
    }
  }
}

// The LRU cache as it was first written (std::list + unordered_map).
class ListLru {
 public:
  explicit ListLru(size_t capacity) : capacity_(capacity) {}
  bool touch(uint64_t id) {
    auto it = where_.find(id);
    if (it != where_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return true;
    }
    order_.push_front(id);
    where_[id] = order_.begin();
    if (order_.size() > capacity_) {
      where_.erase(order_.back());
      order_.pop_back();
    }
    return false;
  }

 private:
  size_t capacity_;
  std::list<uint64_t> order_;
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> where_;
};

TEST(LruCache, EvictsTheLeastRecentlyUsed) {
  LruCache c(2);
  EXPECT_FALSE(c.touch(1));
  EXPECT_FALSE(c.touch(2));
  EXPECT_TRUE(c.touch(1));   // 2 is now the oldest
  EXPECT_FALSE(c.touch(3));  // evicts 2
  EXPECT_TRUE(c.touch(1));
  EXPECT_FALSE(c.touch(2));
  EXPECT_EQ(c.misses(), 4u);
  EXPECT_EQ(c.size(), 2u);
}

TEST(LruCache, MatchesTheListCacheOnRandomTraces) {
  // The largest capacity a NIC profile allows: its entries grow with the ids seen.
  for (size_t capacity : {size_t{0}, size_t{1}, size_t{3}, size_t{100}, size_t{1000}, size_t{1} << 24}) {
    Rng rng(capacity + 1);
    LruCache c(capacity);
    ListLru ref(capacity);
    for (int step = 0; step < 50000; ++step) {
      // Skewed ids, some far apart (switch QPs are numbered from 2^40).
      const uint64_t id = rng.below(4) == 0 ? (uint64_t{1} << 40) + rng.below(8) : rng.below(2 * capacity + 8);
      ASSERT_EQ(c.touch(id), ref.touch(id)) << "capacity " << capacity << " step " << step;
    }
  }
}

TEST(SlotTable, KeepsOneCalendarPerSlot) {
  SlotTable t(24);
  EXPECT_EQ(t[5].book(0, 10, 0), 0u);
  EXPECT_EQ(t[5].book(0, 10, 0), 10u);
  EXPECT_EQ(t[(1u << 24) - 1].book(0, 10, 0), 0u);  // another slot, its own calendar
  EXPECT_EQ(t[5].intervals(), 1u);
}

}  // namespace
}  // namespace lw::sim
