// Sherman's tree: names, config, presets, create() and the accessors. The
// operations are in tree_ops.cpp, bulk load and the host-side walk in
// tree_host.cpp, the node layouts in node_format.h.
#include <sstream>

#include "latchwork/base/assert.h"
#include "tree_internal.h"

namespace lw::sherman {

const char* to_string(Scheme s) {
  switch (s) {
    case Scheme::kTwoLevel: return "two-level";
    case Scheme::kPerLine: return "per-line";
    case Scheme::kFgPlus: return "fg+";
  }
  return "?";
}

bool parse_scheme(const std::string& s, Scheme* out) {
  for (Scheme v : {Scheme::kTwoLevel, Scheme::kPerLine, Scheme::kFgPlus})
    if (s == to_string(v)) {
      *out = v;
      return true;
    }
  return false;
}

const char* to_string(WrapRule r) {
  switch (r) {
    case WrapRule::kCheckOnly: return "check";
    case WrapRule::kBounded: return "bounded";
  }
  return "?";
}

bool parse_wrap_rule(const std::string& s, WrapRule* out) {
  for (WrapRule v : {WrapRule::kCheckOnly, WrapRule::kBounded})
    if (s == to_string(v)) {
      *out = v;
      return true;
    }
  return false;
}

const char* to_string(OpKind k) {
  switch (k) {
    case kLookup: return "lookup";
    case kInsert: return "insert";
    case kRemove: return "remove";
    case kRange: return "range";
  }
  return "?";
}

std::string TreeConfig::validate() const {
  if (scheme != Scheme::kTwoLevel && scheme != Scheme::kPerLine && scheme != Scheme::kFgPlus)
    return "scheme: unknown";
  if (node_bytes < 256 || node_bytes > kMaxNodeBytes || node_bytes % 64 != 0)
    return "node_bytes must be a multiple of 64 in [256, 65536]";
  if (key_bytes < 8 || key_bytes > 1024 || key_bytes % 8 != 0)
    return "key_bytes must be a multiple of 8 in [8, 1024]";
  const NodeFormat f(scheme, node_bytes, key_bytes);
  if (f.leaf_capacity() < 3 || f.internal_capacity() < 3)
    return "node_bytes too small for key_bytes: a node must hold at least 3 entries";
  if (std::string l = lock.validate(); !l.empty()) return "lock: " + l;
  if (speculative_lookup && scheme != Scheme::kPerLine)
    return "speculative_lookup needs the per-line scheme (an entry inside one line)";
  if (speculative_entries == 0) return "speculative_entries must be positive";
  if (!(bulk_fill > 0.0 && bulk_fill <= 1.0)) return "bulk_fill must be in (0, 1]";
  if (max_attempts == 0) return "max_attempts must be positive";
  if (wrap_rule != WrapRule::kCheckOnly && wrap_rule != WrapRule::kBounded) return "wrap_rule: unknown";
  if (version_wrap_ns == 0) return "version_wrap_ns must be positive";
  if (chunk_bytes < node_bytes || chunk_bytes % 64 != 0 || chunk_bytes > (1ull << 32))
    return "chunk_bytes must be a multiple of 64 in [node_bytes, 2^32]";
  return {};
}

bool apply_index_preset(const std::string& name, TreeConfig* t, ClusterConfig* c) {
  const bool smart = name == "smart-bt";
  if (name == "sherman" || name == "sherman+" || smart) {
    t->scheme = name == "sherman" ? Scheme::kTwoLevel : Scheme::kPerLine;
    t->combine = true;
    t->lock.on_chip = true;
    t->lock.hierarchical = true;
    t->lock.handover = true;
    t->speculative_lookup = smart;
  } else if (name == "fg+") {
    t->scheme = Scheme::kFgPlus;
    t->combine = false;
    t->lock.on_chip = false;
    t->lock.hierarchical = false;
    t->lock.handover = false;
    t->speculative_lookup = false;
  } else {
    return false;
  }
  c->smart.throttling = smart;
  c->smart.backoff = smart;
  c->smart.dynamic_limit = smart;
  c->smart.coroutine_throttling = smart;
  c->nic.qp_policy = smart ? QpPolicy::kPerThreadDoorbell : QpPolicy::kPerThreadQp;
  return true;
}

CachedNode to_cached(const Node& n, RemoteAddr addr) {
  LW_CHECK(!n.is_leaf());
  CachedNode c;
  c.addr = addr;
  c.level = n.level;
  c.low = n.low;
  c.high = n.high;
  c.separators = n.keys;
  c.children = n.children;
  return c;
}

Result<Tree> Tree::create(Backend& b, const TreeConfig& cfg) {
  if (!cfg.validate().empty()) return {Status::kBadLength, {}};
  const ClusterConfig& c = b.config();
  LW_CHECK(c.memory_nodes >= 1 && c.compute_nodes >= 1);
  auto s = std::make_shared<State>();
  s->cfg = cfg;
  s->cluster = c;
  s->memory_nodes = c.memory_nodes;
  s->format = NodeFormat(cfg.scheme, cfg.node_bytes, cfg.key_bytes);
  locks::HoclConfig lc = cfg.lock;
  // FG+'s locks (host CAS words, no hierarchy) come from the fg+ preset, not
  // from the scheme: Fig. 10's breakdown runs the FG+ layout with HOCL's parts.
  if (!cfg.shared_name.empty() && lc.shared_name.empty()) lc.shared_name = cfg.shared_name;
  Result<locks::Hocl> h = locks::Hocl::create(b, lc);
  if (!h.ok()) return {h.status, {}};
  s->hocl = std::move(h.value);

  const bool shared = !cfg.shared_name.empty();
  s->root_word = shared ? b.allocate_shared(0, cfg.shared_name + "/root", kWord) : b.allocate(0, kWord, kWord);
  if (s->root_word.is_null()) return {Status::kOutOfBounds, {}};
  s->host_allocators.resize(c.memory_nodes);
  s->allocators.resize(c.total_threads());
  for (uint32_t n = 0; n < c.compute_nodes; ++n) {
    s->caches.push_back(std::make_unique<IndexCache>(cfg.cache_bytes, c.seed * 0x9e3779b97f4a7c15ull + n + 1));
    s->speculative.push_back(std::make_unique<SpeculativeCache>(cfg.speculative_entries));
  }

  // Another process of a shared tree made it already: adopt, write nothing.
  if (b.host_load(s->root_word) == 0) {
    const RemoteAddr root = s->host_allocate(b);
    if (root.is_null()) return {Status::kOutOfBounds, {}};
    Node leaf = s->format.empty_leaf();
    leaf.low = kMinKey;
    leaf.high = kInfinity;
    std::vector<std::byte> img(cfg.node_bytes);
    s->format.encode(leaf, img.data());
    b.host_write(root, img.data(), img.size());
    b.host_store(s->root_word, root.raw());
  }
  Tree t;
  t.state_ = std::move(s);
  return {Status::kOk, std::move(t)};
}

const TreeConfig& Tree::config() const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  return state_->cfg;
}

