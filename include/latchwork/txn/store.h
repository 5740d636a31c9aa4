// The partitioned transactional store (DrTM+H §3.1, §5): tables of records
// (txn/record.h) sharded over the store's nodes, each partition on a primary
// and replicas - 1 backups (DrTM+H §5: 3-way replication, a primary and two
// backups), with a DrTM-KV-like hash index per node and table (cluster
// hashing: one-sided lookups READ a bucket, then the record).
//
// The store's nodes are the backend's memory nodes. Symmetric designs
// (DrTM+H, FaRM, DrTM+R, FaSST) run their coordinators on those nodes'
// threads; disaggregated ones (FORD, SMART-DTX) on compute nodes.
//
// Per node, per table, the store allocates:
//   index:   `buckets` buckets of 64 bytes, 4 slots each
//              0         8         16        24   ...   56        64
//              +---------+---------+---------+--  ...  -+---------+
//              | key0+1  | off0    | key1+1  |          | off3    |
//              +---------+---------+---------+--  ...  -+---------+
//            key + 1 (0: empty slot); off: the record's offset on this node.
//            A key lives in bucket hash(table, key) % buckets or, when that
//            is full, in one of the next max_probe - 1 buckets (wrapping).
//   records: every record this node holds for the table (primary or backup
//            copies), record_bytes(payload) each, contiguous.
// and per node one log area: a ring of log_ring_bytes per coordinator, in
// which coordinators write redo logs (or FORD's undo logs) for this node.
//
// Set-up is host-side: a StoreLoader collects every initial record, a
// StorePlan (store_plan.h) lays the tables out, then build() allocates on
// every node and writes the images (bulk host writes). Every process of a multi-process verbs run builds the
// same store in the same order and so gets the same addresses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/txn/record.h"
#include "latchwork/verbs/backend.h"

namespace lw::txn {

using TableId = uint16_t;
inline constexpr uint32_t kMaxTables = 16;
inline constexpr uint32_t kBucketSlots = 4;
inline constexpr uint32_t kBucketBytes = 64;
static_assert(kBucketSlots * 16 == kBucketBytes);

struct TableSpec {
  std::string name;
  uint32_t payload_bytes = 8;  // <= kMaxPayloadBytes
  bool operator==(const TableSpec&) const = default;
};

// Where a record lives: the workload names its primary node.
using HomeFn = std::function<NodeId(TableId table, uint64_t key, uint32_t nodes)>;

struct StoreOptions {
  uint32_t nodes = 1;                 // memory nodes used, 0 .. nodes-1
  uint32_t replicas = 3;              // primary + backups; clamped to nodes
  uint32_t coordinators = 1;          // log rings per node
  uint64_t log_ring_bytes = 16 << 10; // per coordinator per node
  double index_load = 0.5;            // records per slot at most (sizes `buckets`)
  uint32_t max_probe = 8;             // buckets a lookup may read; build() fails beyond
  std::string shared_name;            // "": private; else allocate_shared names (multi-process)
  // Write the initial images (false: only lay out and allocate; another
  // process of a multi-process run writes them, then a barrier).
  bool write_images = true;
  // Each memory node's bytes (0: not checked). StorePlan::make refuses a
  // store that cannot fit them before it lays the records out, which for a
  // large store is most of the loading time.
  uint64_t node_bytes = 0;
  std::string validate() const;
};

// How every "the store does not fit" error begins (StorePlan::make,
// Store::build): callers tell inputs that are too large from other failures.
inline constexpr const char* kStoreDoesNotFit = "the store does not fit memory node ";

struct StorePlan;

class StoreLoader {
 public:
  // An initial record; a (table, key) may be added once.
  void add(TableId table, uint64_t key, std::span<const std::byte> payload);
  // Room for `records` more records of `payload_bytes` in all (a hint: the
  // large loads then grow no vector, each growth a copy of all before it).
  void reserve(size_t records, size_t payload_bytes);
  size_t records() const;
  // Equal records in the same order (a loader still following its
  // reference compares as the records it has seen).
  bool operator==(const StoreLoader& o) const;

  // Before the first add(): the records will likely be `plan`'s again (a
  // StorePlanCache candidate). While they are, add() only compares them
  // with the plan's and stores nothing; at the first difference it copies
  // the plan's records so far and goes on as any loader.
  void expect(std::shared_ptr<const StorePlan> plan);
  // After the last add(): every record was the expected plan's, and as many.
  bool loaded_expected() const;
  // The records as a loader of its own (a no-op unless it followed a plan).
  void settle();

