// RACE hashing as SMART reimplemented it: layout, operations, host side.
// What the table promises is in the header; this file draws the bytes and
// says why each step is where it is.
#include "latchwork/structures/race/hash_table.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "latchwork/base/assert.h"
#include "latchwork/base/layout.h"
#include "latchwork/base/random.h"
#include "latchwork/verbs/chunk_allocator.h"

namespace lw::race {
namespace {

// ---------------------------------------------------------------------------
// Slot: one 8-byte word, changed only by CAS (so a reader sees it whole).
//
//   63        56 55        48 47          38 37                          0
//   +-----------+------------+--------------+----------------------------+
//   | fingerprnt|  length    | memory node  | block offset / 64          |
//   +-----------+------------+--------------+----------------------------+
//
// 0 is an empty slot. A used slot has length >= 1 (in 64-byte units; every
// block here is one line), so it is never 0 whatever its fingerprint. The
// pointer is RemoteAddr-style but packed into 48 bits: blocks are 64-byte
// aligned, so the offset's low 6 bits are dropped; 10 node bits cover
// ClusterConfig::kMaxNodes and 38 line bits cover 16 TiB per node.
constexpr int kNodeBits = 10;
constexpr int kLineBits = 38;
constexpr uint64_t kLineMask = (uint64_t{1} << kLineBits) - 1;
static_assert(kNodeBits + kLineBits == 48);
static_assert((uint64_t{1} << kNodeBits) >= ClusterConfig::kMaxNodes);
static_assert((uint64_t{1} << kLineBits) * kCacheLine >= ClusterConfig::kMaxMemoryNodeBytes);

uint64_t make_slot(uint8_t fp, uint8_t len, RemoteAddr block) {
  LW_CHECK(len >= 1 && block.offset() % kCacheLine == 0 && block.node() < (1u << kNodeBits));
  LW_CHECK((block.offset() / kCacheLine) <= kLineMask);
  return uint64_t{fp} << 56 | uint64_t{len} << 48 | uint64_t{block.node()} << kLineBits |
         block.offset() / kCacheLine;
}
uint8_t slot_fp(uint64_t w) { return static_cast<uint8_t>(w >> 56); }
uint8_t slot_len(uint64_t w) { return static_cast<uint8_t>(w >> 48); }
RemoteAddr slot_block(uint64_t w) {
  return RemoteAddr(static_cast<NodeId>((w >> kLineBits) & ((1u << kNodeBits) - 1)), (w & kLineMask) * kCacheLine);
}

// ---------------------------------------------------------------------------
// Bucket: one cache line, so the NIC reads it whole (every profile keeps an
// aligned line atomic), a header word and 7 slots, as RACE's.
//
//   0        8        16       24       32       40       48       56      64
//   +--------+--------+--------+--------+--------+--------+--------+--------+
//   | header | slot 0 | slot 1 | slot 2 | slot 3 | slot 4 | slot 5 | slot 6 |
//   +--------+--------+--------+--------+--------+--------+--------+--------+
//   header: local depth (u32) | suffix (u32, the subtable's index)
//
// RACE keeps local depth and suffix in every bucket so that a reader can
// tell a bucket moved by a concurrent split. Without resizing they never
// change after create(); host_contents() checks they were not overwritten.
constexpr uint32_t kSlotsPerBucket = 7;
struct Bucket {
  uint32_t local_depth;
  uint32_t suffix;
  uint64_t slots[kSlotsPerBucket];
};
static_assert(sizeof(Bucket) == kCacheLine);
static_assert(offsetof(Bucket, slots) == kWord);
static_assert(std::is_trivially_copyable_v<Bucket>);

// Group: three buckets, two main buckets sharing one overflow bucket.
//
//   0              64             128            192
//   +--------------+--------------+--------------+
//   | main 2g      | overflow g   | main 2g+1    |
//   +--------------+--------------+--------------+
//   \__ combined bucket 2g ______/
//                  \__ combined bucket 2g+1 _____/
//
// A combined bucket (a main bucket and its overflow) is 128 contiguous bytes:
// one READ fetches both (RACE §3.2). Even main buckets start their combined
// bucket at the group, odd ones one bucket later.
constexpr uint64_t kBucketsPerGroup = 3;
constexpr uint64_t kGroupBytes = kBucketsPerGroup * sizeof(Bucket);
constexpr uint64_t kCombinedBytes = 2 * sizeof(Bucket);
constexpr uint64_t kSlotsPerGroup = kBucketsPerGroup * kSlotsPerBucket;
static_assert(kGroupBytes == 192 && kCombinedBytes == 128);

// A subtable: groups_per_subtable groups, contiguous, on memory node
// (subtable index) % memory nodes. The directory (2^global_depth subtable
// addresses, picked by the low bits of the first hash, RACE's suffix) never
// changes without resizing, so every client holds it (State) and no READ
// fetches it.

// ---------------------------------------------------------------------------
// Key-value block: one aligned line, written once before it is published and
// never changed or reclaimed afterwards.
//
//   0        8        16       24                                      64
//   +--------+--------+--------+---------------------------------------+
//   | key    | value  | check  | zero                                  |
//   +--------+--------+--------+---------------------------------------+
//
// `check` is a hash of key and value. The correct protocol never lets a
// reader follow a slot to a block that has not landed, so a published block
// that fails it (zeros: not landed; another pair: its WRITE's source was
// overwritten before the NIC read it) is a broken invariant, not a retry.
struct Block {
  uint64_t key;
  uint64_t value;
  uint64_t check;
  uint64_t zero[5];
};
static_assert(sizeof(Block) == kCacheLine);
constexpr uint8_t kBlockLines = sizeof(Block) / kCacheLine;

uint64_t mix(uint64_t v, uint64_t seed) {
  uint64_t s = v ^ seed;
  return splitmix64(s);
}
uint64_t block_check(uint64_t key, uint64_t value) { return mix(key ^ mix(value, 0x5ace'b10c), 0xc4ec'4ba5e); }
Block make_block(uint64_t key, uint64_t value) {
  Block b{};
  b.key = key;
  b.value = value;
  b.check = block_check(key, value);
  return b;
}
bool block_valid(const Block& b) { return b.key != 0 && b.check == block_check(b.key, b.value); }

// Where a key may live: its subtable, two main buckets in it (distinct
// groups, so the four buckets read are distinct), and its fingerprint.
struct KeyHash {
  uint32_t subtable = 0;
  uint64_t main[2] = {0, 0};
  uint8_t fp = 0;
};

// Every slot of a key's four buckets as read, ascending by address.
struct Snapshot {
  struct Entry {
    RemoteAddr addr;
    uint64_t word = 0;
  };
  RemoteAddr combined[2];              // by hash function
  Bucket buf[2][2];                    // [hash function][bucket in memory order]
  std::array<Entry, 4 * kSlotsPerBucket> entries;
};

// Slots holding a key, ascending by address: [0] is the copy that counts.
struct Matches {
  struct Match {
    RemoteAddr slot;
    uint64_t word = 0;
    uint64_t value = 0;
  };
  std::array<Match, 4 * kSlotsPerBucket> m;
  uint32_t n = 0;
};

std::string describe_block(RemoteAddr slot, uint64_t word, const Block& b) {
  std::ostringstream o;
  o << "slot " << slot.to_string() << " = 0x" << std::hex << word << std::dec << " publishes block "
    << slot_block(word).to_string() << " holding {key " << b.key << ", value " << b.value << ", check 0x"
    << std::hex << b.check << std::dec
    << "}, which does not validate: the slot was published before the block's WRITE landed "
       "(or the WRITE sent a reused buffer)";
  return o.str();
}

// Host writes are bounded like verbs (kMaxTransferBytes): large ranges go in pieces.
void host_write_all(Backend& b, RemoteAddr at, const std::byte* src, uint64_t bytes) {
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min<uint64_t>(bytes - done, kMaxTransferBytes);
    b.host_write(at + done, src + done, n);
    done += n;
  }
}
void host_read_all(Backend& b, RemoteAddr at, std::byte* dst, uint64_t bytes) {
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min<uint64_t>(bytes - done, kMaxTransferBytes);
    b.host_read(at + done, dst + done, n);
    done += n;
  }
}

}  // namespace

