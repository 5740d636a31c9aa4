// Sherman, a write-optimized B+Tree on disaggregated memory (Wang et al.,
// SIGMOD'22, §4), its per-cache-line successor SMART-BT (Ren et al., SMART
// §5.2) and the FG+ baseline (Sherman §5.1.2), on one code base.
//
// The tree (§4.2.1) is a B-link tree over the memory nodes: every node has
// fence keys [low, high), a level (leaves are 0), a free bit and a sibling
// pointer, so an operation that reaches a node which split under it follows
// the sibling. Leaves are unsorted (Sherman, SMART-BT) or sorted (FG+);
// internal nodes are sorted. Nodes are node_bytes (1 KB by default) and come
// from 8 MB chunks each compute thread takes from a memory node by RPC
// (§4.2.4, ChunkAllocator), round-robin over the memory nodes.
//
// Writers lock the node (HOCL, locks/hocl.h; FG+: host-memory CAS locks
// without hierarchy), READ it, change it and write back. Readers never lock;
// how they detect a node read while a writer changed it is the Scheme:
//   kTwoLevel  Sherman §4.4: 4-bit front/rear node versions (FNV/RNV) and,
//              around each leaf entry, front/rear entry versions (FEV/REV).
//              An entry change writes the entry only; a split bumps the node
//              versions and writes the node. A READ taking longer than
//              version_wrap_ns retries when wrap_rule is kBounded (the 4-bit
//              wrap-around rule of §4.4's text; WrapRule). This
//              trusts the NIC to fetch a node in increasing address order
//              (Sherman footnote 5), which the RDMA contract does not give.
//   kPerLine   SMART §5.2 (FaRM's per-cache-line versions): every 64-byte
//              line of a node starts with the node's version; a node-level
//              write sets it in every line, a reader accepts a node whose
//              lines agree. Leaf entries never straddle a line, so an entry
//              change (one line, atomic) writes the entry only.
//   kFgPlus    FG+: sorted nodes, the whole node written back on every
//              change, a CRC-64 over the node checked by readers.
//
// Operations: lookup, insert (an update when the key exists), remove (the
// entry is cleared; nodes never merge: an emptied leaf stays in the tree,
// which Sherman's text allows, "merging may be lazy"), and range (parallel
// READs of the leaves covering [from, to), each checked like a lookup; not
// atomic with writers, §4.4, but every key is read at some instant inside
// the call and none is missed).
//
// Index cache (§4.2.3): each compute node caches the top two levels always
// and level-1 nodes in a cache bounded by cache_bytes that evicts by power
// of two choices. An entry leading to a node whose fences or level do not
// fit is dropped and the operation retraverses.
//
// Keys are uint64 in [1, 2^63); each key occupies key_bytes in a node (the
// rest zero padding: Fig. 15a's key sizes). Values are uint64.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "latchwork/base/status.h"
#include "latchwork/config/cluster_config.h"
#include "latchwork/locks/hocl.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/verbs/backend.h"

namespace lw::sherman {

enum class Scheme : uint8_t { kTwoLevel, kPerLine, kFgPlus };
const char* to_string(Scheme s);
// "two-level" | "per-line" | "fg+"; false if unknown.
bool parse_scheme(const std::string& s, Scheme* out);

// Operation kinds for the runtime's per-operation statistics (Fig. 14).
enum OpKind : uint32_t { kLookup = 0, kInsert = 1, kRemove = 2, kRange = 3 };
const char* to_string(OpKind k);

inline constexpr uint64_t kMinKey = 1;
inline constexpr uint64_t kMaxKey = (uint64_t{1} << 63) - 1;

// When a two-level reader distrusts an image whose versions agree (§4.4): a
// 4-bit version that wrapped around during the READ (16 writes to one entry,
// or 16 splits of one node) passes the check.
//   kCheckOnly  Sherman's artifact: the node and entry version checks alone;
//               a READ is retried only when a check fails.
//   kBounded    §4.4's text: a READ slower than version_wrap_ns (2^4 x 0.5 us)
//               is retried however its versions compare. Under load a READ
//               queues past 8 us and every operation retries (Fig. 13's
//               528-coroutine points and Fig. 15's large keys collapse).
enum class WrapRule : uint8_t { kCheckOnly, kBounded };
const char* to_string(WrapRule r);
// "check" | "bounded"; false if unknown.
bool parse_wrap_rule(const std::string& s, WrapRule* out);

// Deliberately broken variants that `latchwork check` must catch.
enum class Variant : uint8_t {
  kCorrect,
  // Fig. 6's literal order: the local lock is passed on (with the global
  // lock, when handing over) before the combined write-back is posted. The
  // next holder, on another QP, can READ the node before the write-back
  // lands and write back a stale image or lose an update.
  kEarlyHandover,
};

struct TreeConfig {
  Scheme scheme = Scheme::kTwoLevel;
  Variant variant = Variant::kCorrect;
  uint32_t node_bytes = 1024;  // a multiple of 64, 256 .. 65536
  uint32_t key_bytes = 8;      // 8 .. 1024, a multiple of 8
  // §4.5: write-back(s) and lock release posted as one list on one QP, only
  // the last signaled. Off: each WRITE awaited before the next.
  bool combine = true;
  locks::HoclConfig lock;      // the fg+ preset turns on_chip, hierarchical and handover off
  // SMART-BT's speculative lookup: a per-compute-node cache key -> entry
  // address; a lookup first READs that entry alone and takes it when it
  // holds the key (per-line only: the entry is inside one line).
  bool speculative_lookup = false;
  uint64_t speculative_entries = 1u << 20;  // per compute node; 0 = unbounded is not allowed
  uint64_t cache_bytes = 500ull << 20;      // level-1 index cache per compute node (§5.1.3)
  double bulk_fill = 0.8;      // bulk load fills leaves and internal nodes this full
  uint32_t max_attempts = 4096;  // re-reads, restarts and sibling hops per operation
  WrapRule wrap_rule = WrapRule::kCheckOnly;  // two-level: see WrapRule
  Nanos version_wrap_ns = 8000;  // kBounded: READs longer than this retry (§4.4)
  uint64_t chunk_bytes = 8ull << 20;  // §4.2.4
  // Several processes on one tree (verbs): the root word and the GLTs are
  // Backend::allocate_shared under this name; "" = a private tree.
  std::string shared_name;

