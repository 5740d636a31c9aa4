// Store plans shared by runs that load the same data (the points of a repro
// figure sweep threads or designs over one data set): a run whose records,
// tables, home answers and layout options equal a cached plan's reuses it
// and skips the layout, only allocating and writing the images.
//
// Reuse is exact: every record, key, payload byte and home answer is
// compared, either as the records are loaded (a loader that expect()s the
// candidate stores nothing while they match) or, for a loader of its own,
// after a fingerprint found the candidate. Records are not loaded again at
// all for a workload whose LoadIdentity is the same as one that loaded a
// kept plan's records (its home answers are still compared). Thread-safe; a plan being made
// is waited for, not made twice. Bounded by bytes: the oldest plans go first,
// and a plan larger than the bound is not kept.
#pragma once

#include <cstdint>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/txn/load_identity.h"
#include "latchwork/txn/store_image_cache.h"
#include "latchwork/txn/store_plan.h"

namespace lw::txn {

class StorePlanCache {
 public:
  // Plans and, apart, the stores' memory images are each bounded by max_bytes.
  explicit StorePlanCache(uint64_t max_bytes) : max_bytes_(max_bytes), images_(max_bytes) {}

  // StorePlan::make's plan for these inputs, or an equal one made before.
  // `loaded_by`: the identity of the workload whose load() filled `loader`
  // (null: none), remembered with the plan returned.
  std::shared_ptr<const StorePlan> plan(std::vector<TableSpec> tables, const HomeFn& home, StoreLoader loader,
                                        const StoreOptions& o, std::string* error,
                                        std::shared_ptr<const LoadIdentity> loaded_by = nullptr);

  // The loader a workload of identity `id` (null: none) should load into:
  // with *recalled set, one that holds a kept plan's records already, loaded
  // by a workload of the same identity (load() is not called); else an
  // empty one that expect()s candidate(tables, o).
  StoreLoader loader_for(const LoadIdentity* id, const std::vector<TableSpec>& tables, const StoreOptions& o,
                         bool* recalled) const;

  // The most recently used plan for these tables and layout options: what a
  // loader should expect() (nullptr if none).
  std::shared_ptr<const StorePlan> candidate(const std::vector<TableSpec>& tables, const StoreOptions& o) const;

  uint64_t hits() const;
  uint64_t misses() const;
  uint64_t bytes() const;  // held by the kept plans

  // Memory images of stores built from these plans (Store::build).
  StoreImageCache& images() { return images_; }

 private:
  struct Entry {
    uint64_t fingerprint = 0;
    std::shared_future<std::shared_ptr<const StorePlan>> plan;
    uint64_t bytes = 0;  // 0 while being made
    // Workloads whose load() gave its records (at most kMaxIdentities).
    std::vector<std::shared_ptr<const LoadIdentity>> loaded_by;
  };
  static constexpr size_t kMaxIdentities = 16;
  // Under mu_: `id` loaded the records of e (of the kept entry of p).
  void remember(Entry& e, std::shared_ptr<const LoadIdentity> id);
  void remember_plan(const StorePlan* p, std::shared_ptr<const LoadIdentity> id);
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> entries_;  // newest first
  uint64_t bytes_ = 0, hits_ = 0, misses_ = 0;
  StoreImageCache images_;
};

}  // namespace lw::txn
