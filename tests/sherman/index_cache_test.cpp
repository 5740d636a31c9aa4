// Sherman's index cache (§4.2.3): level-1 routing by fences, the byte bound
// under power-of-two-choices eviction (which keeps recently used entries),
// invalidation, range covering in key order, the top levels, determinism.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "index_cache.h"

namespace lw::sherman {
namespace {

// A level-1 node over [low, high) with `n` children of equal width, child i
// at address (node 1, base + i * 64).
CachedNode level1(uint64_t low, uint64_t high, uint32_t n, uint64_t addr, uint64_t base) {
  CachedNode c;
  c.addr = RemoteAddr(0, addr);
  c.level = 1;
  c.low = low;
  c.high = high;
  for (uint32_t i = 0; i < n; ++i) {
    if (i > 0) c.separators.push_back(low + (high - low) * i / n);
    c.children.push_back(RemoteAddr(1, base + i * 64));
  }
  return c;
}

TEST(CachedNode, ChildForFollowsTheSeparators) {
  CachedNode c = level1(100, 200, 4, 4096, 8192);  // separators 125, 150, 175
  ASSERT_EQ(c.separators, (std::vector<uint64_t>{125, 150, 175}));
  EXPECT_EQ(c.child_for(100), RemoteAddr(1, 8192));
  EXPECT_EQ(c.child_for(124), RemoteAddr(1, 8192));
  EXPECT_EQ(c.child_for(125), RemoteAddr(1, 8192 + 64));  // a separator starts its child
  EXPECT_EQ(c.child_for(174), RemoteAddr(1, 8192 + 128));
  EXPECT_EQ(c.child_for(199), RemoteAddr(1, 8192 + 192));
  EXPECT_EQ(c.bytes(), 64u + 16 * 4);
}

TEST(IndexCache, RoutesByFencesAndCountsHitsAndMisses) {
  IndexCache cache(1 << 20, 1);
  cache.put(level1(0, 100, 4, 4096, 1 << 20));
  cache.put(level1(200, 300, 2, 4096 * 2, 2 << 20));
  cache.put(level1(100, 200, 2, 4096 * 3, 3 << 20));
  auto r = cache.find_leaf(150);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->level1, RemoteAddr(0, 4096 * 3));
  EXPECT_EQ(r->leaf, RemoteAddr(1, (3 << 20) + 64));
  r = cache.find_leaf(0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->leaf, RemoteAddr(1, 1 << 20));
  r = cache.find_leaf(299);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->level1, RemoteAddr(0, 4096 * 2));
  EXPECT_FALSE(cache.find_leaf(300));  // past every high fence
  IndexCache gap(1 << 20, 1);
  gap.put(level1(10, 20, 1, 4096, 8192));
  EXPECT_FALSE(gap.find_leaf(5));   // below every low
  EXPECT_FALSE(gap.find_leaf(20));  // in no entry
  EXPECT_TRUE(gap.find_leaf(19));
  const IndexCacheStats s = cache.stats();
  EXPECT_EQ(s.hits, 3u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.entries, 3u);
  EXPECT_EQ(s.bytes, (64u + 64) + (64u + 32) + (64u + 32));
}

TEST(IndexCache, PutReplacesTheSameNodeAndAStaleCopyOfItsRange) {
  IndexCache cache(1 << 20, 1);
  cache.put(level1(0, 100, 4, 4096, 8192));
  cache.put(level1(0, 50, 2, 4096, 8192));  // the node split: its high moved down
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(cache.stats().bytes, 64u + 32);
  EXPECT_FALSE(cache.find_leaf(60));
  cache.put(level1(0, 50, 2, 4096 * 9, 8192));  // another node with the same low: the old copy is stale
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(cache.find_leaf(10)->level1, RemoteAddr(0, 4096 * 9));
}

TEST(IndexCache, InvalidateDropsOnlyThatEntry) {
  IndexCache cache(1 << 20, 1);
  for (uint64_t i = 0; i < 10; ++i) cache.put(level1(i * 100, (i + 1) * 100, 2, 4096 * (i + 1), 1 << 20));
  cache.invalidate(RemoteAddr(0, 4096 * 4));  // [300, 400)
  cache.invalidate(RemoteAddr(0, 4096 * 99));  // absent: no-op
  EXPECT_FALSE(cache.find_leaf(350));
  for (uint64_t k : {0, 299, 400, 999}) EXPECT_TRUE(cache.find_leaf(k)) << k;
  const IndexCacheStats s = cache.stats();
  EXPECT_EQ(s.invalidations, 1u);
  EXPECT_EQ(s.entries, 9u);
  EXPECT_EQ(s.bytes, 9u * (64 + 32));
}