 private:
  friend class Store;
  friend struct StorePlan;
  friend class StorePlanCache;
  struct Row {
    TableId table;
    uint64_t key;
    uint64_t payload_at;  // in blob_
    uint32_t bytes;
    bool operator==(const Row&) const = default;
  };
  std::vector<Row> rows_;
  std::vector<std::byte> blob_;
  std::shared_ptr<const StorePlan> expected_;  // while following it
  size_t matched_ = 0;                         // its records seen so far
};

// Where one table lives on one node.
struct TablePlacement {
  RemoteAddr index;          // bucket 0
  uint64_t buckets = 0;
  uint32_t max_probe = 1;    // buckets a lookup reads at most
  RemoteAddr records;        // the first record
  uint64_t record_count = 0;
};

// The bucket a key hashes to in a table of `buckets` (its probe chain starts there).
uint64_t store_bucket(TableId t, uint64_t key, uint64_t buckets);

class Store {
 public:
  // Lays out `tables` for the loader's records over o.nodes memory nodes of
  // `b` and writes them. nullptr and *error on failure (memory full, a probe
  // chain longer than max_probe, a duplicate key, a payload too long).
  static std::unique_ptr<Store> build(Backend& b, std::vector<TableSpec> tables, HomeFn home, StoreLoader loader,
                                      const StoreOptions& o, std::string* error);
  // The same from a plan made for the same home function and for options
  // with the same layout fields (nodes, replicas, index_load, max_probe):
  // allocates in the same order and writes the plan's images. While node
  // memory reuse is in effect (repro, check) and where the backend installs
  // host images, a store built before from the same plan at the same
  // addresses lends its memory image instead, and a first build leaves its
  // image in the set-up store (store_images.cpp).
  static std::unique_ptr<Store> build(Backend& b, std::shared_ptr<const StorePlan> plan, HomeFn home,
                                      const StoreOptions& o, std::string* error);

  const StoreOptions& options() const { return o_; }
  uint32_t nodes() const { return o_.nodes; }
  uint32_t replicas() const { return replicas_; }
  const std::vector<TableSpec>& tables() const;
  uint32_t payload_bytes(TableId t) const { return tables().at(t).payload_bytes; }
  uint32_t record_bytes(TableId t) const { return txn::record_bytes(payload_bytes(t)); }

  // Replica r (0 = primary) of a record's partition.
  NodeId node_of(TableId t, uint64_t key, uint32_t replica = 0) const;
  const TablePlacement& placement(NodeId node, TableId t) const;
  // The bucket a key hashes to (its probe chain starts there).
  uint64_t bucket_of(TableId t, uint64_t key, uint64_t buckets) const { return store_bucket(t, key, buckets); }
  // Decodes one bucket: the record offset of `key`, or 0 if absent there.
  static uint64_t find_in_bucket(std::span<const std::byte, kBucketBytes> bucket, uint64_t key);

  // Host-side (outside run()): the record's address on replica r, from the
  // store's own directory; null if the key was never loaded.
  RemoteAddr address(TableId t, uint64_t key, uint32_t replica = 0) const;
  // Host-side read of a record; false if absent.
  bool host_read(TableId t, uint64_t key, uint32_t replica, RecordView* view, std::span<std::byte> payload) const;
  // Every loaded key of a table, in load order.
  const std::vector<uint64_t>& keys(TableId t) const;

  // Coordinator c's log ring on `node`.
  RemoteAddr log_ring(NodeId node, uint32_t coordinator) const;

  Backend& backend() const { return b_; }

 private:
  Store(Backend& b, StoreOptions o) : b_(b), o_(std::move(o)) {}
  Backend& b_;
  StoreOptions o_;
  uint32_t replicas_ = 1;
  HomeFn home_;
  // The layout and the host-side directory; shared with other stores built
  // from the same plan (StorePlanCache), never changed.
  std::shared_ptr<const StorePlan> plan_;
  std::vector<std::vector<TablePlacement>> placement_;  // [node][table]
  std::vector<RemoteAddr> logs_;                        // [node]
  // build(): each index image with its heap's offset, then every copy's
  // record image into its heap, in load order.
  void write_indexes();
  void write_records();
  // Every index and record heap, in build order, and its bytes: with the
  // plan, what decides the bytes build() writes (the log rings start zero
  // and stay out: runs that differ only in coordinators share an image).
  struct Allocations {
    std::vector<RemoteAddr> at;
    std::vector<uint64_t> bytes;
  };
  // The images of an earlier build of the same plan and allocations,
  // installed on every node; false (then write them) if there are none.
  bool install_images(const Allocations& a);
  // After the writes: each node's allocations, first to last, kept.
  void capture_images(const Allocations& a) const;
};

}  // namespace lw::txn
