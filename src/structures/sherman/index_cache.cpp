// Sherman's index cache (index_cache.h): the always-cached top levels and
// the level-1 entries bounded by bytes, evicted by power of two choices.
//
// Level-1 entries have distinct low keys: a node's low fence never changes
// (a split moves its high down and gives the upper half to a new node), so
// a second entry with the same low is a stale copy and put() replaces it.
// That keeps by_low_ a strictly sorted index for the binary searches.
#include "index_cache.h"

#include <algorithm>
#include <string>

#include "latchwork/base/assert.h"

namespace lw::sherman {

RemoteAddr CachedNode::child_for(uint64_t key) const {
  LW_CHECK_MSG(children.size() == separators.size() + 1,
               "cached node " + addr.to_string() + " has " + std::to_string(children.size()) + " children for " +
                   std::to_string(separators.size()) + " separators");
  // The number of separators <= key is the child's index.
  const auto it = std::upper_bound(separators.begin(), separators.end(), key);
  return children[static_cast<size_t>(it - separators.begin())];
}

IndexCache::IndexCache(uint64_t capacity_bytes, uint64_t seed) : capacity_bytes_(capacity_bytes), rng_(seed) {}

void IndexCache::set_top(std::vector<CachedNode> top) {
  for (const CachedNode& n : top) LW_CHECK_MSG(n.level >= 1 && n.low < n.high, "a bad top node " + n.addr.to_string());
  std::lock_guard<std::mutex> g(mu_);
  top_ = std::move(top);
}

std::optional<CachedNode> IndexCache::top_for(uint64_t key) const {
  std::lock_guard<std::mutex> g(mu_);
  const CachedNode* best = nullptr;
  for (const CachedNode& n : top_)
    if (n.low <= key && key < n.high && (best == nullptr || n.level < best->level)) best = &n;
  if (best == nullptr) return std::nullopt;
  return *best;
}

void IndexCache::clear_top() {
  std::lock_guard<std::mutex> g(mu_);
  top_.clear();
}

int64_t IndexCache::floor_locked(uint64_t key) const {
  const auto it = std::upper_bound(by_low_.begin(), by_low_.end(), key,
                                   [](uint64_t k, const std::pair<uint64_t, uint32_t>& e) { return k < e.first; });
  return static_cast<int64_t>(it - by_low_.begin()) - 1;
}

void IndexCache::put(const CachedNode& n) {
  LW_CHECK_MSG(n.level >= 1 && n.low < n.high && n.children.size() == n.separators.size() + 1,
               "a bad level-1 node " + n.addr.to_string());
  std::lock_guard<std::mutex> g(mu_);
  // Replace the entry of the same node and a stale one with the same low.
  if (auto it = by_addr_.find(n.addr.raw()); it != by_addr_.end()) remove_locked(it->second);
  if (const int64_t f = floor_locked(n.low); f >= 0 && by_low_[static_cast<size_t>(f)].first == n.low)
    remove_locked(by_low_[static_cast<size_t>(f)].second);
  const uint32_t i = static_cast<uint32_t>(entries_.size());
  entries_.push_back(Entry{n, ++clock_});
  const auto pos = std::upper_bound(by_low_.begin(), by_low_.end(), std::pair<uint64_t, uint32_t>{n.low, 0});
  by_low_.insert(pos, {n.low, i});
  by_addr_[n.addr.raw()] = i;
  bytes_ += n.bytes();
  // Bounded: each round removes an entry.
  while (bytes_ > capacity_bytes_ && !entries_.empty()) evict_locked();
}

std::optional<IndexCache::LeafRoute> IndexCache::find_leaf(uint64_t key) {
  std::lock_guard<std::mutex> g(mu_);
  const int64_t f = floor_locked(key);
  if (f >= 0) {
    Entry& e = entries_[by_low_[static_cast<size_t>(f)].second];
    if (key < e.node.high) {
      e.last_use = ++clock_;
      ++stats_.hits;
      return LeafRoute{e.node.child_for(key), e.node.addr};
    }
  }
  ++stats_.misses;
  return std::nullopt;
}

std::vector<CachedNode> IndexCache::covering(uint64_t from, uint64_t to) const {
  std::vector<CachedNode> out;
  if (from >= to) return out;
  std::lock_guard<std::mutex> g(mu_);
  // Start at the entry that may hold `from` (greatest low <= from).
  size_t p = static_cast<size_t>(std::max<int64_t>(floor_locked(from), 0));
  for (; p < by_low_.size() && by_low_[p].first < to; ++p) {
    const CachedNode& n = entries_[by_low_[p].second].node;
    if (n.high > from) out.push_back(n);
  }
  return out;
}

void IndexCache::invalidate(RemoteAddr level1) {
  std::lock_guard<std::mutex> g(mu_);
  const auto it = by_addr_.find(level1.raw());
  if (it == by_addr_.end()) return;
  remove_locked(it->second);
  ++stats_.invalidations;
}

IndexCacheStats IndexCache::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  IndexCacheStats s = stats_;
  s.entries = entries_.size();
  s.bytes = bytes_;
  return s;
}

void IndexCache::evict_locked() {
  LW_CHECK(!entries_.empty());
  // Power of two choices: of two distinct random entries, the less recently
  // used.
  const uint64_t n = entries_.size();
  const uint32_t a = static_cast<uint32_t>(rng_.below(n));
  const uint32_t b = n > 1 ? static_cast<uint32_t>((a + 1 + rng_.below(n - 1)) % n) : a;
  remove_locked(entries_[a].last_use <= entries_[b].last_use ? a : b);
  ++stats_.evictions;
}

void IndexCache::remove_locked(uint32_t i) {
  LW_CHECK(i < entries_.size());
  // The by_low_ slot of entry j (lows are distinct).
  auto slot = [&](uint32_t j) {
    const int64_t f = floor_locked(entries_[j].node.low);
    LW_CHECK(f >= 0 && by_low_[static_cast<size_t>(f)].second == j);
    return by_low_.begin() + f;
  };
  const CachedNode& n = entries_[i].node;
  LW_CHECK(bytes_ >= n.bytes());
  bytes_ -= n.bytes();
  by_low_.erase(slot(i));
  by_addr_.erase(n.addr.raw());
  const uint32_t last = static_cast<uint32_t>(entries_.size() - 1);
  if (i != last) {
    slot(last)->second = i;
    by_addr_[entries_[last].node.addr.raw()] = i;
    entries_[i] = std::move(entries_[last]);
  }
  entries_.pop_back();
}

}  // namespace lw::sherman