// ---------------------------------------------------------------------------
struct HashTable::State {
  TableConfig cfg;
  ClusterConfig cluster;  // the run's, for thread slots
  uint32_t memory_nodes = 0;
  uint32_t global_depth = 0;
  uint32_t subtables = 0;
  uint64_t groups = 0;  // per subtable
  std::vector<RemoteAddr> subtable_base;

  // Per thread slot (compute threads, then memory-node threads), one
  // allocator per memory node, shared by the thread's coroutines (as
  // ChunkAllocator allows) and made on first use by one of them: the outer
  // vector is sized at create() and never resized, so threads (real ones
  // on the threads backend) never touch the same element.
  std::vector<std::vector<std::unique_ptr<ChunkAllocator>>> allocators;
  // Host-side (host_insert: one host thread, outside run()), per node.
  std::vector<std::unique_ptr<ChunkAllocator>> host_allocators;
  // Host inserts so far, and where host_load's blocks went on each node
  // ([lo, hi) offsets; lo > hi while none): what host_image() copies.
  uint64_t host_inserts = 0;
  uint64_t loaded_records = 0;  // by the one host_load of a fresh table, else 0
  std::vector<std::pair<uint64_t, uint64_t>> block_span;
  void note_block(RemoteAddr at) {
    auto& [lo, hi] = block_span[at.node()];
    lo = std::min(lo, at.offset());
    hi = std::max<uint64_t>(hi, at.offset() + sizeof(Block));
  }

