// A store's layout, computed on the host before anything is allocated: each
// record copy's slot in its node's heap, each (node, table)'s bucket index
// image, and the host-side directory (store.h draws the bytes).
//
// A plan depends only on the records, the tables, the home function's
// answers and the layout fields of StoreOptions (nodes, replicas, index_load,
// max_probe), never on a backend, so runs that load the same data can share
// one (StorePlanCache) and only allocate and write. Immutable once made.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "latchwork/txn/store.h"

namespace lw::txn {

struct StorePlan {
  // A record's slot (its index in the heap) on each replica's node.
  struct DirEntry {
    uint64_t key;
    uint32_t slot[4];  // replicas <= 4
  };
  // One table on one node.
  struct Part {
    uint64_t buckets = 0;
    uint32_t max_probe = 1;
    uint64_t record_count = 0;
    // buckets x 64 bytes; a used slot's offset is relative to the heap's
    // first record until build() writes it.
    std::vector<std::byte> index;
  };

  std::vector<TableSpec> tables;
  uint32_t nodes = 1;
  uint32_t replicas = 1;  // StoreOptions::replicas clamped to nodes
  double index_load = 0.5;
  uint32_t max_probe = 8;
  StoreLoader loader;                        // the records as loaded
  std::vector<NodeId> row_primary;           // [row], the home function's answer
  std::vector<DirEntry> row_dir;             // [row], in load order
  std::vector<std::vector<DirEntry>> dir;    // [table], sorted by key
  std::vector<std::vector<uint64_t>> keys;   // [table], in load order
  std::vector<std::vector<Part>> parts;      // [node][table]

  uint32_t record_bytes(TableId t) const { return txn::record_bytes(tables.at(t).payload_bytes); }
  // Host memory the plan holds.
  uint64_t bytes() const;
  // Whether `o` lays out as this plan (its layout fields match).
  bool fits(const StoreOptions& o) const;

  // The checks of the options and tables that come before any record's:
  // "" or what is wrong.
  static std::string check_shape(const std::vector<TableSpec>& tables, const StoreOptions& o);
  // Every row's primary node, checking tables and home's answers; empty and
  // *error on failure.
  static std::vector<NodeId> primaries(const std::vector<TableSpec>& tables, const HomeFn& home,
                                       const StoreLoader& loader, uint32_t nodes, std::string* error);
  // With o.node_bytes set: "" or why a node cannot hold its record copies,
  // their smallest index and its log rings (kStoreDoesNotFit ...), from the
  // rows and their primaries alone, before any layout is built.
  static std::string fit_error(const StorePlan& s, const StoreOptions& o);
  // The plan; nullptr and *error on failure (a bad option or table, an
  // unknown table, a reserved or duplicate key, a payload too long, a probe
  // chain longer than max_probe, a store larger than o.node_bytes).
  static std::shared_ptr<const StorePlan> make(std::vector<TableSpec> tables, const HomeFn& home, StoreLoader loader,
                                               const StoreOptions& o, std::string* error);
  // The same with the primaries already computed (by primaries()).
  static std::shared_ptr<const StorePlan> make(std::vector<TableSpec> tables, std::vector<NodeId> row_primary,
                                               StoreLoader loader, const StoreOptions& o, std::string* error);
};

}  // namespace lw::txn