TEST(IndexCache, CoveringReturnsOverlappingEntriesInKeyOrder) {
  IndexCache cache(1 << 20, 1);
  // Put out of order, with a gap at [500, 600).
  for (uint64_t i : {7, 2, 9, 0, 4, 1, 3, 6, 8}) cache.put(level1(i * 100, (i + 1) * 100, 2, 4096 * (i + 1), 1 << 20));
  std::vector<CachedNode> c = cache.covering(150, 720);
  std::vector<uint64_t> lows;
  for (const CachedNode& n : c) lows.push_back(n.low);
  EXPECT_EQ(lows, (std::vector<uint64_t>{100, 200, 300, 400, 600, 700}));
  EXPECT_EQ(cache.covering(200, 300).size(), 1u);  // [from, to) is half-open
  EXPECT_EQ(cache.covering(520, 580).size(), 0u);
  EXPECT_EQ(cache.covering(5000, 6000).size(), 0u);
  EXPECT_EQ(cache.covering(300, 300).size(), 0u);
  EXPECT_EQ(cache.covering(0, ~uint64_t{0}).size(), 9u);
}

TEST(IndexCache, EvictionKeepsBytesWithinCapacityAndPrefersOldEntries) {
  const uint64_t entry = 64 + 16 * 8;
  const uint64_t capacity = 100 * entry;
  IndexCache cache(capacity, 42);
  auto node = [](uint64_t i) { return level1(i * 1000, (i + 1) * 1000, 8, 4096 * (i + 1), 1 << 20); };
  const uint64_t hot = 5;  // entries 0..4 are looked up before every put
  uint64_t hot_misses = 0, puts = 0;
  for (uint64_t i = 0; i < 2000; ++i) {
    for (uint64_t h = 0; h < hot && h < i; ++h) {
      if (cache.find_leaf(h * 1000 + 1)) continue;
      ++hot_misses;  // as the tree does: read the node again and cache it
      cache.put(node(h));
      ++puts;
    }
    cache.put(node(i));
    ++puts;
    const IndexCacheStats s = cache.stats();
    ASSERT_LE(s.bytes, capacity);
    ASSERT_EQ(s.bytes, s.entries * entry);
  }
  const IndexCacheStats s = cache.stats();
  EXPECT_EQ(s.entries, 100u);
  EXPECT_EQ(s.evictions, puts - 100);
  // A hot entry goes only when both choices are hot (about 0.2% of the
  // evictions); uniform random eviction would drop one in 20 (~95 misses).
  EXPECT_LT(hot_misses, 30u);
  // Every surviving entry still routes.
  uint64_t found = 0;
  for (uint64_t i = 0; i < 2000; ++i) found += cache.find_leaf(i * 1000 + 999).has_value();
  EXPECT_EQ(found, 100u);
  // A node larger than the whole budget is not kept.
  IndexCache tiny(100, 1);
  tiny.put(level1(0, 10, 8, 4096, 8192));
  EXPECT_EQ(tiny.stats().entries, 0u);
  EXPECT_EQ(tiny.stats().bytes, 0u);
}

// The surviving level-1 nodes after a fixed sequence of puts and lookups.
std::set<uint64_t> survivors(uint64_t seed) {
  IndexCache cache(20 * (64 + 32), seed);
  for (uint64_t i = 0; i < 300; ++i) {
    cache.put(level1(i * 10, i * 10 + 10, 2, 4096 * (i + 1), 1 << 20));
    (void)cache.find_leaf((i * 7919) % (i * 10 + 10));
  }
  std::set<uint64_t> out;
  for (const CachedNode& n : cache.covering(0, ~uint64_t{0})) out.insert(n.addr.raw());
  EXPECT_EQ(out.size(), 20u);
  return out;
}

TEST(IndexCache, EvictionIsDeterministicForASeed) {
  EXPECT_EQ(survivors(7), survivors(7));
  bool differ = false;
  for (uint64_t s = 8; s < 16 && !differ; ++s) differ = survivors(s) != survivors(7);
  EXPECT_TRUE(differ) << "the seed drives the choices";
}

TEST(IndexCache, TopForPicksTheDeepestCoveringNode) {
  IndexCache cache(1 << 20, 1);
  EXPECT_FALSE(cache.top_for(5));
  CachedNode root = level1(0, ~uint64_t{0}, 2, 4096, 8192);
  root.level = 3;
  root.separators = {1000};
  CachedNode left = level1(0, 1000, 2, 4096 * 2, 8192);
  left.level = 2;
  CachedNode right = level1(1000, ~uint64_t{0}, 2, 4096 * 3, 8192);
  right.level = 2;
  cache.set_top({root, left, right});
  EXPECT_EQ(cache.top_for(5)->addr, left.addr);
  EXPECT_EQ(cache.top_for(1000)->addr, right.addr);
  cache.set_top({root, left});  // the right half not (yet) read: the root routes
  EXPECT_EQ(cache.top_for(5000)->addr, root.addr);
  cache.clear_top();
  EXPECT_FALSE(cache.top_for(5));
}

}  // namespace
}  // namespace lw::sherman