  // Copies removed by duplicate resolution (any thread: atomic).
  std::atomic<uint64_t> duplicates_removed{0};

  KeyHash hash(uint64_t key) const {
    const uint64_t h1 = mix(key, 0x9e37'79b9'7f4a'7c15ull);
    const uint64_t h2 = mix(key, 0xc2b2'ae3d'27d4'eb4full);
    KeyHash h;
    h.subtable = static_cast<uint32_t>(h1 & (subtables - 1));
    const uint64_t mains = 2 * groups;
    h.main[0] = (h1 >> 20) % mains;
    h.main[1] = (h2 >> 20) % mains;
    // Two main buckets of one group share their overflow bucket: move the
    // second to the next group so the four buckets read are distinct.
    if (h.main[1] / 2 == h.main[0] / 2) h.main[1] = (h.main[1] + 2) % mains;
    // Bits 12..19 of the first hash: used by neither the subtable (at most
    // 10 bits: ClusterConfig::kMaxNodes) nor the buckets (bits 20 up).
    static_assert(ClusterConfig::kMaxNodes <= (1u << 12));
    h.fp = static_cast<uint8_t>(h1 >> 12);
    return h;
  }
  // hash(key) on a compute thread: the CPU time is charged to it.
  KeyHash hash(Worker& w, uint64_t key) const {
    w.compute(CpuWork::kKeyHash, 1);
    return hash(key);
  }
  RemoteAddr group_addr(const KeyHash& h, uint64_t main) const {
    return subtable_base[h.subtable] + (main / 2) * kGroupBytes;
  }
  RemoteAddr combined_addr(const KeyHash& h, int which) const {
    const uint64_t m = h.main[which];
    return group_addr(h, m) + (m % 2) * sizeof(Bucket);
  }
  // Key-value blocks go to the memory node after the slot's, so that the
  // block's WRITE and the slot's CAS travel on different queue pairs (the
  // ordering the correct variant must establish by waiting).
  NodeId block_node(const KeyHash& h) const {
    return static_cast<NodeId>((h.subtable % memory_nodes + 1) % memory_nodes);
  }

  ChunkAllocator& allocator(const Worker& w, NodeId node) {
    const size_t t = thread_index(cluster, w.placement());
    LW_CHECK_MSG(t < allocators.size(), "a thread the table was not created for");
    auto& per_node = allocators[t];
    if (per_node.empty()) per_node.resize(memory_nodes);
    LW_CHECK(node < per_node.size());
    if (!per_node[node]) per_node[node] = std::make_unique<ChunkAllocator>(node, cfg.block_chunk_bytes);
    return *per_node[node];
  }
  ChunkAllocator& host_allocator(NodeId node) {
    LW_CHECK(node < host_allocators.size());
    if (!host_allocators[node]) host_allocators[node] = std::make_unique<ChunkAllocator>(node, cfg.block_chunk_bytes);
    return *host_allocators[node];
  }

  void fill_entries(Snapshot* s) const {
    // The two combined buckets lie in different groups: order them by address.
    const int lo = s->combined[0] < s->combined[1] ? 0 : 1;
    size_t k = 0;
    for (int c : {lo, 1 - lo})
      for (uint32_t b = 0; b < 2; ++b)
        for (uint32_t i = 0; i < kSlotsPerBucket; ++i)
          s->entries[k++] = {s->combined[c] + b * sizeof(Bucket) + offsetof(Bucket, slots) + i * kWord,
                             s->buf[c][b].slots[i]};
    LW_CHECK(k == s->entries.size());
  }
};

// ---------------------------------------------------------------------------
const char* to_string(OpKind k) {
  switch (k) {
    case kLookup: return "lookup";
    case kInsert: return "insert";
    case kUpdate: return "update";
    case kRemove: return "remove";
  }
  return "?";
}

const char* to_string(Variant v) {
  switch (v) {
    case Variant::kCorrect: return "correct";
    case Variant::kUnorderedPublish: return "unordered-publish";
  }
  return "?";
}

std::string TableConfig::validate() const {
  if (capacity == 0 || capacity > kMaxCapacity) return "capacity must be in [1, 2^32]";
  if (!(max_load > 0.0 && max_load <= 1.0)) return "max_load must be in (0, 1]";
  if (max_attempts == 0) return "max_attempts must be positive";
  if (block_chunk_bytes < kCacheLine || block_chunk_bytes % kCacheLine != 0 || block_chunk_bytes > (1ull << 30))
    return "block_chunk_bytes must be a multiple of 64 in [64, 2^30]";
  if (variant != Variant::kCorrect && variant != Variant::kUnorderedPublish) return "unknown variant";
  return {};
}

const TableConfig& HashTable::config() const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  return state_->cfg;
}

uint64_t HashTable::duplicates_removed() const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  return state_->duplicates_removed.load(std::memory_order_relaxed);
}

