#include "latchwork/txn/load.h"

#include <utility>

namespace lw::txn {

std::unique_ptr<Store> load_store(Backend& b, const TxnWorkload& wl, const StoreOptions& so,
                                  StorePlanCache* plans, std::string* err) {
  StoreLoader loader;
  // A cached plan's records, compared as the workload adds its own: while
  // they match the loader stores nothing.
  if (plans != nullptr) loader.expect(plans->candidate(wl.tables(), so));
  wl.load(loader);
  const TxnWorkload* w = &wl;
  const HomeFn home = [w](TableId t, uint64_t k, uint32_t n) { return w->home(t, k, n); };
  std::shared_ptr<const StorePlan> plan = plans != nullptr
                                              ? plans->plan(wl.tables(), home, std::move(loader), so, err)
                                              : StorePlan::make(wl.tables(), home, std::move(loader), so, err);
  return plan ? Store::build(b, std::move(plan), home, so, err, plans != nullptr ? &plans->images() : nullptr)
              : nullptr;
}

}  // namespace lw::txn
