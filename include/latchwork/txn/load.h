// Loading a workload into a store: shared by the transaction runs
// (txn/run.h) and the transaction check (workloads/txn_check.h).
#pragma once

#include <memory>
#include <string>

#include "latchwork/txn/store.h"
#include "latchwork/txn/store_plan_cache.h"
#include "latchwork/txn/workload.h"

namespace lw::txn {

// A new store on `b` holding `wl`'s records: the workload fills a loader, a
// StorePlan lays the records out (taken from `plans` when given, where a
// later load of the same records finds it), and the store writes the plan's
// images (or copies the memory image of an earlier build of the same plan,
// kept in `plans` too). `wl` must outlive the store (its home function places keys).
// Null with *err set when the records do not fit or the backend refuses.
std::unique_ptr<Store> load_store(Backend& b, const TxnWorkload& wl, const StoreOptions& so,
                                  StorePlanCache* plans, std::string* err);

}  // namespace lw::txn
