#include "latchwork/txn/load.h"

#include <utility>

namespace lw::txn {

std::unique_ptr<Store> load_store(Backend& b, const TxnWorkload& wl, const StoreOptions& so,
                                  StorePlanCache* plans, std::string* err) {
  // A cached plan's records, known without loading them (the same load
  // identity loaded them), or compared as the workload adds its own: while
  // they match the loader stores nothing.
  bool recalled = false;
  StoreLoader loader = plans != nullptr ? plans->loader_for(wl.load_identity().get(), wl.tables(), so, &recalled)
                                        : StoreLoader{};
  if (!recalled) wl.load(loader);
  const TxnWorkload* w = &wl;
  const HomeFn home = [w](TableId t, uint64_t k, uint32_t n) { return w->home(t, k, n); };
  std::shared_ptr<const StorePlan> plan = plans != nullptr
                                              ? plans->plan(wl.tables(), home, std::move(loader), so, err,
                                                            wl.load_identity())
                                              : StorePlan::make(wl.tables(), home, std::move(loader), so, err);
  return plan ? Store::build(b, std::move(plan), home, so, err, plans != nullptr ? &plans->images() : nullptr)
              : nullptr;
}

}  // namespace lw::txn
