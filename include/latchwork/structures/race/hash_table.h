// RACE hashing (Zuo et al., "One-sided RDMA-Conscious Extendible Hashing for
// Disaggregated Memory", ATC 2021) as SMART reimplemented it (Ren et al.,
// SMART, §5.2, §6.2.1): a lock-free hash table on disaggregated memory that
// compute nodes reach with one-sided verbs only.
//
// SMART-HT is this table driven through a smart::Context with the runtime's
// policies on (ClusterConfig::smart); RACE is the same code with them off.
// The table itself does not know which it is.
//
// What the table does (the byte layout is drawn in hash_table.cpp):
//   - Keys and values are 8 bytes; keys are non-zero. Each key-value pair
//     lives out of place in a 64-byte key-value block, written once and then
//     published by a CAS of an 8-byte slot (fingerprint, length, pointer).
//     Published blocks are immutable. Blocks are never reclaimed: an update
//     or remove leaves the old block behind, and a block whose publishing CAS
//     failed stays allocated but unreachable. (RACE frees them; freeing safely
//     needs a reclamation scheme this table does not have.)
//   - A key hashes to one subtable (spread round-robin over the memory
//     nodes) and, inside it, to two combined buckets (RACE: a main bucket and
//     the overflow bucket it shares with its neighbour, 128 contiguous bytes).
//     Both lie on one memory node, so a lookup posts their two READs as one
//     batch (one round trip), then READs the key-value block: three READs,
//     two round trips when the key is found. Key-value blocks go to the
//     next memory node, so a block and the slot publishing it are on
//     different queue pairs whenever there are two or more memory nodes.
//   - A key present in several slots (two inserts of one absent key raced
//     into different empty slots) has the value of its slot at the lowest
//     address. Inserters re-read after publishing and remove every copy but
//     that one (RACE's deterministic duplicate resolution); lookups, updates
//     and removes act on that copy too, and removes clear copies highest
//     address first, so the value a lookup sees changes only at a CAS.
//   - No resizing: the extendible directory is fixed at create() (its
//     subtables sized from TableConfig::capacity and max_load) and held by
//     every client. An insert whose two combined buckets are full fails with
//     Status::kOutOfBounds.
//   - Every slot change is a Context::backoff_cas (SMART's conflict
//     avoidance applies); a failed CAS re-reads and retries, at most
//     TableConfig::max_attempts CAS attempts per operation, then the
//     operation fails with Status::kRetryExhausted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "latchwork/base/status.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/verbs/backend.h"

namespace lw::race {

// Operation kinds for the runtime's per-operation statistics.
enum OpKind : uint32_t { kLookup = 0, kInsert = 1, kUpdate = 2, kRemove = 3 };
const char* to_string(OpKind k);

// Deliberately broken variants that `latchwork check` must catch.
enum class Variant : uint8_t {
  kCorrect,
  // Posts the key-value block's WRITE unsignaled and CASes the slot at once,
  // without waiting for the WRITE to complete. The block lives on another
  // memory node than the slot (another queue pair), so nothing orders the
  // two: a lookup can follow the slot to a block that has not landed; and
  // the WRITE's source buffer is reused by the next operation while the NIC
  // may not have read it yet.
  kUnorderedPublish,
};
const char* to_string(Variant v);

struct TableConfig {
  uint64_t capacity = 1u << 20;  // keys the table must hold (sizes the buckets)
  double max_load = 0.5;         // capacity / slots: the slots are capacity / max_load
  // CAS attempts per operation before it fails with kRetryExhausted.
  uint32_t max_attempts = 4096;
  // Key-value blocks come from chunks of this size that each compute thread
  // takes from a memory node by RPC (ChunkAllocator, shared by the thread's
  // coroutines) and carves locally.
  uint64_t block_chunk_bytes = 64u << 10;
  Variant variant = Variant::kCorrect;
  // Empty: a private table. Otherwise subtable i is Backend::allocate_shared
  // (node, shared_name + "/subtable" + i), so every process of a run that
  // creates the table under this name (with the same config and cluster
  // shape) gets the same table: the first allocation comes zeroed and
  // create() writes only bucket headers, which are the same bytes in every
  // process, so a late create() never clobbers keys another process already
  // inserted. Blocks still come from per-process chunks (disjoint: a memory
  // node never hands out an address twice).
  std::string shared_name;
  static constexpr uint64_t kMaxCapacity = uint64_t{1} << 32;
  // An error message naming the bad field, or "".
  std::string validate() const;
};

// Where the table's buckets lie, for tests and reports.
struct TableShape {
  uint32_t subtables = 0;         // 2^global_depth, subtable i on memory node i % memory nodes
  uint32_t global_depth = 0;
  uint64_t groups_per_subtable = 0;  // groups of three buckets (two main, one overflow)
  uint64_t slots = 0;             // over every subtable
};

// Keys are 8-byte and non-zero (0 marks nothing); values are 8-byte.
// A HashTable is a small handle: copies share the same remote table and the
// same per-thread block allocators; it is safe to use from every worker at
// once.
// The records of a load phase, (key, value) in load order.
using HostRecords = std::vector<std::pair<uint64_t, uint64_t>>;

// Where a load puts records: the fields of a table that decide it (the
// variant and retry bound only change what runs do). A load image is
// installed only in a table of an equal layout.
struct LoadLayout {
  uint64_t capacity = 0;
  double max_load = 0;
  uint64_t block_chunk_bytes = 0;
  std::string shared_name;
  uint64_t groups = 0;                    // per subtable
  std::vector<RemoteAddr> subtable_base;  // where the table lives
  bool operator==(const LoadLayout&) const = default;
};

// What a host load left in node memory, to put the same records into a table
// of the same layout on another backend without inserting them one by one
// (a figure's points load the same keys, and each insert reads two random
// buckets: a load was a third of SMART Fig. 7's wall time). Exact: it keeps
// the records and the layout it was made from, and is used only where both
// are equal (HashTable::host_load).
struct HostLoadImage {
  HostRecords records;
  TableConfig cfg;
  LoadLayout layout;  // of the table it was made on
  // Per memory node, the [lo, hi) offsets its blocks took: a restore's block
  // allocations must end up exactly there.
  std::vector<std::pair<uint64_t, uint64_t>> block_span;
  // The bytes the load wrote: each subtable and, per node, its blocks' span.
  struct Range {
    RemoteAddr at;
    std::vector<std::byte> bytes;
  };
  std::vector<Range> ranges;
  uint64_t bytes() const;  // held in memory, about
};

class HashTable {
 public:
  // An empty handle; only create() makes a usable table.
  HashTable() = default;

