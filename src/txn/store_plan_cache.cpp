// Exact reuse of store plans (store_plan_cache.h).
#include "txn/store_plan_cache.h"

#include <bit>
#include <cstring>

namespace lw::txn {

namespace {

// Finds candidates only: a match is confirmed by comparing everything.
class Fingerprint {
 public:
  void mix(uint64_t v) { h_ = std::rotl((h_ ^ v) * 0x9e3779b97f4a7c15ull, 29); }
  void mix_bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, b + i, 8);
      mix(w);
    }
    uint64_t tail = 0;
    if (n > i) std::memcpy(&tail, b + i, n - i);
    mix(tail ^ (uint64_t{n} << 56));
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0x243f6a8885a308d3ull;
};

}  // namespace

void StorePlanCache::remember(Entry& e, const std::string& key) {
  if (key.empty() || e.loaded_by.size() >= kMaxLoadKeys) return;
  for (const auto& known : e.loaded_by)
    if (known == key) return;
  e.loaded_by.push_back(key);
}

void StorePlanCache::remember_plan(const StorePlan* p, const std::string& key) {
  for (Entry& e : entries_)
    if (e.bytes > 0 && e.plan.get().get() == p) return remember(e, key);
}

StoreLoader StorePlanCache::loader_for(const std::string& key, const std::vector<TableSpec>& tables,
                                       const StoreOptions& o, bool* recalled) const {
  *recalled = false;
  StoreLoader l;
  if (!key.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Entry& e : entries_) {
      if (e.bytes == 0) continue;  // being made
      std::shared_ptr<const StorePlan> p = e.plan.get();
      if (!(p->tables == tables && p->fits(o))) continue;
      for (const auto& known : e.loaded_by)
        if (known == key) {
          // As if every record had been loaded and matched.
          l.expected_ = std::move(p);
          l.matched_ = l.expected_->loader.rows_.size();
          *recalled = true;
          return l;
        }
    }
  }
  l.expect(candidate(tables, o));
  return l;
}

std::shared_ptr<const StorePlan> StorePlanCache::plan(std::vector<TableSpec> tables, const HomeFn& home,
                                                      StoreLoader loader, const StoreOptions& o, std::string* error,
                                                      const std::string& loaded_by) {
  // Loaded as expected: only the home answers are left to compare.
  if (loader.loaded_expected()) {
    std::shared_ptr<const StorePlan> e = loader.expected_;
    std::string ignored;
    if (StorePlan::check_shape(tables, o).empty() && e->fits(o) && e->tables == tables &&
        StorePlan::primaries(tables, home, e->loader, o.nodes, &ignored) == e->row_primary) {
      std::lock_guard<std::mutex> lock(mu_);
      ++hits_;
      for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->bytes > 0 && it->plan.get() == e) {
          remember(*it, loaded_by);
          entries_.splice(entries_.begin(), entries_, it);  // most recently used first
          break;
        }
      return e;
    }
  }
  loader.settle();
  // Bad shapes fail as make() fails them, before home() sees a record.
  if (!StorePlan::check_shape(tables, o).empty()) return StorePlan::make(std::move(tables), home, std::move(loader), o, error);
  std::string e;
  std::vector<NodeId> primary = StorePlan::primaries(tables, home, loader, o.nodes, &e);
  if (!e.empty()) {
    if (error) *error = e;
    return nullptr;
  }
  Fingerprint f;
  for (const TableSpec& t : tables) {
    f.mix_bytes(t.name.data(), t.name.size());
    f.mix(t.payload_bytes);
  }
  f.mix(o.nodes);
  f.mix(std::min(o.replicas, o.nodes));
  f.mix(std::bit_cast<uint64_t>(o.index_load));
  f.mix(o.max_probe);
  for (const StoreLoader::Row& r : loader.rows_) {
    f.mix(r.table | uint64_t{r.bytes} << 16);
    f.mix(r.key);
    f.mix(r.payload_at);
  }
  f.mix_bytes(loader.blob_.data(), loader.blob_.size());
  f.mix_bytes(primary.data(), primary.size() * sizeof(NodeId));
  const uint64_t fp = f.value();

  std::shared_future<std::shared_ptr<const StorePlan>> made_by_another;
  std::promise<std::shared_ptr<const StorePlan>> promise;
  std::list<Entry>::iterator mine;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->fingerprint == fp) {
        made_by_another = it->plan;
        entries_.splice(entries_.begin(), entries_, it);  // most recently used first
        break;
      }
    if (!made_by_another.valid()) {
      ++misses_;
      entries_.push_front({fp, promise.get_future().share(), 0, {}});
      mine = entries_.begin();
    }
  }
  if (made_by_another.valid()) {
    std::shared_ptr<const StorePlan> p;
    try {
      p = made_by_another.get();
    } catch (...) {  // its making threw: make our own below, with our own error
    }
    const bool same = p != nullptr && p->fits(o) && p->tables == tables && p->row_primary == primary &&
                      p->loader == loader;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++(same ? hits_ : misses_);
      if (same) remember_plan(p.get(), loaded_by);
    }
    if (same) return p;
    // A fingerprint shared by other data, or a plan that failed: our own, not kept.
    return StorePlan::make(std::move(tables), std::move(primary), std::move(loader), o, error);
  }

  std::shared_ptr<const StorePlan> p;
  try {
    p = StorePlan::make(std::move(tables), std::move(primary), std::move(loader), o, error);
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(mu_);
    entries_.erase(mine);
    throw;
  }
  promise.set_value(p);
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t size = p ? p->bytes() : 0;
  if (p == nullptr || size > max_bytes_) {
    entries_.erase(mine);
    return p;
  }
  mine->bytes = size;
  remember(*mine, loaded_by);
  bytes_ += size;
  // The least recently used finished plans go first (one being made stays).
  for (auto it = entries_.end(); bytes_ > max_bytes_ && it != entries_.begin();) {
    --it;
    if (it == mine || it->bytes == 0) continue;
    bytes_ -= it->bytes;
    it = entries_.erase(it);
  }
  return p;
}

std::shared_ptr<const StorePlan> StorePlanCache::candidate(const std::vector<TableSpec>& tables,
                                                           const StoreOptions& o) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry& e : entries_) {
    if (e.bytes == 0) continue;  // being made
    std::shared_ptr<const StorePlan> p = e.plan.get();
    if (p->tables == tables && p->fits(o)) return p;
  }
  return nullptr;
}

uint64_t StorePlanCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

uint64_t StorePlanCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

uint64_t StorePlanCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace lw::txn
