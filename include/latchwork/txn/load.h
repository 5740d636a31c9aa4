// Loading a workload into a store: shared by the transaction runs
// (txn/run.h) and the transaction check (workloads/txn_check.h).
#pragma once

#include <memory>
#include <string>

#include "latchwork/txn/store.h"
#include "latchwork/txn/workload.h"

namespace lw::txn {

// A new store on `b` holding `wl`'s records: the workload fills a loader, a
// StorePlan lays the records out, and the store writes the plan's images.
// While node memory reuse is in effect (repro, check), the plan comes from
// the sweep's plan cache, where a later load of the same records (or of the
// same load key, TxnWorkload::load_key) finds it, and the store copies the
// memory image of an earlier build of the same plan (Store::build). `wl`
// must outlive the store (its home function places keys). Null with *err
// set when the records do not fit or the backend refuses.
std::unique_ptr<Store> load_store(Backend& b, const TxnWorkload& wl, const StoreOptions& so, std::string* err);

}  // namespace lw::txn
