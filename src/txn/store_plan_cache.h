// Store plans shared by runs that load the same data (the points of a repro
// figure sweep threads or designs over one data set): a run whose records,
// tables, home answers and layout options equal a cached plan's reuses it
// and skips the layout, only allocating and writing the images.
//
// Reuse is exact: every record, key, payload byte and home answer is
// compared, either as the records are loaded (a loader that expect()s the
// candidate stores nothing while they match) or, for a loader of its own,
// after a fingerprint found the candidate. Records are not loaded again at
// all for a workload whose load key (TxnWorkload::load_key) equals one that
// loaded a kept plan's records (its home answers are still compared).
// Thread-safe; a plan being made is waited for, not made twice. Bounded by
// bytes: the oldest plans go first, and a plan larger than the bound is not
// kept.
//
// Why it is not a product of the set-up store (base/setup_store.h): its
// identity is the records themselves, compared while a workload loads them
// (what a store key would have to hold is what it saves making). It is kept
// in the store as one object while node memory reuse is in effect
// (load_store, txn/load.h), so a figure's points and a check sweep's seeds
// share it.
#pragma once

#include <cstdint>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/txn/store_plan.h"

namespace lw::txn {

class StorePlanCache {
 public:
  explicit StorePlanCache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // StorePlan::make's plan for these inputs, or an equal one made before.
  // `loaded_by`: the load key of the workload whose load() filled `loader`
  // (empty: none), remembered with the plan returned.
  std::shared_ptr<const StorePlan> plan(std::vector<TableSpec> tables, const HomeFn& home, StoreLoader loader,
                                        const StoreOptions& o, std::string* error, const std::string& loaded_by = {});

  // The loader a workload of load key `key` (empty: none) should load into:
  // with *recalled set, one that holds a kept plan's records already, loaded
  // by a workload of the same key (load() is not called); else an empty one
  // that expect()s candidate(tables, o).
  StoreLoader loader_for(const std::string& key, const std::vector<TableSpec>& tables, const StoreOptions& o,
                         bool* recalled) const;

  // The most recently used plan for these tables and layout options: what a
  // loader should expect() (nullptr if none).
  std::shared_ptr<const StorePlan> candidate(const std::vector<TableSpec>& tables, const StoreOptions& o) const;

  uint64_t hits() const;
  uint64_t misses() const;
  uint64_t bytes() const;  // held by the kept plans

 private:
  struct Entry {
    uint64_t fingerprint = 0;
    std::shared_future<std::shared_ptr<const StorePlan>> plan;
    uint64_t bytes = 0;  // 0 while being made
    // Load keys of the workloads whose load() gave its records (at most
    // kMaxLoadKeys).
    std::vector<std::string> loaded_by;
  };
  static constexpr size_t kMaxLoadKeys = 16;
  // Under mu_: the workload of `key` loaded the records of e (of the kept
  // entry of p).
  void remember(Entry& e, const std::string& key);
  void remember_plan(const StorePlan* p, const std::string& key);
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> entries_;  // newest first
  uint64_t bytes_ = 0, hits_ = 0, misses_ = 0;
};

// The plan cache of the node memory reuse in effect (kept in the set-up
// store, dropped with it; load_store uses it), or null when none is.
std::shared_ptr<StorePlanCache> scope_plan_cache();

}  // namespace lw::txn