  static constexpr uint32_t kMaxNodeBytes = 65536;
  // "" or a message naming the bad field.
  std::string validate() const;
  // Every field (a bulk load's image is reused only for equal options).
  bool operator==(const TreeConfig&) const = default;
};

// The indexes of the issue and the papers, as presets over TreeConfig and
// the cluster's SMART switches:
//   sherman    two-level, combination, HOCL on-chip + hierarchical + handover
//   sherman+   sherman with per-line versions (SMART §6.2.3)
//   smart-bt   sherman+ with speculative lookup on the SMART runtime
//              (throttling, backoff, dynamic limit, coroutine throttling;
//              per-thread doorbells)
//   fg+        FG+ (§5.1.2)
// False for an unknown name. The SMART switches are turned off for the
// three others.
bool apply_index_preset(const std::string& name, TreeConfig* t, ClusterConfig* c);

struct TreeStats {
  uint64_t leaf_splits = 0, internal_splits = 0, root_splits = 0;
  uint64_t cache_hits = 0, cache_misses = 0, cache_invalidations = 0, cache_evictions = 0;
  uint64_t speculative_hits = 0, speculative_misses = 0;
  uint64_t torn_reads = 0;       // node or entry reads that failed their check
  uint64_t wrap_retries = 0;     // two-level, kBounded: READs past version_wrap_ns
  uint64_t sibling_hops = 0;     // B-link moves right
  uint64_t restarts = 0;         // retraversals from the root
  locks::HoclStats lock;
};

class Tree {
 public:
  Tree() = default;

  // An empty tree (one leaf as the root) over the backend's memory nodes,
  // host-side before run(). kBadLength for a config that does not
  // validate(); kOutOfBounds when memory runs out.
  static Result<Tree> create(Backend& b, const TreeConfig& cfg);
  // Host-side, before run(), on an empty tree: builds the tree bottom-up
  // from `sorted` (strictly increasing keys), nodes bulk_fill full, spread
  // round-robin over the memory nodes. kBadLength for unsorted or
  // out-of-range keys.
  Status bulk_load(Backend& b, std::span<const std::pair<uint64_t, uint64_t>> sorted);

  // Host-side, after bulk_load: fills every compute node's index cache with
  // the top two levels and the level-1 nodes, as many as cache_bytes holds,
  // in key order: the state a long run reaches (Sherman measures seconds
  // with a 500 MB cache that holds them all, §5.1.3, §5.6.2). Without it,
  // every coroutine of a short simulated window starts by reading the top.
  void warm_cache(Backend& b) const;

  struct Found {
    bool found = false;
    uint64_t value = 0;
  };
  // kRetryExhausted after max_attempts re-reads or restarts.
  Task<Result<Found>> lookup(smart::Context& ctx, uint64_t key) const;
  // Inserts or updates; true when it inserted. kOutOfBounds when memory
  // runs out; kRetryExhausted as above or when the lock gives up.
  Task<Result<bool>> insert(smart::Context& ctx, uint64_t key, uint64_t value) const;
  // True when the key was present.
  Task<Result<bool>> remove(smart::Context& ctx, uint64_t key) const;
  // Appends the pairs with from <= key < to, in key order, to *out; at most
  // `limit` pairs. The value is the number appended.
  Task<Result<uint32_t>> range(smart::Context& ctx, uint64_t from, uint64_t to,
                               std::vector<std::pair<uint64_t, uint64_t>>* out,
                               uint32_t limit = 1u << 20) const;

  // Host-side, after run(): every pair in the tree, by walking the leaf
  // level; and the structure checked on the way (fences chain, keys inside
  // their leaf's fences, no key twice, node checks pass, every level's
  // sibling chain covers [kMinKey, +inf), every GLT lock free). On a
  // violation the status is kBadLength and `why` says what and where.
  Result<std::map<uint64_t, uint64_t>> host_contents(Backend& b, std::string* why = nullptr) const;

  const TreeConfig& config() const;
  // Levels, the leaf level included (1 for a lone root leaf).
  uint32_t height(Backend& b) const;
  uint32_t leaf_capacity() const;
  TreeStats stats() const;
  const locks::Hocl& lock() const;
  bool valid() const { return static_cast<bool>(state_); }

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace lw::sherman