TableShape HashTable::shape() const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  return {state_->subtables, state_->global_depth, state_->groups,
          uint64_t{state_->subtables} * state_->groups * kSlotsPerGroup};
}

Result<HashTable> HashTable::create(Backend& b, const TableConfig& cfg) {
  if (!cfg.validate().empty()) return {Status::kBadLength, {}};
  const ClusterConfig& c = b.config();
  LW_CHECK(c.memory_nodes >= 1 && c.memory_nodes <= ClusterConfig::kMaxNodes);
  auto s = std::make_shared<State>();
  s->cfg = cfg;
  s->cluster = c;
  s->memory_nodes = c.memory_nodes;
  // At least one subtable per memory node (RACE spreads subtables over the
  // nodes); a power of two, so that the directory is indexed by hash bits.
  while ((1u << s->global_depth) < c.memory_nodes) ++s->global_depth;
  s->subtables = 1u << s->global_depth;
  const uint64_t slots = static_cast<uint64_t>(static_cast<double>(cfg.capacity) / cfg.max_load) + 1;
  const uint64_t groups_total = (slots + kSlotsPerGroup - 1) / kSlotsPerGroup;
  // Two groups at least: a key's two main buckets must lie in different groups.
  s->groups = std::max<uint64_t>(2, (groups_total + s->subtables - 1) / s->subtables);
  const uint64_t bytes = s->groups * kGroupBytes;
  if (bytes > c.memory_node_bytes) return {Status::kOutOfBounds, {}};

  // One subtable image: every bucket header says (local depth, suffix); the
  // slots stay zero (host memory comes zeroed, but a header is not zero).
  std::vector<Bucket> image(s->groups * kBucketsPerGroup);
  for (uint32_t t = 0; t < s->subtables; ++t) {
    const NodeId node = static_cast<NodeId>(t % c.memory_nodes);
    const bool shared = !cfg.shared_name.empty();
    RemoteAddr base;
    if (shared) {
      std::ostringstream name;
      name << cfg.shared_name << "/subtable" << t;
      base = b.allocate_shared(node, name.str(), bytes);
    } else {
      base = b.allocate(node, bytes, kCacheLine);
    }
    if (base.is_null()) return {Status::kOutOfBounds, {}};
    if (!shared) {
      for (Bucket& k : image) k = Bucket{s->global_depth, t, {}};
      host_write_all(b, base, reinterpret_cast<const std::byte*>(image.data()), bytes);
    } else {
      // Another process may have created this table already and be inserting
      // into it: writing the whole image would zero its slots. Read what is
      // there (in pieces, like the writes above) and write only the headers
      // that are not yet right: the first creator writes them all, later
      // ones none, and a header is the same 8 bytes in every process, so
      // concurrent creators agree.
      host_read_all(b, base, reinterpret_cast<std::byte*>(image.data()), bytes);
      const Bucket want{s->global_depth, t, {}};
      for (size_t i = 0; i < image.size(); ++i) {
        if (image[i].local_depth == want.local_depth && image[i].suffix == want.suffix) continue;
        b.host_write(base + i * sizeof(Bucket), &want, offsetof(Bucket, slots));
      }
    }
    s->subtable_base.push_back(base);
  }
  const size_t thread_slots = c.total_threads();
  s->allocators.resize(thread_slots);
  s->host_allocators.resize(c.memory_nodes);
  HashTable t;
  t.state_ = std::move(s);
  return {Status::kOk, std::move(t)};
}

