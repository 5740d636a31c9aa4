// The engine: handler registration and the per-thread location caches.
#include <algorithm>

#include "engine_impl.h"
#include "latchwork/base/assert.h"

namespace lw::txn {

std::string_view to_string(TxnStatus s) {
  switch (s) {
    case TxnStatus::kOk: return "ok";
    case TxnStatus::kAborted: return "aborted";
    case TxnStatus::kFailed: return "failed";
  }
  return "?";
}

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::kExecute: return "execution";
    case Phase::kValidate: return "validation";
    case Phase::kLog: return "logging";
    case Phase::kCommit: return "commit";
    case Phase::kCount: break;
  }
  return "?";
}

bool needs_handlers(const DesignConfig& d, uint32_t replicas) {
  const Phases& p = d.phases;
  for (Primitive x : {p.execute, p.lock, p.validate, p.log, p.commit, p.ro_read, p.ro_validate})
    if (x != Primitive::kOneSided) return true;
  return (replicas > 1 && !d.undo_log) || d.broken == Broken::kMixedAtomics;
}

Engine::Engine(Backend& b, Store& store, Options o)
    : b_(b), store_(store), o_(std::move(o)), impl_(std::make_unique<Impl>()) {}
Engine::~Engine() = default;

std::unique_ptr<Engine> Engine::create(Backend& b, Store& store, Options o, std::string* error) {
  auto fail = [&](const std::string& m) -> std::unique_ptr<Engine> {
    if (error) *error = m;
    return nullptr;
  };
  if (std::string e = o.design.validate(); !e.empty()) return fail(e);
  std::unique_ptr<Engine> e(new Engine(b, store, std::move(o)));
  if (needs_handlers(e->o_.design, store.replicas())) {
    const std::vector<RpcHandler> hs = handlers(store);
    for (size_t i = 0; i < hs.size(); ++i) {
      const Result<HandlerId> r = b.register_handler(hs[i]);
      if (!r.ok())
        return fail("cannot register RPC handler " + hs[i].name + ": " + std::string(lw::to_string(r.status)) +
                    " (the backend has no RPC, or the memory nodes do not serve the txn handlers)");
      e->impl_->ids[i] = r.value;
    }
    e->impl_->have_handlers = true;
  }
  e->impl_->release_by_cas = b.capabilities().failed_cas_writes_back;
  const ClusterConfig& c = b.config();
  const size_t threads = c.total_threads();
  const uint64_t entries = e->o_.design.location_cache ? e->o_.design.cache_entries : 0;
  for (size_t t = 0; t < threads; ++t) e->impl_->caches.push_back(std::make_unique<LocationCache>(entries));
  return e;
}

}  // namespace lw::txn
