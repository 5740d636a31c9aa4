// Sherman's tree, host side: bulk load and the checked walk of
// host_contents (outside run()).
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_set>

#include "bulk_images.h"
#include "latchwork/base/assert.h"
#include "verbs/node_memory_reuse.h"
#include "tree_internal.h"

namespace lw::sherman {

namespace {

bool host_node(Backend& b, const Tree::State& s, RemoteAddr addr, Node* n, std::string* why) {
  std::vector<std::byte> img(s.cfg.node_bytes);
  b.host_read(addr, img.data(), img.size());
  return s.format.decode(img.data(), n, why);
}

// Each memory node's range of the nodes at `all`, captured after the build
// wrote them, for the next bulk load of the same tree (bulk_images.h).
void capture_bulk_images(Backend& b, const Tree::State& s, SetupKey key, const std::vector<RemoteAddr>& all) {
  const uint32_t nodes = b.config().memory_nodes;
  std::vector<uint64_t> lo(nodes, ~uint64_t{0}), hi(nodes, 0);
  for (const RemoteAddr a : all) {
    LW_CHECK(a.node() < nodes);
    lo[a.node()] = std::min(lo[a.node()], a.offset());
    hi[a.node()] = std::max(hi[a.node()], a.offset() + s.cfg.node_bytes);
  }
  BulkImages taken(nodes);
  for (NodeId n = 0; n < nodes; ++n) {
    if (lo[n] >= hi[n]) continue;
    taken[n] = HostImage::capture(lo[n], hi[n] - lo[n], [&](uint64_t off, std::byte* dst, uint64_t len) {
      b.host_read(RemoteAddr(n, off), dst, len);
    });
    if (!taken[n]) return;  // no image: later loads build as this one did
  }
  const uint64_t bytes = bulk_images_bytes(taken);
  SetupStore::process().add(std::move(key), std::make_shared<const BulkImages>(std::move(taken)), bytes,
                            SetupLifetime::kReuseScope);
}

}  // namespace

Status Tree::bulk_load(Backend& b, std::span<const std::pair<uint64_t, uint64_t>> sorted) {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  State& s = *state_;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const uint64_t k = sorted[i].first;
    if (k < kMinKey || k > kMaxKey || (i > 0 && sorted[i - 1].first >= k)) return Status::kBadLength;
  }
  {
    Node root;
    std::string why;
    const RemoteAddr r = RemoteAddr::from_raw(b.host_load(s.root_word));
    LW_CHECK_MSG(host_node(b, s, r, &root, &why), "the root does not decode: " + why);
    if (!root.is_leaf() || root.used() != 0) return Status::kBadLength;  // not an empty tree
  }
  if (sorted.empty()) return Status::kOk;
  const NodeFormat& f = s.format;
  struct Built {
    RemoteAddr addr;
    Node node;
  };
  // Leaves bulk_fill full, internal nodes too.
  const auto per_leaf =
      std::clamp<size_t>(static_cast<size_t>(std::floor(f.leaf_capacity() * s.cfg.bulk_fill)), 1, f.leaf_capacity());
  const size_t fanout = std::clamp<size_t>(
      static_cast<size_t>(std::floor((f.internal_capacity() + 1) * s.cfg.bulk_fill)), 2, f.internal_capacity() + 1);
  // Every node's address first, level by level from the leaves: the order
  // in which the build below took them.
  std::vector<std::vector<RemoteAddr>> at;
  for (size_t count = (sorted.size() + per_leaf - 1) / per_leaf;; count = (count + fanout - 1) / fanout) {
    LW_CHECK_MSG(at.size() < 64, "bulk load built more than 64 levels");
    std::vector<RemoteAddr>& level = at.emplace_back();
    level.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const RemoteAddr a = s.host_allocate(b);
      if (a.is_null()) return Status::kOutOfBounds;
      level.push_back(a);
    }
    if (count == 1) break;
  }
  const RemoteAddr root = at.back()[0];
  // A figure's points load the same tree again: its image, where it is kept.
  const bool images = b.can_install_host_images() && NodeMemoryReuse::active();
  std::vector<RemoteAddr> all;
  std::optional<SetupKey> key;
  if (images) {
    for (const auto& level : at) all.insert(all.end(), level.begin(), level.end());
    key.emplace(bulk_images_key(s.cfg, sorted, all));  // built once: it holds every pair
    if (const auto found = SetupStore::process().find<const BulkImages>(*key)) {
      for (NodeId n = 0; n < found->size(); ++n)
        if ((*found)[n]) b.host_install_image(n, *(*found)[n]);
      b.host_store(s.root_word, root.raw());
      return Status::kOk;
    }
  }
  std::vector<Built> level;
  for (size_t i = 0; i < sorted.size(); i += per_leaf) {
    Built n{at[0][level.size()], f.empty_leaf()};
    n.node.low = level.empty() ? kMinKey : sorted[i].first;
    const size_t end = std::min(sorted.size(), i + per_leaf);
    for (size_t j = i; j < end; ++j) {
      const LeafEntry e{sorted[j].first, sorted[j].second, 0, false};
      if (f.sorted_leaves())
        n.node.entries.push_back(e);
      else
        n.node.entries[j - i] = e;
    }
    level.push_back(std::move(n));
  }
  std::vector<std::byte> img(s.cfg.node_bytes);
  // Links, fences and the write of a level; then the level above.
  for (uint8_t lv = 0;; ++lv) {
    for (size_t i = 0; i < level.size(); ++i) {
      Node& n = level[i].node;
      n.level = lv;
      n.high = i + 1 < level.size() ? level[i + 1].node.low : kInfinity;
      n.sibling = i + 1 < level.size() ? level[i + 1].addr : RemoteAddr{};
      f.encode(n, img.data());
      b.host_write(level[i].addr, img.data(), img.size());
    }
    if (level.size() == 1) break;
    std::vector<Built> up;
    for (size_t i = 0; i < level.size(); i += fanout) {
      Built n{at[lv + 1u][up.size()], Node{}};
      n.node.low = level[i].node.low;
      const size_t end = std::min(level.size(), i + fanout);
      n.node.children.push_back(level[i].addr);
      for (size_t j = i + 1; j < end; ++j) {
        n.node.keys.push_back(level[j].node.low);
        n.node.children.push_back(level[j].addr);
      }
      n.node.level = static_cast<uint8_t>(lv + 1);
      up.push_back(std::move(n));
    }
    level = std::move(up);
  }
  LW_CHECK(level[0].addr == root);
  if (images) capture_bulk_images(b, s, std::move(*key), all);
  b.host_store(s.root_word, root.raw());
  return Status::kOk;
}