// ---------------------------------------------------------------------------
// Remote steps shared by the operations.
namespace {

// Both combined buckets of `h` in one batch: they lie in one subtable, on
// one memory node, so this is one doorbell and one round trip for two READs.
Task<Status> read_buckets(smart::Context& ctx, const HashTable::State& s, const KeyHash& h, Snapshot* snap) {
  snap->combined[0] = s.combined_addr(h, 0);
  snap->combined[1] = s.combined_addr(h, 1);
  LW_CHECK(snap->combined[0].node() == snap->combined[1].node());
  Batch batch;
  batch.read(&snap->buf[0][0], snap->combined[0], kCombinedBytes);
  batch.read(&snap->buf[1][0], snap->combined[1], kCombinedBytes);
  const Status st = co_await ctx.execute(batch);
  if (ok(st)) s.fill_entries(snap);
  co_return st;
}

// The slots of `snap` holding `key`, ascending by address. Reads the blocks
// of fingerprint-matching slots in that order; with `all` false it stops at
// the first copy, the one that counts.
Task<Status> find(smart::Context& ctx, const Snapshot& snap, const KeyHash& h, uint64_t key, bool all,
                  Matches* out) {
  out->n = 0;
  ctx.worker().compute(CpuWork::kKeyScan, snap.entries.size());
  for (const Snapshot::Entry& e : snap.entries) {
    if (e.word == 0 || slot_fp(e.word) != h.fp) continue;
    LW_CHECK_MSG(slot_len(e.word) == kBlockLines, "a slot with a block length this table never writes");
    Block blk{};
    if (Status st = co_await ctx.read(&blk, slot_block(e.word), sizeof(Block)); !ok(st)) co_return st;
    LW_CHECK_MSG(block_valid(blk), describe_block(e.addr, e.word, blk));
    if (blk.key != key) continue;  // a fingerprint collision
    out->m[out->n++] = {e.addr, e.word, blk.value};
    if (!all) break;
  }
  co_return Status::kOk;
}

// An empty slot for a new copy of `h`'s key, in the combined bucket with
// more free slots (RACE balances the two), in its main bucket if that has
// room, else in its overflow bucket. Null when all 28 are taken. With a
// worker `w` (charged the scan) the slot is drawn from w's rng among the free ones of that bucket: inserts of different
// keys racing for one bucket then mostly take different slots instead of
// failing their CAS on the first free one (host_insert takes the first).
RemoteAddr choose_empty(const Snapshot& snap, const KeyHash& h, Worker* w) {
  Rng* rng = w ? &w->rng() : nullptr;
  if (w) w->compute(CpuWork::kKeyScan, snap.entries.size());
  uint32_t free[2] = {0, 0};
  for (int c = 0; c < 2; ++c)
    for (int b = 0; b < 2; ++b)
      for (uint64_t w : snap.buf[c][b].slots) free[c] += w == 0;
  const int first = free[1] > free[0] ? 1 : 0;
  for (int c : {first, 1 - first}) {
    const int main_bucket = static_cast<int>(h.main[c] % 2);  // even: first in memory, odd: second
    for (int b : {main_bucket, 1 - main_bucket}) {
      uint32_t n = 0;
      for (uint64_t w : snap.buf[c][b].slots) n += w == 0;
      if (n == 0) continue;
      uint64_t pick = rng ? rng->below(n) : 0;
      for (uint32_t i = 0; i < kSlotsPerBucket; ++i)
        if (snap.buf[c][b].slots[i] == 0 && pick-- == 0)
          return snap.combined[c] + b * sizeof(Bucket) + offsetof(Bucket, slots) + i * kWord;
    }
  }
  return {};
}

bool cas_succeeded(const Result<uint64_t>& r, uint64_t expected) { return r.ok() && r.value == expected; }

// A fresh block for `key`/`value`, allocated on the node after the key's
// subtable. The correct variant WRITEs it and waits for the completion
// before any CAS can publish it: the CAS goes to another node, on another
// queue pair, and nothing else orders the two. kUnorderedPublish leaves the
// WRITE for publish_unordered().
struct PendingBlock {
  RemoteAddr addr;
  Block image{};
  bool written = false;
};

Task<Status> prepare_block(smart::Context& ctx, HashTable::State& s, const KeyHash& h, uint64_t key,
                           uint64_t value, PendingBlock* p) {
  p->image = make_block(key, value);
  p->addr = co_await s.allocator(ctx.worker(), s.block_node(h)).allocate(ctx.worker(), sizeof(Block), kCacheLine);
  if (p->addr.is_null()) co_return Status::kOutOfBounds;
  if (s.cfg.variant == Variant::kUnorderedPublish) co_return Status::kOk;
  const Status st = co_await ctx.write(p->addr, &p->image, sizeof(Block));
  p->written = ok(st);
  co_return st;
}

// The broken variant, just before its first CAS: the WRITE is posted
// unsignaled from the worker's post buffer and not waited for. The next
// operation refills that buffer, possibly before the NIC has read it.
Status publish_unordered(smart::Context& ctx, PendingBlock* p) {
  if (p->written) return Status::kOk;
  Worker& w = ctx.worker();
  std::span<std::byte> buf = w.post_buffer(p->addr.node(), sizeof(Block));
  std::memcpy(buf.data(), &p->image, sizeof(Block));
  Batch b;
  b.write(p->addr, buf.data(), sizeof(Block));
  p->written = true;
  return w.post(b);
}

}  // namespace

// ---------------------------------------------------------------------------
// Operations. Each opens one runtime operation and closes it on every path.

Task<Result<HashTable::Found>> HashTable::lookup(smart::Context& ctx, uint64_t key) const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  LW_CHECK_MSG(key != 0, "key 0 marks nothing");
  co_await ctx.begin_op(kLookup);
  const KeyHash h = state_->hash(ctx.worker(), key);
  Result<Found> r;
  Snapshot snap;
  r.status = co_await read_buckets(ctx, *state_, h, &snap);
  if (r.ok()) {
    Matches m;
    r.status = co_await find(ctx, snap, h, key, /*all=*/false, &m);
    if (r.ok() && m.n > 0) r.value = {true, m.m[0].value};
  }
  ctx.end_op(r.ok());
  co_return r;
}

