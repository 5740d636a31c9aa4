// The remote B+-tree's set-up: options, the node pool, bulk load, node
// allocation during run(), and a host-side structural check.
#include "latchwork/structures/jasny/btree.h"

#include <algorithm>
#include <cmath>

#include "latchwork/sync/exclusive_latch.h"
#include "latchwork/sync/optimistic.h"

namespace lw {

const char* to_string(BTreeSync s) {
  switch (s) {
    case BTreeSync::kUnsynchronized: return "unsynchronized";
    case BTreeSync::kPessimistic: return "pessimistic";
    case BTreeSync::kOptimistic: return "optimistic";
  }
  return "?";
}

bool parse_btree_sync(std::string_view name, BTreeSync* out) {
  for (auto s : {BTreeSync::kUnsynchronized, BTreeSync::kPessimistic, BTreeSync::kOptimistic})
    if (name == to_string(s)) {
      *out = s;
      return true;
    }
  return false;
}

std::string BTreeOptions::validate() const {
  if (!btree_node_size_ok(node_bytes))
    return "node size must be a multiple of 64 in [256, 65536], got " + std::to_string(node_bytes);
  if (node_padding % kCacheLine != 0) return "node padding must be a multiple of 64";
  if (max_nodes < 3 || max_nodes > (1ull << 32)) return "max nodes must be in [3, 2^32]";
  if (!(fill > 0 && fill <= 1)) return "fill factor must be in (0, 1]";
  return {};
}

std::string BTree::create(Backend& b, const BTreeOptions& o, std::unique_ptr<BTree>* out) {
  if (std::string e = o.validate(); !e.empty()) return e;
  if (o.memory_node >= b.config().memory_nodes) return "no memory node " + std::to_string(o.memory_node);
  std::unique_ptr<BTree> t(new BTree(o));
  t->counter_ = b.allocate(o.memory_node, kCacheLine, kCacheLine);
  t->pool_ = b.allocate(o.memory_node, o.max_nodes * t->stride(), 4096);
  if (t->counter_.is_null() || t->pool_.is_null())
    return "memory node " + std::to_string(o.memory_node) + " has no room for " +
           std::to_string(o.max_nodes) + " nodes of " + std::to_string(t->stride()) + " bytes";
  t->root_ = t->node_at(0);
  BTreeNode root(o.node_bytes);
  root.set_word(t->fresh_word());
  b.host_write(t->root_, root.data(), root.bytes());
  b.host_store(t->counter_, 1);
  *out = std::move(t);
  return {};
}

std::string BTree::bulk_load(Backend& b, const std::vector<std::pair<uint64_t, uint64_t>>& sorted) {
  BTreeNode root(o_.node_bytes);
  b.host_read(root_, root.data(), root.bytes());
  if (root.count() != 0 || b.host_load(counter_) != 1) return "bulk load needs an empty tree";
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i - 1].first >= sorted[i].first) return "bulk load needs strictly increasing keys";
  const uint32_t cap = capacity();
  const uint32_t per = std::max<uint32_t>(2, static_cast<uint32_t>(std::floor(cap * o_.fill)));
  // Entries of the level being built: (lowest key, value or child).
  std::vector<std::pair<uint64_t, uint64_t>> level(sorted);
  uint64_t next = 1;
  for (uint32_t height = 0; height < kBTreeMaxDepth; ++height) {
    if (level.size() <= (height == 0 ? cap : per)) {
      root.set_meta(height, static_cast<uint32_t>(level.size()));
      for (uint32_t i = 0; i < level.size(); ++i) root.set(i, level[i].first, level[i].second);
      b.host_write(root_, root.data(), root.bytes());
      b.host_store(counter_, next);
      return {};
    }
    const uint64_t nodes = (level.size() + per - 1) / per;
    if (next + nodes > o_.max_nodes)
      return "bulk load needs more than " + std::to_string(o_.max_nodes) + " nodes";
    std::vector<std::pair<uint64_t, uint64_t>> up;
    for (uint64_t n = 0; n < nodes; ++n) {
      BTreeNode node(o_.node_bytes);
      node.set_word(fresh_word());
      const uint64_t from = n * per, to = std::min<uint64_t>(level.size(), from + per);
      node.set_meta(height, static_cast<uint32_t>(to - from));
      for (uint64_t i = from; i < to; ++i) node.set(static_cast<uint32_t>(i - from), level[i].first, level[i].second);
      if (n + 1 < nodes) node.set_link(node_at(next + n + 1), level[to].first);
      b.host_write(node_at(next + n), node.data(), node.bytes());
      // The leftmost child's fence in its parent is minus infinity (0), as
      // after a root split: smaller keys inserted later go there.
      up.emplace_back(n == 0 ? 0 : level[from].first, node_at(next + n).raw());
    }
    next += nodes;
    level = std::move(up);
  }
  return "bulk load: too many levels";
}