void Tree::warm_cache(Backend& b) const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  const State& s = *state_;
  const RemoteAddr root_addr = RemoteAddr::from_raw(b.host_load(s.root_word));
  Node n;
  std::string why;
  LW_CHECK_MSG(host_node(b, s, root_addr, &n, &why), "the root does not decode: " + why);
  if (n.is_leaf()) return;
  std::vector<CachedNode> top{to_cached(n, root_addr)};
  const uint8_t root_level = n.level;
  std::vector<RemoteAddr> level_nodes{root_addr};
  std::vector<CachedNode> level1;
  // Down the leftmost children, each level along its sibling chain.
  for (int level = root_level; level >= 1; --level) {
    std::vector<RemoteAddr> below;
    RemoteAddr addr = level_nodes.front();
    const uint64_t max_nodes = s.cluster.memory_node_bytes / s.cfg.node_bytes * s.memory_nodes + 1;
    for (uint64_t i = 0; !addr.is_null(); ++i) {
      LW_CHECK_MSG(i < max_nodes, "a sibling chain does not end");
      LW_CHECK_MSG(host_node(b, s, addr, &n, &why), "a node does not decode: " + why);
      if (level == root_level - 1) top.push_back(to_cached(n, addr));
      if (level == 1) level1.push_back(to_cached(n, addr));
      if (level > 1 && below.empty()) below.push_back(n.children.front());
      addr = n.sibling;
    }
    level_nodes = std::move(below);
  }
  for (const std::unique_ptr<IndexCache>& c : s.caches) {
    c->set_top(top);
    uint64_t bytes = 0;
    for (const CachedNode& l1 : level1) {
      if (bytes + l1.bytes() > s.cfg.cache_bytes) break;
      bytes += l1.bytes();
      c->put(l1);
    }
  }
}

