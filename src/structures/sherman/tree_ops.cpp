// Sherman's tree: lookup, insert, remove and range (Wang et al. §4.2-4.5,
// Figs. 7 and 9; SMART §5.2's speculative lookup). The promises are in
// tree.h; this file says why each step is where it is.
//
// Every loop is bounded by the operation's budget (TreeConfig::max_attempts
// re-reads, restarts and sibling hops), past which the operation returns
// kRetryExhausted.
#include <algorithm>
#include <bit>
#include <cstring>

#include "latchwork/base/assert.h"
#include "tree_internal.h"

namespace lw::sherman {
namespace {

using State = Tree::State;
using Grant = locks::Hocl::Grant;

// One logical operation: its context and its budget.
struct Op {
  smart::Context& ctx;
  State& s;
  uint32_t attempts = 0;

  Worker& w() { return ctx.worker(); }
  // One more re-read, restart or hop; false past the budget. Each counts
  // as a retry for the runtime (note_retry), as the paper's retries do.
  // Past kRelaxAfter in a row the writer it waits for may be a preempted
  // thread (threads backend): relax() lets it run (a no-op elsewhere).
  static constexpr uint32_t kRelaxAfter = 16;
  bool retry() {
    ctx.note_retry();
    if (attempts >= kRelaxAfter) w().relax();
    return ++attempts <= s.cfg.max_attempts;
  }
};

// The modelled CPU cost of checking or stamping a whole node (the
// simulator charges it; real hardware spends it).
void charge_node_check(Op& op) {
  const NodeFormat& f = op.s.format;
  switch (f.scheme()) {
    case Scheme::kTwoLevel: break;  // two bytes compared
    case Scheme::kPerLine: op.w().compute(CpuWork::kFarmLine, f.node_bytes() / kCacheLine); break;
    case Scheme::kFgPlus: op.w().compute(CpuWork::kCrc64Byte, f.node_bytes()); break;
  }
}

// The search of a node just read and checked (CPU the simulator charges):
// an unsorted leaf is scanned entry by entry (Sherman §4.2.2), sorted keys
// (FG+'s leaves, every internal node) are binary searched.
void charge_node_search(Op& op, const Node& n) {
  const bool scan = n.is_leaf() && !op.s.format.sorted_leaves();
  const uint64_t keys = n.is_leaf() ? n.entries.size() : n.keys.size();
  op.w().compute(CpuWork::kKeyScan, scan ? keys : std::bit_width(keys));
}

// True when the two-level wrap rule distrusts a READ posted at t0 (WrapRule
// kBounded: it took longer than version_wrap_ns, so a 4-bit version may have
// wrapped around during it). Never under the node's lock: no writer is at work.
bool past_wrap_bound(Op& op, Nanos t0, bool locked) {
  const TreeConfig& c = op.s.cfg;
  return !locked && c.scheme == Scheme::kTwoLevel && c.wrap_rule == WrapRule::kBounded &&
         op.w().now() - t0 > c.version_wrap_ns;
}

// The clock before a READ, read only where past_wrap_bound will compare it:
// a clock read is an event under exhaustive exploration (a logical clock), so
// reading it on every retry would make identical re-reads different states.
Nanos wrap_clock(Op& op, bool locked) {
  const TreeConfig& c = op.s.cfg;
  return !locked && c.scheme == Scheme::kTwoLevel && c.wrap_rule == WrapRule::kBounded ? op.w().now() : 0;
}

// READs the node at `addr`, checked. An image that fails its check is
// re-read (torn_reads); so is a READ past the wrap bound (past_wrap_bound).
Task<Status> read_node(Op& op, RemoteAddr addr, bool locked, Node* n, std::vector<std::byte>* img) {
  State& s = op.s;
  LW_CHECK_MSG(!addr.is_null(), "a null node address");
  img->resize(s.cfg.node_bytes);
  for (;;) {
    const Nanos t0 = wrap_clock(op, locked);
    if (Status st = co_await op.ctx.read(img->data(), addr, s.cfg.node_bytes); !ok(st)) co_return st;
    const bool distrusted = past_wrap_bound(op, t0, locked);
    charge_node_check(op);
    if (distrusted) {
      s.stats.wrap_retries.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Status::kRetryExhausted;
      continue;
    }
    if (!s.format.decode(img->data(), n)) {
      s.stats.torn_reads.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Status::kRetryExhausted;
      continue;
    }
    charge_node_search(op, *n);
    co_return Status::kOk;
  }
}

Task<Status> read_root_word(Op& op, RemoteAddr* root) {
  uint64_t word = 0;
  const Status st = co_await op.ctx.read(&word, op.s.root_word, kWord);
  *root = RemoteAddr::from_raw(word);
  LW_CHECK_MSG(!ok(st) || !root->is_null(), "the root word is not set");
  co_return st;
}

// Refills the compute node's always-cached top from the root just read: the
// root and, when it is at level 2 or above, its children (READ in one batch
// per memory node and up to Batch::kMax). A child that fails its check is
// left out (top_for then answers with the root for its keys).
Task<Status> refresh_top(Op& op, const Node& root, RemoteAddr root_addr) {
  State& s = op.s;
  IndexCache& cache = s.cache(op.w());
  std::vector<CachedNode> top{to_cached(root, root_addr)};
  if (root.level == 1) cache.put(top[0]);
  if (root.level >= 2) {
    const uint32_t nb = s.cfg.node_bytes;
    const size_t k = root.children.size();
    std::vector<std::byte> buf(k * nb);
    std::vector<bool> done(k, false);
    for (size_t first = 0; first < k; ++first) {
      if (done[first]) continue;
      Batch b;
      const NodeId node = root.children[first].node();
      for (size_t i = first; i < k && b.size() < Batch::kMax; ++i)
        if (!done[i] && root.children[i].node() == node) {
          b.read(buf.data() + i * nb, root.children[i], nb);
          done[i] = true;
        }
      if (Status st = co_await op.ctx.execute(b); !ok(st)) co_return st;
      for (uint32_t i = 0; i < b.size(); ++i) charge_node_check(op);
    }
    for (size_t i = 0; i < k; ++i) {
      Node c;
      if (s.format.decode(buf.data() + i * nb, &c) && c.level + 1 == root.level && !c.free)
        top.push_back(to_cached(c, root.children[i]));
      else
        s.stats.torn_reads.fetch_add(1, std::memory_order_relaxed);
    }
  }
  cache.set_top(std::move(top));
  co_return Status::kOk;
}

// Where an operation is headed: a node address and, when the level-1 index
// cache routed it, the cached node that did (to drop it if it was stale).
struct Route {
  RemoteAddr addr;
  RemoteAddr level1;
};

// A route that led to a node whose fences, level or sibling showed the
// cached copy stale: drop the copy (and the top when it came from there).
void drop_route(Op& op, const Route& r, uint64_t key) {
  if (r.level1.is_null()) return;
  IndexCache& cache = op.s.cache(op.w());
  cache.invalidate(r.level1);
  op.s.stats.cache_invalidations.fetch_add(1, std::memory_order_relaxed);
  if (auto top = cache.top_for(key); top && top->addr == r.level1) cache.clear_top();
}

// The address of the node at `level` that covers `key` (a hint: the caller
// reads the node and checks): the level-1 index cache for leaves, else the
// top, else a traversal from the root word. Internal nodes read on the way
// are checked; level-1 nodes go into the cache, and reading the root
// refreshes the top.
Task<Status> locate(Op& op, uint64_t key, uint8_t level, Route* out) {
  State& s = op.s;
  IndexCache& cache = s.cache(op.w());
  if (level == 0) {
    if (std::optional<IndexCache::LeafRoute> r = cache.find_leaf(key)) {
      *out = {r->leaf, r->level1};
      co_return Status::kOk;
    }
  }
  RemoteAddr addr;
  int expect = -1;  // the level of the node at addr, when known
  if (std::optional<CachedNode> top = cache.top_for(key); top && top->level >= level) {
    if (top->level == level) {
      *out = {top->addr, {}};
      co_return Status::kOk;
    }
    addr = top->child_for(key);
    expect = top->level - 1;
    if (expect == level) {
      *out = {addr, top->level == 1 ? top->addr : RemoteAddr{}};
      co_return Status::kOk;
    }
  }
  Node n;
  std::vector<std::byte> img;
  bool from_root = false;
  for (;;) {
    if (addr.is_null()) {
      if (Status st = co_await read_root_word(op, &addr); !ok(st)) co_return st;
      expect = -1;
      from_root = true;
    }
    if (Status st = co_await read_node(op, addr, false, &n, &img); !ok(st)) co_return st;
    if (n.free || (expect >= 0 && n.level != expect) || key < n.low) {
      // A stale top copy led here (nodes never merge, so a parent's child
      // always has low <= key): start again from the root.
      cache.clear_top();
      s.stats.restarts.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Status::kRetryExhausted;
      addr = {};
      continue;
    }
    if (key >= n.high) {  // the node split under us: B-link move right
      LW_CHECK_MSG(!n.sibling.is_null(), "a node with a finite high fence and no sibling");
      s.stats.sibling_hops.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Status::kRetryExhausted;
      addr = n.sibling;
      from_root = false;
      continue;
    }
    if (n.level < level) {
      // The tree is not yet `level` + 1 high: a root split is between its
      // node writes and the root word CAS. Wait a little, re-read the word.
      cache.clear_top();
      if (!op.retry()) co_return Status::kRetryExhausted;
      co_await op.w().sleep(500);
      addr = {};
      continue;
    }
    if (from_root && n.low == kMinKey && n.high == kInfinity && n.level >= 1) {
      if (Status st = co_await refresh_top(op, n, addr); !ok(st)) co_return st;
    }
    from_root = false;
    if (n.level == level) {  // a leaf root, or an internal target reached from above
      *out = {addr, {}};
      co_return Status::kOk;
    }
    if (n.level == 1) cache.put(to_cached(n, addr));
    const RemoteAddr child = n.child_for(key);
    if (n.level - 1 == level) {
      *out = {child, n.level == 1 ? addr : RemoteAddr{}};
      co_return Status::kOk;
    }
    addr = child;
    expect = n.level - 1;
  }
}

// A node locked and read under its lock.
struct Locked {
  RemoteAddr addr;
  Node node;
  std::vector<std::byte> img;
  Grant grant;
};

// Locks the node at `level` covering `key` and reads it (Fig. 7 lines 5-8),
// moving right past splits (unlock, follow the sibling) and retraversing
// when the route was stale (unlock, invalidate the cache, restart).
Task<Status> lock_covering(Op& op, uint64_t key, uint8_t level, Locked* out) {
  State& s = op.s;
  Route r;
  bool routed = false;
  for (;;) {
    if (!routed) {
      if (Status st = co_await locate(op, key, level, &r); !ok(st)) co_return st;
      routed = true;
    }
    Result<Grant> g = co_await s.hocl.lock(op.ctx, r.addr);
    if (!g.ok()) co_return g.status;
    const Status st = co_await read_node(op, r.addr, true, &out->node, &out->img);
    if (!ok(st)) {
      (void)co_await s.hocl.unlock(op.ctx, g.value);
      co_return st;
    }
    const Node& n = out->node;
    if (n.level == level && !n.free && n.low <= key) {
      if (key < n.high) {
        out->addr = r.addr;
        out->grant = g.value;
        co_return Status::kOk;
      }
      if (Status u = co_await s.hocl.unlock(op.ctx, g.value); !ok(u)) co_return u;
      LW_CHECK_MSG(!n.sibling.is_null(), "a node with a finite high fence and no sibling");
      drop_route(op, r, key);
      s.stats.sibling_hops.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Status::kRetryExhausted;
      r = {n.sibling, {}};
      continue;
    }
    if (Status u = co_await s.hocl.unlock(op.ctx, g.value); !ok(u)) co_return u;
    drop_route(op, r, key);
    s.stats.restarts.fetch_add(1, std::memory_order_relaxed);
    if (!op.retry()) co_return Status::kRetryExhausted;
    routed = false;
  }
}

struct WriteBack {
  RemoteAddr dst;
  const std::byte* src;
  uint32_t len;
};

// The write-backs of a locked node, then the release (§4.5). Combined:
// WRITEs to the lock's memory node go in one batch with the lock release
// (one QP: they execute in order, so the next holder reads what they
// wrote); WRITEs to another node (a sibling allocated elsewhere) are
// awaited first, so they land before the node that links them. They must
// come first in `writes`. Uncombined: every WRITE awaited on its own, then
// Hocl::unlock.
Task<Status> write_and_release(Op& op, const Grant& g, std::span<const WriteBack> writes) {
  State& s = op.s;
  Status first_error = Status::kOk;
  if (s.cfg.combine) {
    Batch b;
    for (const WriteBack& wb : writes) {
      if (wb.dst.node() != g.node) {
        LW_CHECK_MSG(b.empty(), "a write to another memory node after one combined with the release");
        if (Status st = co_await op.ctx.write(wb.dst, wb.src, wb.len); !ok(st) && ok(first_error)) first_error = st;
      } else {
        b.write(wb.dst, wb.src, wb.len);
      }
    }
    LW_CHECK(b.size() < Batch::kMax);
    s.hocl.release_global(g, b);
    const bool early = s.cfg.variant == Variant::kEarlyHandover;
    if (early) s.hocl.release_local(op.w(), g);
    if (!b.empty())
      if (Status st = co_await op.ctx.execute(b); !ok(st) && ok(first_error)) first_error = st;
    if (!early) s.hocl.release_local(op.w(), g);
  } else {
    for (const WriteBack& wb : writes)
      if (Status st = co_await op.ctx.write(wb.dst, wb.src, wb.len); !ok(st) && ok(first_error)) first_error = st;
    if (Status st = co_await s.hocl.unlock(op.ctx, g); !ok(st) && ok(first_error)) first_error = st;
  }
  co_return first_error;
}

Task<RemoteAddr> allocate_node(Op& op) {
  State& s = op.s;
  const NodeId node = s.next_node(op.w());
  co_return co_await s.allocator(op.w(), node).allocate(op.w(), s.cfg.node_bytes, kCacheLine);
}

void encode(Op& op, const Node& n, std::vector<std::byte>* img) {
  img->resize(op.s.cfg.node_bytes);
  op.s.format.encode(n, img->data());
  charge_node_check(op);
}

// A level that changed at the top of the tree: the compute node's cached
// top is dropped (re-read from the root on next use).
void note_internal_change(Op& op, uint8_t level, uint64_t key) {
  IndexCache& cache = op.s.cache(op.w());
  if (std::optional<CachedNode> top = cache.top_for(key); !top || uint32_t{level} + 1 >= top->level)
    cache.clear_top();
}

// A split of the root (the only node of its level, locked by the caller at
// `addr`, already changed to its left half `left` linking `right` at
// `right_addr`): a new root over both, written before the root word is
// swung to it, all before the old root is released, so that a split one
// level down never finds the tree lower than its parent level for long.
Task<Status> split_root(Op& op, const Grant& g, RemoteAddr addr, const Node& left, const Node& right,
                        RemoteAddr right_addr, uint64_t sep) {
  State& s = op.s;
  Status first_error = Status::kOk;
  const RemoteAddr root_addr = co_await allocate_node(op);
  if (root_addr.is_null()) {
    (void)co_await s.hocl.unlock(op.ctx, g);
    co_return Status::kOutOfBounds;
  }
  Node root;
  root.level = static_cast<uint8_t>(left.level + 1);
  root.low = kMinKey;
  root.high = kInfinity;
  root.keys = {sep};
  root.children = {addr, right_addr};
  std::vector<std::byte> ri, li, ti;
  encode(op, right, &ri);
  encode(op, left, &li);
  encode(op, root, &ti);
  for (auto [dst, img] : {std::pair{right_addr, &ri}, std::pair{root_addr, &ti}, std::pair{addr, &li}})
    if (Status st = co_await op.ctx.write(dst, img->data(), s.cfg.node_bytes); !ok(st) && ok(first_error))
      first_error = st;
  if (ok(first_error)) {
    const Result<uint64_t> c = co_await op.ctx.cas(s.root_word, addr.raw(), root_addr.raw());
    if (!c.ok()) first_error = c.status;
    LW_CHECK_MSG(!c.ok() || c.value == addr.raw(), "the root word moved while its node was locked");
  }
  if (Status st = co_await s.hocl.unlock(op.ctx, g); !ok(st) && ok(first_error)) first_error = st;
  s.stats.root_splits.fetch_add(1, std::memory_order_relaxed);
  s.cache(op.w()).clear_top();
  if (left.level == 0) {
    // The new root is a level-1 node: cache it.
    s.cache(op.w()).put(to_cached(root, root_addr));
  }
  co_return first_error;
}

// Inserts separator `sep` leading to `child` into the node at `level`
// covering it, splitting upwards as needed (§4.2: after the leaf split).
Task<Status> insert_internal(Op& op, uint64_t sep, RemoteAddr child, uint8_t level) {
  State& s = op.s;
  for (uint32_t depth = 0;; ++depth) {
    LW_CHECK_MSG(depth < 64, "a tree higher than 64 levels");
    Locked l;
    if (Status st = co_await lock_covering(op, sep, level, &l); !ok(st)) co_return st;
    Node& n = l.node;
    LW_CHECK(!n.is_leaf() && n.covers(sep));
    const size_t pos = static_cast<size_t>(std::upper_bound(n.keys.begin(), n.keys.end(), sep) - n.keys.begin());
    LW_CHECK_MSG(pos == 0 || n.keys[pos - 1] != sep, "a separator inserted twice");
    LW_CHECK_MSG(n.low != sep, "a separator equal to its node's low fence");
    n.keys.insert(n.keys.begin() + static_cast<std::ptrdiff_t>(pos), sep);
    n.children.insert(n.children.begin() + static_cast<std::ptrdiff_t>(pos) + 1, child);
    n.version = static_cast<uint16_t>(n.version + 1);
    IndexCache& cache = s.cache(op.w());
    if (n.keys.size() <= s.format.internal_capacity()) {
      std::vector<std::byte> img;
      encode(op, n, &img);
      const WriteBack wb[] = {{l.addr, img.data(), s.cfg.node_bytes}};
      const Status st = co_await write_and_release(op, l.grant, wb);
      if (level == 1) cache.put(to_cached(n, l.addr));
      note_internal_change(op, level, sep);
      co_return st;
    }
    // Split: the middle key moves up; the right half goes to a new node.
    s.stats.internal_splits.fetch_add(1, std::memory_order_relaxed);
    const RemoteAddr right_addr = co_await allocate_node(op);
    if (right_addr.is_null()) {
      (void)co_await s.hocl.unlock(op.ctx, l.grant);
      co_return Status::kOutOfBounds;
    }
    const size_t mid = n.keys.size() / 2;
    const uint64_t up = n.keys[mid];
    const bool was_root = n.low == kMinKey && n.high == kInfinity;
    Node right;
    right.level = n.level;
    right.low = up;
    right.high = n.high;
    right.sibling = n.sibling;
    right.keys.assign(n.keys.begin() + static_cast<std::ptrdiff_t>(mid) + 1, n.keys.end());
    right.children.assign(n.children.begin() + static_cast<std::ptrdiff_t>(mid) + 1, n.children.end());
    n.keys.resize(mid);
    n.children.resize(mid + 1);
    n.high = up;
    n.sibling = right_addr;
    if (was_root) {
      const Status st = co_await split_root(op, l.grant, l.addr, n, right, right_addr, up);
      if (level == 1) {
        cache.put(to_cached(n, l.addr));
        cache.put(to_cached(right, right_addr));
      }
      co_return st;
    }
    std::vector<std::byte> ri, li;
    encode(op, right, &ri);
    encode(op, n, &li);
    const WriteBack wb[] = {{right_addr, ri.data(), s.cfg.node_bytes}, {l.addr, li.data(), s.cfg.node_bytes}};
    if (Status st = co_await write_and_release(op, l.grant, wb); !ok(st)) co_return st;
    if (level == 1) {
      cache.put(to_cached(n, l.addr));
      cache.put(to_cached(right, right_addr));
    }
    note_internal_change(op, level, sep);
    sep = up;
    child = right_addr;
    ++level;
  }
}

// Leaf write (insert or update) under the leaf's lock: Fig. 7.
Task<Result<bool>> do_insert(Op& op, uint64_t key, uint64_t value) {
  State& s = op.s;
  const NodeFormat& f = s.format;
  Locked l;
  if (Status st = co_await lock_covering(op, key, 0, &l); !ok(st)) co_return Result<bool>{st, false};
  Node& n = l.node;
  LW_CHECK(n.is_leaf() && n.covers(key));
  std::vector<std::byte> img;
  if (!f.sorted_leaves()) {
    int slot = n.find(key);
    const bool inserted = slot < 0;
    if (slot < 0)
      for (size_t i = 0; i < n.entries.size() && slot < 0; ++i)
        if (n.entries[i].key == 0) slot = static_cast<int>(i);
    if (slot >= 0) {
      // Entry-level change (lines 11-17): the entry alone, its versions
      // bumped; or, for a per-line entry that straddles lines, the node.
      const auto i = static_cast<uint32_t>(slot);
      LeafEntry& e = n.entries[i];
      e = {key, value, static_cast<uint8_t>((e.version + 1) & 0xf), false};
      const bool alone = f.entry_writable(i);
      if (!alone) n.version = static_cast<uint16_t>(n.version + 1);
      encode(op, n, &img);
      const WriteBack wb[] = {alone ? WriteBack{l.addr + f.entry_offset(i), img.data() + f.entry_offset(i),
                                                f.entry_bytes()}
                                    : WriteBack{l.addr, img.data(), s.cfg.node_bytes}};
      const Status st = co_await write_and_release(op, l.grant, wb);
      if (SpeculativeCache* sc = s.spec(op.w()); sc && alone) sc->put(key, l.addr + f.entry_offset(i));
      co_return Result<bool>{st, inserted};
    }
  } else {
    auto it = std::lower_bound(n.entries.begin(), n.entries.end(), key,
                               [](const LeafEntry& e, uint64_t k) { return e.key < k; });
    const bool inserted = it == n.entries.end() || it->key != key;
    if (!inserted || n.entries.size() < f.leaf_capacity()) {
      if (inserted)
        n.entries.insert(it, LeafEntry{key, value, 0, false});
      else
        it->value = value;
      n.version = static_cast<uint16_t>(n.version + 1);
      encode(op, n, &img);
      const WriteBack wb[] = {{l.addr, img.data(), s.cfg.node_bytes}};
      co_return Result<bool>{co_await write_and_release(op, l.grant, wb), inserted};
    }
  }
  // Split (lines 18-35): sort, move the upper half to a new sibling, link
  // it, narrow the fences; the node-level versions change.
  s.stats.leaf_splits.fetch_add(1, std::memory_order_relaxed);
  const RemoteAddr right_addr = co_await allocate_node(op);
  if (right_addr.is_null()) {
    (void)co_await s.hocl.unlock(op.ctx, l.grant);
    co_return Result<bool>{Status::kOutOfBounds, false};
  }
  std::vector<LeafEntry> all;
  for (const LeafEntry& e : n.entries)
    if (e.key != 0) all.push_back({e.key, e.value, 0, false});
  all.push_back({key, value, 0, false});
  std::sort(all.begin(), all.end(), [](const LeafEntry& a, const LeafEntry& b) { return a.key < b.key; });
  LW_CHECK(all.size() == size_t{f.leaf_capacity()} + 1);
  const size_t mid = all.size() / 2;
  const uint64_t sep = all[mid].key;
  LW_CHECK(n.low < sep && sep < n.high);
  const bool was_root = n.low == kMinKey && n.high == kInfinity;
  Node right = f.empty_leaf();
  right.low = sep;
  right.high = n.high;
  right.sibling = n.sibling;
  if (f.sorted_leaves()) {
    right.entries.assign(all.begin() + static_cast<std::ptrdiff_t>(mid), all.end());
    n.entries.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(mid));
  } else {
    for (size_t i = mid; i < all.size(); ++i) right.entries[i - mid] = all[i];
    // The node keeps its lower keys in their slots (so cached entry
    // addresses of those keys stay right) and clears the moved ones: a
    // stale speculative address never shows a moved key.
    for (LeafEntry& e : n.entries)
      if (e.key >= sep) e = {0, 0, e.version, false};
    if (key < sep) {
      const int free_slot = n.find_empty();
      LW_CHECK(free_slot >= 0);
      n.entries[static_cast<size_t>(free_slot)] = {key, value, 0, false};
    }
  }
  n.high = sep;
  n.sibling = right_addr;
  n.version = static_cast<uint16_t>(n.version + 1);
  if (SpeculativeCache* sc = s.spec(op.w())) sc->drop(key);
  if (was_root) co_return Result<bool>{co_await split_root(op, l.grant, l.addr, n, right, right_addr, sep), true};
  std::vector<std::byte> ri;
  encode(op, right, &ri);
  encode(op, n, &img);
  const WriteBack wb[] = {{right_addr, ri.data(), s.cfg.node_bytes}, {l.addr, img.data(), s.cfg.node_bytes}};
  if (Status st = co_await write_and_release(op, l.grant, wb); !ok(st)) co_return Result<bool>{st, true};
  co_return Result<bool>{co_await insert_internal(op, sep, right_addr, 1), true};
}

Task<Result<bool>> do_remove(Op& op, uint64_t key) {
  State& s = op.s;
  const NodeFormat& f = s.format;
  Locked l;
  if (Status st = co_await lock_covering(op, key, 0, &l); !ok(st)) co_return Result<bool>{st, false};
  Node& n = l.node;
  const int slot = n.find(key);
  if (SpeculativeCache* sc = s.spec(op.w())) sc->drop(key);
  if (slot < 0) co_return Result<bool>{co_await s.hocl.unlock(op.ctx, l.grant), false};
  const auto i = static_cast<uint32_t>(slot);
  std::vector<std::byte> img;
  bool alone = false;
  if (f.sorted_leaves()) {
    n.entries.erase(n.entries.begin() + slot);
  } else {
    // Cleared in place (key 0), versions bumped; no merging (tree.h).
    n.entries[i] = {0, 0, static_cast<uint8_t>((n.entries[i].version + 1) & 0xf), false};
    alone = f.entry_writable(i);
  }
  if (!alone) n.version = static_cast<uint16_t>(n.version + 1);
  encode(op, n, &img);
  const WriteBack wb[] = {alone ? WriteBack{l.addr + f.entry_offset(i), img.data() + f.entry_offset(i),
                                            f.entry_bytes()}
                                : WriteBack{l.addr, img.data(), s.cfg.node_bytes}};
  co_return Result<bool>{co_await write_and_release(op, l.grant, wb), true};
}

// SMART-BT's fast path: READ the entry alone at the cached address. Why
// taking it when it holds the key is linearizable: the entry lies inside
// one line, which the NIC reads atomically, so the READ returns the line as
// it was at one instant t. Every change of a key's value is a write of the
// one slot that holds it, under the leaf's lock; a key leaves a slot only
// by a write of that slot (remove: key 0) or of the whole node (split: the
// moved slots are cleared in the node's new image, which lands after the
// sibling holding the key, with the same value, is written); nodes are
// never freed or reused, and a leaf never again holds a key that left its
// fences. So a slot that shows the key at t shows its value at t: the
// lookup takes effect at t. Otherwise the mapping is dropped and the
// lookup goes the regular way.
Task<std::optional<uint64_t>> speculate(Op& op, SpeculativeCache& sc, uint64_t key) {
  State& s = op.s;
  const std::optional<RemoteAddr> at = sc.find(key);
  if (!at) co_return std::nullopt;
  std::byte buf[kCacheLine];
  LW_CHECK(s.format.entry_bytes() <= sizeof buf && at->offset() / kCacheLine ==
                                                       (at->offset() + s.format.entry_bytes() - 1) / kCacheLine);
  if (Status st = co_await op.ctx.read(buf, *at, s.format.entry_bytes()); !ok(st)) co_return std::nullopt;
  const LeafEntry e = s.format.decode_entry(buf);
  if (e.key == key) {
    s.stats.speculative_hits.fetch_add(1, std::memory_order_relaxed);
    co_return e.value;
  }
  s.stats.speculative_misses.fetch_add(1, std::memory_order_relaxed);
  sc.drop(key);
  co_return std::nullopt;
}

// Fig. 9: READ the leaf, node check, entry check, move right past splits.
Task<Result<Tree::Found>> do_lookup(Op& op, uint64_t key) {
  State& s = op.s;
  SpeculativeCache* sc = s.spec(op.w());
  if (sc) {
    if (std::optional<uint64_t> v = co_await speculate(op, *sc, key)) co_return Result<Tree::Found>{Status::kOk, {true, *v}};
  }
  Route r;
  bool routed = false;
  Node n;
  std::vector<std::byte> img;
  for (;;) {
    if (!routed) {
      if (Status st = co_await locate(op, key, 0, &r); !ok(st)) co_return Result<Tree::Found>{st, {}};
      routed = true;
    }
    if (Status st = co_await read_node(op, r.addr, false, &n, &img); !ok(st)) co_return Result<Tree::Found>{st, {}};
    if (!n.is_leaf() || n.free || key < n.low) {
      drop_route(op, r, key);
      s.stats.restarts.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Result<Tree::Found>{Status::kRetryExhausted, {}};
      routed = false;
      continue;
    }
    if (key >= n.high) {
      LW_CHECK_MSG(!n.sibling.is_null(), "a leaf with a finite high fence and no sibling");
      drop_route(op, r, key);
      s.stats.sibling_hops.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Result<Tree::Found>{Status::kRetryExhausted, {}};
      r = {n.sibling, {}};
      continue;
    }
    const int slot = n.find(key);
    if (slot < 0) co_return Result<Tree::Found>{Status::kOk, {false, 0}};
    const LeafEntry& e = n.entries[static_cast<size_t>(slot)];
    if (e.torn) {  // two-level entry check (FEV != REV): re-read
      s.stats.torn_reads.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Result<Tree::Found>{Status::kRetryExhausted, {}};
      continue;
    }
    if (sc && s.format.entry_writable(static_cast<uint32_t>(slot)))
      sc->put(key, r.addr + s.format.entry_offset(static_cast<uint32_t>(slot)));
    co_return Result<Tree::Found>{Status::kOk, {true, e.value}};
  }
}

// Range: the leaves the level-1 cache knows for [from, to) are READ in
// parallel (a batch per memory node, all awaited together); then the leaf chain is walked from
// `from`: each leaf is taken from those READs when it was read there
// (its address is its predecessor's sibling, or the route for `from`), else
// READ now. Following the siblings' addresses makes the chain complete: a
// leaf that split after its READ was read whole before the split.
Task<Result<uint32_t>> do_range(Op& op, uint64_t from, uint64_t to, std::vector<std::pair<uint64_t, uint64_t>>* out,
                                uint32_t limit) {
  State& s = op.s;
  const uint32_t nb = s.cfg.node_bytes;
  uint32_t appended = 0;
  if (from >= to || limit == 0) co_return Result<uint32_t>{Status::kOk, 0};
  // The leaves the cache knows, READ in parallel.
  std::vector<RemoteAddr> leaves;
  for (const CachedNode& c : s.cache(op.w()).covering(from, to))
    for (size_t i = 0; i < c.children.size(); ++i) {
      const uint64_t lo = i == 0 ? c.low : c.separators[i - 1];
      const uint64_t hi = i + 1 == c.children.size() ? c.high : c.separators[i];
      if (lo < to && from < hi) leaves.push_back(c.children[i]);
    }
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  std::vector<std::byte> buf(leaves.size() * nb);
  std::vector<std::pair<RemoteAddr, size_t>> fetched;  // address -> index in buf
  // Rounds of one batch per memory node (its next 16 leaves at most: one
  // batch per queue pair keeps within the queue depth), each round posted
  // together and awaited once (Worker::execute_all; at most
  // kMaxBatchesAwaited nodes a round). Leaves are sorted by address, so each
  // node's are a run: [next[k], end[k]).
  std::vector<size_t> next, end;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (i == 0 || leaves[i].node() != leaves[i - 1].node()) {
      next.push_back(i);
      end.push_back(i);
    }
  for (size_t k = 0; k < end.size(); ++k) end[k] = k + 1 < next.size() ? next[k + 1] : leaves.size();
  std::vector<Batch> batches;
  std::vector<Batch*> group;
  for (;;) {
    batches.clear();
    const size_t group_first = fetched.size();
    for (size_t k = 0; k < next.size() && batches.size() < Worker::kMaxBatchesAwaited; ++k) {
      if (next[k] == end[k]) continue;
      Batch& b = batches.emplace_back();
      for (; next[k] < end[k] && b.size() < Batch::kMax; ++next[k]) {
        b.read(buf.data() + next[k] * nb, leaves[next[k]], nb);
        fetched.push_back({leaves[next[k]], next[k]});
      }
    }
    if (batches.empty()) break;
    group.clear();
    for (Batch& b : batches) group.push_back(&b);
    const Nanos t0 = wrap_clock(op, /*locked=*/false);
    if (Status st = co_await op.ctx.execute_all(group); !ok(st)) co_return Result<uint32_t>{st, appended};
    if (past_wrap_bound(op, t0, /*locked=*/false)) {
      // Past the wrap-around bound: these images are not trusted.
      s.stats.wrap_retries.fetch_add(1, std::memory_order_relaxed);
      fetched.resize(group_first);
    }
  }
  std::vector<std::pair<uint64_t, uint64_t>> got;
  uint64_t p = from;
  RemoteAddr cur;
  Route r;
  Node n;
  std::vector<std::byte> img;
  while (p < to && appended < limit) {
    if (cur.is_null()) {
      if (Status st = co_await locate(op, p, 0, &r); !ok(st)) co_return Result<uint32_t>{st, appended};
      cur = r.addr;
    }
    auto it = std::find_if(fetched.begin(), fetched.end(), [&](const auto& f) { return f.first == cur; });
    bool have = false;
    if (it != fetched.end()) {
      charge_node_check(op);
      have = s.format.decode(buf.data() + it->second * nb, &n);
      if (have) charge_node_search(op, n);
      if (!have) s.stats.torn_reads.fetch_add(1, std::memory_order_relaxed);
      fetched.erase(it);  // used once; a retry READs it again
    }
    if (!have)
      if (Status st = co_await read_node(op, cur, false, &n, &img); !ok(st)) co_return Result<uint32_t>{st, appended};
    if (!n.is_leaf() || n.free || p < n.low) {
      drop_route(op, r, p);
      r = {};
      s.stats.restarts.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Result<uint32_t>{Status::kRetryExhausted, appended};
      cur = {};
      continue;
    }
    if (p >= n.high) {
      LW_CHECK(!n.sibling.is_null());
      s.stats.sibling_hops.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Result<uint32_t>{Status::kRetryExhausted, appended};
      cur = n.sibling;
      continue;
    }
    const uint64_t end = std::min(n.high, to);
    got.clear();
    bool torn = false;
    for (const LeafEntry& e : n.entries)
      if (e.key >= p && e.key < end) {
        torn = torn || e.torn;
        got.push_back({e.key, e.value});
      }
    if (torn) {  // two-level entry check failed: READ this leaf again
      s.stats.torn_reads.fetch_add(1, std::memory_order_relaxed);
      if (!op.retry()) co_return Result<uint32_t>{Status::kRetryExhausted, appended};
      continue;
    }
    std::sort(got.begin(), got.end());
    for (const auto& kv : got) {
      if (appended >= limit) break;
      out->push_back(kv);
      ++appended;
    }
    if (n.high >= to || n.high == kInfinity) break;
    LW_CHECK(!n.sibling.is_null());
    p = n.high;
    cur = n.sibling;
    r = {};
  }
  co_return Result<uint32_t>{Status::kOk, appended};
}

void check_key(uint64_t key) { LW_CHECK_MSG(key >= kMinKey && key <= kMaxKey, "keys are in [1, 2^63)"); }

}  // namespace