  // Allocates the subtables over every memory node and writes their bucket
  // headers (host-side, before run()). kBadLength for a config that does not
  // validate(); kOutOfBounds when the nodes are too small (or, shared, when
  // the name exists with another size).
  static Result<HashTable> create(Backend& b, const TableConfig& cfg);

  struct Found {
    bool found = false;
    uint64_t value = 0;
  };
  // The value of `key`. Three READs when present (two bucket READs in one
  // batch, then the key-value block), more only on fingerprint collisions.
  Task<Result<Found>> lookup(smart::Context& ctx, uint64_t key) const;
  // Inserts or, when the key exists, updates. The value is whether it
  // inserted. kOutOfBounds: the key's two combined buckets are full, or the
  // block's memory node has no chunk left.
  Task<Result<bool>> insert(smart::Context& ctx, uint64_t key, uint64_t value) const;
  // Updates an existing key; false when absent (its block stays
  // unpublished). kOutOfBounds when the block's node has no chunk left.
  Task<Result<bool>> update(smart::Context& ctx, uint64_t key, uint64_t value) const;
  // Removes a key (every copy, highest address first); false when absent.
  Task<Result<bool>> remove(smart::Context& ctx, uint64_t key) const;

  // Host-side, outside run(): inserts or updates without coroutines (the
  // load phase). kOutOfBounds when the key's buckets or the nodes are full.
  Status host_insert(Backend& b, uint64_t key, uint64_t value) const;
  // Host-side, outside run(), on a table nothing was inserted into yet:
  // host_insert of each record in order. With `image` (of these records, on a
  // table of this layout: fits()), the same end state without the inserts:
  // each record's block is allocated as host_insert allocates it (so the
  // allocators and the nodes' free space end where they would), then the
  // image's bytes are written.
  // On failure, `*failed` (if given) is the index of the record that failed.
  Status host_load(Backend& b, const HostRecords& records, const HostLoadImage* image = nullptr,
                   size_t* failed = nullptr) const;
  // Whether `image` was made from `records` on a table of this layout.
  bool fits(const HostLoadImage& image, const HostRecords& records) const;
  // The image of the load host_load(records) just made (without an image);
  // null when anything else was inserted.
  std::shared_ptr<const HostLoadImage> host_image(Backend& b, const HostRecords& records) const;
  // Host-side, after run(): every key and value the table holds, for exact
  // final-state checks. On a corrupt table (a key in two slots, a slot
  // pointing at a block that does not validate or belongs in other buckets,
  // a bucket header overwritten) the status is kBadLength and `why` (if
  // given) says what was found where.
  Result<std::map<uint64_t, uint64_t>> host_contents(Backend& b, std::string* why = nullptr) const;

  const TableConfig& config() const;
  TableShape shape() const;
  LoadLayout load_layout() const;
  // Copies removed by inserts' duplicate resolution so far (every worker).
  uint64_t duplicates_removed() const;
  bool valid() const { return static_cast<bool>(state_); }

  struct State;  // layout, directory and per-thread allocators (hash_table.cpp)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace lw::race
