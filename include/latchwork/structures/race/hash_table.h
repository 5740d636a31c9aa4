// RACE hashing (Zuo et al., ATC 2021) as SMART reimplemented it (SMART §5.2,
// §6.2.1): a one-sided, lock-free hash table on disaggregated memory.
// SMART-HT is this table driven through a smart::Context with the runtime's
// policies on; RACE is the same code with them off (and per-thread QPs that
// share doorbells). See hash_table.cpp for the remote layout.
#pragma once

#include <cstdint>
#include <map>
#include <string>

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
  // Publishes the slot without waiting for the key-value block's WRITE to
  // complete (the block may live on another memory node: nothing orders the
  // two), so a lookup can read a block that has not landed.
  kUnorderedPublish,
};

struct TableConfig {
  uint64_t capacity = 1u << 20;   // keys the table must hold (sizes the buckets)
  double max_load = 0.5;          // capacity / slots, bounds the bucket array
  Variant variant = Variant::kCorrect;
  // An error message naming the bad field, or "".
  std::string validate() const;
};

// Keys are 8-byte and non-zero (0 marks nothing); values are 8-byte.
class HashTable {
 public:
  // Allocates the directory and buckets over every memory node (host-side,
  // before run()). Status kOutOfBounds when the nodes are too small.
  static Result<HashTable> create(Backend& b, const TableConfig& cfg);

  // The value of `key`, or status kRetryExhausted... no: Result with
  // found=false. Three READs when the key is present (SMART §6.2.1).
  struct Found {
    bool found = false;
    uint64_t value = 0;
  };
  Task<Result<Found>> lookup(smart::Context& ctx, uint64_t key) const;
  // Inserts or, when the key exists, updates. Returns whether it inserted.
  Task<Result<bool>> insert(smart::Context& ctx, uint64_t key, uint64_t value) const;
  // Updates an existing key; false when absent.
  Task<Result<bool>> update(smart::Context& ctx, uint64_t key, uint64_t value) const;
  // Removes a key; false when absent.
  Task<Result<bool>> remove(smart::Context& ctx, uint64_t key) const;

  // Host-side: inserts without coroutines (the load phase; before run()).
  Status host_insert(Backend& b, uint64_t key, uint64_t value) const;
  // Host-side, after run(): every key and value the table holds, for an exact
  // final-state check; kBadLength... on a corrupt table (a key twice).
  Result<std::map<uint64_t, uint64_t>> host_contents(Backend& b) const;

  const TableConfig& config() const { return cfg_; }

 private:
  HashTable() = default;
  TableConfig cfg_;
  // Layout state set by create(); see hash_table.cpp.
  uint32_t memory_nodes_ = 0;
  uint64_t buckets_per_node_ = 0;
  RemoteAddr bucket_base_[64]{};
  friend class HashTableTest;
};

}  // namespace lw::race