// ---------------------------------------------------------------------------
// Operations: each opens one runtime operation and closes it on every path.

Task<Result<Tree::Found>> Tree::lookup(smart::Context& ctx, uint64_t key) const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  check_key(key);
  co_await ctx.begin_op(kLookup);
  Op op{ctx, *state_};
  const Result<Found> r = co_await do_lookup(op, key);
  ctx.end_op(r.ok());
  co_return r;
}

Task<Result<bool>> Tree::insert(smart::Context& ctx, uint64_t key, uint64_t value) const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  check_key(key);
  co_await ctx.begin_op(kInsert);
  Op op{ctx, *state_};
  const Result<bool> r = co_await do_insert(op, key, value);
  ctx.end_op(r.ok());
  co_return r;
}

Task<Result<bool>> Tree::remove(smart::Context& ctx, uint64_t key) const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  check_key(key);
  co_await ctx.begin_op(kRemove);
  Op op{ctx, *state_};
  const Result<bool> r = co_await do_remove(op, key);
  ctx.end_op(r.ok());
  co_return r;
}

Task<Result<uint32_t>> Tree::range(smart::Context& ctx, uint64_t from, uint64_t to,
                                   std::vector<std::pair<uint64_t, uint64_t>>* out, uint32_t limit) const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  LW_CHECK(out != nullptr);
  co_await ctx.begin_op(kRange);
  Op op{ctx, *state_};
  const Result<uint32_t> r = co_await do_range(op, std::max(from, kMinKey), to, out, limit);
  ctx.end_op(r.ok());
  co_return r;
}

}  // namespace lw::sherman
