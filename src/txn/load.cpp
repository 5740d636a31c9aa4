#include "latchwork/txn/load.h"

#include <utility>

#include "base/setup_store.h"
#include "txn/store_plan_cache.h"
#include "verbs/node_memory_reuse.h"

namespace lw::txn {

namespace {

// The plans of one reuse scope, bounded by bytes of plans (not counted in
// the set-up store's bound: the cache bounds itself). A TATP plan at SMART
// Fig. 10's scale is about 400 MB.
constexpr uint64_t kPlanCacheBytes = uint64_t{1} << 30;

}  // namespace

std::shared_ptr<StorePlanCache> scope_plan_cache() {
  if (!NodeMemoryReuse::active()) return nullptr;
  return SetupStore::process().get_or_make<StorePlanCache>(
      SetupKey("txn.store-plans"), SetupLifetime::kReuseScope,
      [] { return std::make_shared<StorePlanCache>(kPlanCacheBytes); }, [](const StorePlanCache&) { return 0; });
}

std::unique_ptr<Store> load_store(Backend& b, const TxnWorkload& wl, const StoreOptions& so, std::string* err) {
  const std::shared_ptr<StorePlanCache> plans = scope_plan_cache();
  // A cached plan's records, known without loading them (the same load key
  // loaded them), or compared as the workload adds its own: while they
  // match the loader stores nothing.
  bool recalled = false;
  StoreLoader loader = plans != nullptr ? plans->loader_for(wl.load_key(), wl.tables(), so, &recalled) : StoreLoader{};
  if (!recalled) wl.load(loader);
  const TxnWorkload* w = &wl;
  const HomeFn home = [w](TableId t, uint64_t k, uint32_t n) { return w->home(t, k, n); };
  std::shared_ptr<const StorePlan> plan =
      plans != nullptr ? plans->plan(wl.tables(), home, std::move(loader), so, err, wl.load_key())
                       : StorePlan::make(wl.tables(), home, std::move(loader), so, err);
  return plan ? Store::build(b, std::move(plan), home, so, err) : nullptr;
}

}  // namespace lw::txn