Result<std::map<uint64_t, uint64_t>> Tree::host_contents(Backend& b, std::string* why) const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  const State& s = *state_;
  Result<std::map<uint64_t, uint64_t>> r;
  auto corrupt = [&](const std::string& what) {
    r.status = Status::kBadLength;
    if (why) *why = what;
    return r;
  };
  const RemoteAddr root_addr = RemoteAddr::from_raw(b.host_load(s.root_word));
  if (root_addr.is_null()) return corrupt("the root word is not set");
  Node n;
  std::string w;
  if (!host_node(b, s, root_addr, &n, &w)) return corrupt("the root " + root_addr.to_string() + ": " + w);
  if (n.low != kMinKey || n.high != kInfinity || !n.sibling.is_null())
    return corrupt("the root " + root_addr.to_string() + " does not span the whole key space alone");
  // A bound on the nodes of one level: every node of every memory node.
  const uint64_t max_nodes = s.cluster.memory_node_bytes / s.cfg.node_bytes * s.memory_nodes + 1;
  struct Expect {
    RemoteAddr addr;
    uint64_t low, high;
  };
  std::vector<Expect> expected{{root_addr, kMinKey, kInfinity}};
  for (int level = n.level; level >= 0; --level) {
    std::vector<Expect> below;
    RemoteAddr addr = expected.front().addr;
    uint64_t prev_high = kMinKey;
    size_t next = 0;  // the next child the parent level lists
    for (uint64_t i = 0;; ++i) {
      std::ostringstream where;
      where << "level " << level << " node " << i << " at " << addr.to_string();
      if (i >= max_nodes) return corrupt(where.str() + ": the sibling chain does not end");
      if (!host_node(b, s, addr, &n, &w)) return corrupt(where.str() + " does not decode: " + w);
      if (n.level != level || n.free) return corrupt(where.str() + ": level " + std::to_string(n.level) + " or free");
      if (n.low != prev_high)
        return corrupt(where.str() + ": low fence " + std::to_string(n.low) + " != previous high " +
                       std::to_string(prev_high));
      if (next < expected.size() && expected[next].addr == addr) {
        // A listed child starts at its separator; it may end before the next
        // one when it split and its new sibling is not in the parent yet.
        if (expected[next].low != n.low || n.high > expected[next].high)
          return corrupt(where.str() + ": fences [" + std::to_string(n.low) + ", " + std::to_string(n.high) +
                         ") do not fit its parent's separators [" + std::to_string(expected[next].low) + ", " +
                         std::to_string(expected[next].high) + ")");
        ++next;
      } else {
        // B-link: a node whose separator its parent does not hold (a split
        // whose parent insert gave up) is reached through its left sibling,
        // and must lie inside that sibling's parent range.
        if (next == 0 || n.high > expected[next - 1].high)
          return corrupt(where.str() + ": not a child its parent level lists, nor inside the previous child's range");
      }
      if (n.is_leaf()) {
        for (const LeafEntry& e : n.entries) {
          if (e.key == 0) continue;
          if (e.torn) return corrupt(where.str() + ": entry of key " + std::to_string(e.key) + " has FEV != REV");
          if (!n.covers(e.key)) return corrupt(where.str() + ": key " + std::to_string(e.key) + " outside the fences");
          if (!r.value.emplace(e.key, e.value).second)
            return corrupt(where.str() + ": key " + std::to_string(e.key) + " is in the tree twice");
        }
      } else {
        for (size_t c = 0; c < n.children.size(); ++c)
          below.push_back({n.children[c], c == 0 ? n.low : n.keys[c - 1],
                           c + 1 == n.children.size() ? n.high : n.keys[c]});
      }
      if (n.high == kInfinity) {
        if (!n.sibling.is_null()) return corrupt(where.str() + ": the last node has a sibling");
        if (next != expected.size()) return corrupt(where.str() + ": the level ends before its parents' children");
        break;
      }
      if (n.sibling.is_null()) return corrupt(where.str() + ": a finite high fence and no sibling");
      prev_high = n.high;
      addr = n.sibling;
    }
    expected = std::move(below);
  }
  // Every GLT lock free.
  const locks::Hocl& h = s.hocl;
  for (uint32_t node = 0; node < s.memory_nodes; ++node) {
    uint64_t word_raw = 0, word = 0;
    for (uint32_t i = 0; i < h.config().locks_per_node; ++i) {
      const RemoteAddr a = h.word_addr(static_cast<NodeId>(node), i);
      if (a.raw() != word_raw) {
        word_raw = a.raw();
        word = b.host_load(a);
      }
      if ((word & h.lane_mask(i)) != 0)
        return corrupt("lock " + std::to_string(i) + " of memory node " + std::to_string(node) + " is held");
    }
  }
  return r;
}

}  // namespace lw::sherman