uint32_t Tree::leaf_capacity() const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  return state_->format.leaf_capacity();
}

const locks::Hocl& Tree::lock() const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  return state_->hocl;
}

TreeStats Tree::stats() const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  const State& s = *state_;
  TreeStats t;
  t.leaf_splits = s.stats.leaf_splits.load();
  t.internal_splits = s.stats.internal_splits.load();
  t.root_splits = s.stats.root_splits.load();
  t.speculative_hits = s.stats.speculative_hits.load();
  t.speculative_misses = s.stats.speculative_misses.load();
  t.torn_reads = s.stats.torn_reads.load();
  t.wrap_retries = s.stats.wrap_retries.load();
  t.sibling_hops = s.stats.sibling_hops.load();
  t.restarts = s.stats.restarts.load();
  for (const auto& c : s.caches) {
    const IndexCacheStats cs = c->stats();
    t.cache_hits += cs.hits;
    t.cache_misses += cs.misses;
    t.cache_invalidations += cs.invalidations;
    t.cache_evictions += cs.evictions;
  }
  t.lock = s.hocl.stats();
  return t;
}

uint32_t Tree::height(Backend& b) const {
  LW_CHECK_MSG(state_, "an empty Tree handle");
  const State& s = *state_;
  const RemoteAddr root = RemoteAddr::from_raw(b.host_load(s.root_word));
  LW_CHECK_MSG(!root.is_null(), "the root word is not set");
  std::vector<std::byte> img(s.cfg.node_bytes);
  b.host_read(root, img.data(), img.size());
  Node n;
  std::string why;
  LW_CHECK_MSG(s.format.decode(img.data(), &n, &why), "the root node does not decode: " + why);
  return uint32_t{n.level} + 1;
}

}  // namespace lw::sherman