Task<Result<bool>> HashTable::insert(smart::Context& ctx, uint64_t key, uint64_t value) const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  LW_CHECK_MSG(key != 0, "key 0 marks nothing");
  co_await ctx.begin_op(kInsert);
  State& s = *state_;
  const KeyHash h = s.hash(ctx.worker(), key);
  Result<bool> r;
  PendingBlock p;
  r.status = co_await prepare_block(ctx, s, h, key, value, &p);
  const uint64_t desired = ok(r.status) ? make_slot(h.fp, kBlockLines, p.addr) : 0;
  uint32_t attempts = 0;
  bool published = false;
  // Phase 1: publish, as an update of the copy that counts when the key is
  // present, else into an empty slot.
  while (r.ok() && !published) {
    if (attempts >= s.cfg.max_attempts) {
      r.status = Status::kRetryExhausted;
      break;
    }
    Snapshot snap;
    Matches m;
    if (r.status = co_await read_buckets(ctx, s, h, &snap); !r.ok()) break;
    if (r.status = co_await find(ctx, snap, h, key, false, &m); !r.ok()) break;
    RemoteAddr target;
    uint64_t expected = 0;
    if (m.n > 0) {
      target = m.m[0].slot;
      expected = m.m[0].word;
    } else if (target = choose_empty(snap, h, &ctx.worker()); target.is_null()) {
      r.status = Status::kOutOfBounds;  // both combined buckets full; no resizing
      break;
    }
    if (r.status = publish_unordered(ctx, &p); !r.ok()) break;
    ++attempts;
    const Result<uint64_t> c = co_await ctx.backoff_cas(target, expected, desired);
    if (!c.ok()) {
      r.status = c.status;
      break;
    }
    if (c.value != expected) continue;  // lost a race for the slot: re-read
    published = true;
    r.value = expected == 0;
  }
  // Phase 2 (a new copy only): two inserts of one absent key may both have
  // found it absent and taken different empty slots. Re-read and remove every
  // copy but the lowest-addressed one, which is the one lookups return, so
  // removing the others changes no lookup's answer.
  while (r.ok() && published && r.value) {
    if (attempts >= s.cfg.max_attempts) {
      r.status = Status::kRetryExhausted;
      break;
    }
    Snapshot snap;
    Matches m;
    if (r.status = co_await read_buckets(ctx, s, h, &snap); !r.ok()) break;
    if (r.status = co_await find(ctx, snap, h, key, true, &m); !r.ok()) break;
    if (m.n <= 1) break;
    bool all_removed = true;
    for (uint32_t i = m.n - 1; i >= 1 && all_removed; --i) {
      ++attempts;
      const Result<uint64_t> c = co_await ctx.backoff_cas(m.m[i].slot, m.m[i].word, 0);
      if (!c.ok()) r.status = c.status;
      all_removed = cas_succeeded(c, m.m[i].word);
      if (all_removed) s.duplicates_removed.fetch_add(1, std::memory_order_relaxed);
    }
    if (all_removed) break;  // else a copy changed under us: re-read
  }
  ctx.end_op(r.ok());
  co_return r;
}

Task<Result<bool>> HashTable::update(smart::Context& ctx, uint64_t key, uint64_t value) const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  LW_CHECK_MSG(key != 0, "key 0 marks nothing");
  co_await ctx.begin_op(kUpdate);
  State& s = *state_;
  const KeyHash h = s.hash(ctx.worker(), key);
  Result<bool> r;
  PendingBlock p;
  r.status = co_await prepare_block(ctx, s, h, key, value, &p);
  const uint64_t desired = ok(r.status) ? make_slot(h.fp, kBlockLines, p.addr) : 0;
  for (uint32_t attempts = 0; r.ok();) {
    if (attempts >= s.cfg.max_attempts) {
      r.status = Status::kRetryExhausted;
      break;
    }
    Snapshot snap;
    Matches m;
    if (r.status = co_await read_buckets(ctx, s, h, &snap); !r.ok()) break;
    if (r.status = co_await find(ctx, snap, h, key, false, &m); !r.ok()) break;
    if (m.n == 0) break;  // absent: the block stays unpublished (never reclaimed)
    if (r.status = publish_unordered(ctx, &p); !r.ok()) break;
    ++attempts;
    const Result<uint64_t> c = co_await ctx.backoff_cas(m.m[0].slot, m.m[0].word, desired);
    if (!c.ok()) {
      r.status = c.status;
      break;
    }
    if (c.value == m.m[0].word) {
      r.value = true;
      break;
    }
  }
  ctx.end_op(r.ok());
  co_return r;
}