uint32_t BTree::height(Backend& b) const {
  BTreeNode root(o_.node_bytes);
  b.host_read(root_, root.data(), root.bytes());
  return root.level() + 1;
}

bool BTree::host_lookup(Backend& b, uint64_t key, uint64_t* value) const {
  BTreeNode node(o_.node_bytes);
  RemoteAddr at = root_;
  for (uint32_t depth = 0; depth < kBTreeMaxDepth; ++depth) {
    b.host_read(at, node.data(), node.bytes());
    LW_CHECK_MSG(node.sane(), "B-tree node " + at.to_string() + " is malformed");
    if (node.is_leaf()) return node.find(key, value);
    at = node.child(node.child_index(key));
  }
  return false;
}

std::string BTree::check_structure(Backend& b, uint64_t* keys) const {
  BTreeNode node(o_.node_bytes);
  RemoteAddr leftmost = root_;
  uint64_t seen = 0, total = 0;
  for (uint32_t depth = 0; depth < kBTreeMaxDepth; ++depth) {
    std::vector<RemoteAddr> children;  // of this level, in key order
    RemoteAddr at = leftmost;
    bool have_prev = false;
    uint64_t prev_high = 0, level = 0;
    for (; !at.is_null(); at = node.right()) {
      if (++seen > o_.max_nodes) return "sibling links form a cycle";
      b.host_read(at, node.data(), node.bytes());
      const std::string where = "node " + at.to_string();
      if (!node.sane()) return where + " is malformed";
      if (at == leftmost) level = node.level();
      if (node.level() != level) return where + " is on the wrong level";
      if (o_.sync == BTreeSync::kOptimistic ? VersionWord::latched(node.word()) : node.word() != 0)
        return where + " is still latched (word " + std::to_string(node.word()) + ")";
      for (uint32_t i = 0; i < node.count(); ++i) {
        if (i > 0 && node.key(i - 1) >= node.key(i)) return where + " has unsorted keys";
        if (!node.right().is_null() && node.key(i) >= node.high()) return where + " has a key past its fence";
        if (have_prev && (i > 0 || node.is_leaf()) && node.key(i) < prev_high)
          return where + " has a key below its left sibling's fence";
        if (!node.is_leaf()) children.push_back(node.child(i));
      }
      if (node.is_leaf()) total += node.count();
      have_prev = true;
      prev_high = node.high();
    }
    if (level == 0) {
      if (keys) *keys = total;
      return {};
    }
    // The children, in order, must be exactly the next level's sibling chain.
    RemoteAddr c = children.empty() ? RemoteAddr{} : children.front();
    for (size_t i = 0; i < children.size(); ++i) {
      if (c != children[i]) return "level " + std::to_string(level - 1) + " sibling chain differs from its parents";
      b.host_read(c, node.data(), node.bytes());
      c = node.right();
    }
    if (!c.is_null()) return "level " + std::to_string(level - 1) + " has nodes no parent points to";
    leftmost = children.front();
  }
  return "too many levels";
}

Task<Result<RemoteAddr>> BTree::allocate_nodes(Worker& w, uint32_t n) const {
  Result<uint64_t> r = co_await w.faa(counter_, n);
  if (!r.ok()) co_return Result<RemoteAddr>{r.status, {}};
  if (r.value + n > o_.max_nodes) co_return Result<RemoteAddr>{Status::kOutOfBounds, {}};  // pool spent
  co_return Result<RemoteAddr>{Status::kOk, node_at(r.value)};
}

void BTree::add_unlatch(Batch& b, RemoteAddr addr, uint64_t held) const {
  if (o_.sync == BTreeSync::kPessimistic) b.faa(addr, -RwLatch::kExclusive);
  // Optimistic: v|1 -> (v+1)|0, which is held + 1.
  else if (o_.sync == BTreeSync::kOptimistic) b.cas(addr, held, held + 1);
}

}  // namespace lw