Task<Result<bool>> HashTable::remove(smart::Context& ctx, uint64_t key) const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  LW_CHECK_MSG(key != 0, "key 0 marks nothing");
  co_await ctx.begin_op(kRemove);
  State& s = *state_;
  const KeyHash h = s.hash(ctx.worker(), key);
  Result<bool> r;
  for (uint32_t attempts = 0;;) {
    if (attempts >= s.cfg.max_attempts) {
      r.status = Status::kRetryExhausted;
      break;
    }
    Snapshot snap;
    Matches m;
    if (r.status = co_await read_buckets(ctx, s, h, &snap); !r.ok()) break;
    if (r.status = co_await find(ctx, snap, h, key, true, &m); !r.ok()) break;
    if (m.n == 0) break;
    // Highest address first: while a duplicate exists, clearing the copy
    // that counts first would let a lookup see the next copy's value.
    bool all_removed = true;
    for (uint32_t i = m.n; i-- > 0 && all_removed;) {
      ++attempts;
      const Result<uint64_t> c = co_await ctx.backoff_cas(m.m[i].slot, m.m[i].word, 0);
      if (!c.ok()) r.status = c.status;
      all_removed = cas_succeeded(c, m.m[i].word);
      r.value = r.value || all_removed;
    }
    if (!r.ok() || all_removed) break;
  }
  ctx.end_op(r.ok());
  co_return r;
}

// ---------------------------------------------------------------------------
// Host side.

namespace {

// host_insert's work; `*block` is where the record's block went.
Status insert_on_host(HashTable::State& s, Backend& b, uint64_t key, uint64_t value, RemoteAddr* block) {
  LW_CHECK_MSG(key != 0, "key 0 marks nothing");
  ++s.host_inserts;
  const KeyHash h = s.hash(key);
  Snapshot snap;
  snap.combined[0] = s.combined_addr(h, 0);
  snap.combined[1] = s.combined_addr(h, 1);
  b.host_read(snap.combined[0], &snap.buf[0][0], kCombinedBytes);
  b.host_read(snap.combined[1], &snap.buf[1][0], kCombinedBytes);
  s.fill_entries(&snap);
  // The copy that counts, if any: the first slot in address order whose block holds the key.
  RemoteAddr target;
  for (const Snapshot::Entry& e : snap.entries) {
    if (e.word == 0 || slot_fp(e.word) != h.fp) continue;
    Block blk{};
    b.host_read(slot_block(e.word), &blk, sizeof(Block));
    if (blk.key == key) {
      target = e.addr;
      break;
    }
  }
  if (target.is_null() && (target = choose_empty(snap, h, nullptr)).is_null()) return Status::kOutOfBounds;
  // Blocks from host chunks, carved as the workers' are: one Backend::allocate per chunk.
  const RemoteAddr at = s.host_allocator(s.block_node(h)).allocate(b, sizeof(Block), kCacheLine);
  if (at.is_null()) return Status::kOutOfBounds;
  const Block blk = make_block(key, value);
  b.host_write(at, &blk, sizeof(Block));
  b.host_store(target, make_slot(h.fp, kBlockLines, at));
  *block = at;
  return Status::kOk;
}

}  // namespace

Status HashTable::host_insert(Backend& b, uint64_t key, uint64_t value) const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  RemoteAddr block;
  return insert_on_host(*state_, b, key, value, &block);
}

LoadLayout HashTable::load_layout() const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  const State& s = *state_;
  return LoadLayout{s.cfg.capacity, s.cfg.max_load, s.cfg.block_chunk_bytes, s.cfg.shared_name, s.groups,
                    s.subtable_base};
}

uint64_t HostLoadImage::bytes() const {
  uint64_t n = records.size() * sizeof(records[0]);
  for (const Range& r : ranges) n += r.bytes.size();
  return n;
}

bool HashTable::fits(const HostLoadImage& image, const HostRecords& records) const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  return image.layout == load_layout() && image.records == records;
}

Status HashTable::host_load(Backend& b, const HostRecords& records, const HostLoadImage* image,
                            size_t* failed) const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  State& s = *state_;
  LW_CHECK_MSG(s.host_inserts == 0, "host_load into a table that holds host inserts");
  s.block_span.assign(s.memory_nodes, {~uint64_t{0}, 0});
  if (image == nullptr) {
    for (size_t i = 0; i < records.size(); ++i) {
      RemoteAddr at;
      if (Status st = insert_on_host(s, b, records[i].first, records[i].second, &at); !ok(st)) {
        if (failed) *failed = i;
        return st;
      }
      s.note_block(at);
    }
    s.loaded_records = records.size();
    return Status::kOk;
  }
  LW_CHECK_MSG(fits(*image, records), "a host load image of other records or another layout");
  // Blocks allocated in host_insert's order, from the same allocators: they
  // must take exactly the image's spans.
  for (const auto& record : records) {
    const KeyHash h = s.hash(record.first);
    const RemoteAddr at = s.host_allocator(s.block_node(h)).allocate(b, sizeof(Block), kCacheLine);
    LW_CHECK_MSG(!at.is_null(), "a host load image's block allocation failed where the load's did not");
    ++s.host_inserts;
    s.note_block(at);
  }
  LW_CHECK_MSG(s.block_span == image->block_span, "a host load image's blocks were allocated elsewhere");
  for (const HostLoadImage::Range& r : image->ranges)
    host_write_all(b, r.at, r.bytes.data(), r.bytes.size());
  s.loaded_records = records.size();
  return Status::kOk;
}

std::shared_ptr<const HostLoadImage> HashTable::host_image(Backend& b, const HostRecords& records) const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  const State& s = *state_;
  if (s.loaded_records != records.size() || s.host_inserts != records.size()) return nullptr;
  auto image = std::make_shared<HostLoadImage>();
  image->records = records;
  image->cfg = s.cfg;
  image->layout = load_layout();
  image->block_span = s.block_span;
  auto add = [&](RemoteAddr at, uint64_t bytes) {
    HostLoadImage::Range& r = image->ranges.emplace_back();
    r.at = at;
    r.bytes.resize(bytes);
    host_read_all(b, at, r.bytes.data(), bytes);
  };
  for (const RemoteAddr& base : s.subtable_base) add(base, s.groups * kGroupBytes);
  for (NodeId n = 0; n < s.block_span.size(); ++n) {
    const auto [lo, hi] = s.block_span[n];
    if (lo < hi) add(RemoteAddr(n, lo), hi - lo);
  }
  return image;
}

Result<std::map<uint64_t, uint64_t>> HashTable::host_contents(Backend& b, std::string* why) const {
  LW_CHECK_MSG(state_, "an empty HashTable handle");
  const State& s = *state_;
  Result<std::map<uint64_t, uint64_t>> r;
  std::map<uint64_t, RemoteAddr> where;  // key -> its slot, to name both copies of a duplicate
  auto corrupt = [&](const std::string& what) {
    r.status = Status::kBadLength;
    if (why) *why = what;
    return r;
  };
  std::vector<Bucket> image(s.groups * kBucketsPerGroup);
  for (uint32_t t = 0; t < s.subtables; ++t) {
    host_read_all(b, s.subtable_base[t], reinterpret_cast<std::byte*>(image.data()),
                  image.size() * sizeof(Bucket));
    for (size_t k = 0; k < image.size(); ++k) {
      const Bucket& bucket = image[k];
      const RemoteAddr bucket_addr = s.subtable_base[t] + k * sizeof(Bucket);
      if (bucket.local_depth != s.global_depth || bucket.suffix != t) {
        std::ostringstream o;
        o << "bucket " << bucket_addr.to_string() << " header overwritten: local depth " << bucket.local_depth
          << ", suffix " << bucket.suffix << " (expected " << s.global_depth << ", " << t << ")";
        return corrupt(o.str());
      }
      for (uint32_t i = 0; i < kSlotsPerBucket; ++i) {
        const uint64_t w = bucket.slots[i];
        if (w == 0) continue;
        const RemoteAddr slot = bucket_addr + offsetof(Bucket, slots) + i * kWord;
        Block blk{};
        if (slot_len(w) == kBlockLines) b.host_read(slot_block(w), &blk, sizeof(Block));
        if (slot_len(w) != kBlockLines || !block_valid(blk)) return corrupt(describe_block(slot, w, blk));
        // The slot must be one of the key's 28 and carry its fingerprint.
        const KeyHash h = s.hash(blk.key);
        // Bucket k is in group k / 3 at position k % 3: 0 the even main
        // bucket, 1 the shared overflow, 2 the odd main bucket.
        const uint64_t group = k / kBucketsPerGroup, pos = k % kBucketsPerGroup;
        auto reaches = [&](uint64_t main) { return main / 2 == group && (pos == 1 || pos == 2 * (main % 2)); };
        const bool in_place = h.subtable == t && slot_fp(w) == h.fp && (reaches(h.main[0]) || reaches(h.main[1]));
        if (!in_place) {
          std::ostringstream o;
          o << "slot " << slot.to_string() << " holds key " << blk.key << " outside its buckets or fingerprint";
          return corrupt(o.str());
        }
        if (auto [it, fresh] = where.emplace(blk.key, slot); !fresh) {
          std::ostringstream o;
          o << "key " << blk.key << " is in two slots: " << it->second.to_string() << " and " << slot.to_string();
          return corrupt(o.str());
        }
        r.value.emplace(blk.key, blk.value);
      }
    }
  }
  return r;
}

}  // namespace lw::race
