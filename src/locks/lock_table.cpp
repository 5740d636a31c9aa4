// The lock table's allocation (locks in 64-byte lines on every memory node,
// descriptors in each memory-node worker's own node) and LockClient's
// dispatch to the kinds (spin_lock.cpp, mcs_lock.cpp, alock.cpp).
#include <string>

#include "lock_impl.h"

namespace lw::locks {

std::string LockTableConfig::validate() const {
  if (locks == 0 || locks > kMaxLocks) return "locks must be in [1, 2^24]";
  if (local_budget < 1 || local_budget > kMaxBudget) return "local_budget must be in [1, 2^20]";
  if (remote_budget < 1 || remote_budget > kMaxBudget) return "remote_budget must be in [1, 2^20]";
  if (max_spins == 0) return "max_spins must be positive";
  if (threads_per_node == 0 || threads_per_node > 4096) return "threads_per_node must be in [1, 4096]";
  if (coroutines_per_thread == 0 || coroutines_per_thread > 4096)
    return "coroutines_per_thread must be in [1, 4096]";
  if (variant != AlockVariant::kCorrect && kind != LockKind::kAlock)
    return "an ALock variant needs kind alock";
  return {};
}

Result<std::shared_ptr<LockTable>> LockTable::create(Backend& b, const LockTableConfig& c) {
  LW_CHECK_MSG(c.validate().empty(), c.validate());
  const uint32_t nodes = b.config().memory_nodes;
  LW_CHECK_MSG(nodes > 0, "a lock table needs a memory node");
  std::shared_ptr<LockTable> t(new LockTable());
  t->cfg_ = c;
  t->nodes_ = nodes;
  t->spin_release_by_cas_ = b.capabilities().failed_cas_writes_back;
  const uint64_t per_worker = uint64_t{c.threads_per_node} * c.coroutines_per_thread;
  for (uint32_t n = 0; n < nodes; ++n) {
    const uint64_t lines = (c.locks + nodes - 1 - n) / nodes;  // locks i with i % nodes == n
    // Every kind's initial line is all zeroes (free word, null tails, no
    // victim) and allocation comes zeroed: nothing to write.
    RemoteAddr base = lines == 0 ? RemoteAddr{} : b.allocate(static_cast<NodeId>(n), lines * kCacheLine, kCacheLine);
    if (lines > 0 && base.is_null()) return {Status::kOutOfBounds, nullptr};
    t->base_.push_back(base);
  }
  // Descriptors only for memory-node workers: the budget word starts at
  // kWaiting so that a stale pass can never look fresh; next starts null.
  if (c.kind == LockKind::kMcs || c.kind == LockKind::kAlock) {
    for (uint32_t n = 0; n < nodes; ++n) {
      RemoteAddr block = b.allocate(static_cast<NodeId>(n), per_worker * kDescriptorBytes, kCacheLine);
      if (block.is_null()) return {Status::kOutOfBounds, nullptr};
      for (uint64_t k = 0; k < per_worker; ++k) {
        RemoteAddr d = block + k * kDescriptorBytes;
        b.host_store(d + detail::kLocalDesc + detail::kBudget, static_cast<uint64_t>(detail::kWaiting));
        b.host_store(d + detail::kRemoteDesc + detail::kBudget, static_cast<uint64_t>(detail::kWaiting));
        t->descriptors_.push_back(d);
      }
    }
  }
  return {Status::kOk, std::move(t)};
}

RemoteAddr LockTable::lock_addr(uint64_t lock) const {
  LW_CHECK_MSG(lock < cfg_.locks, "lock " + std::to_string(lock) + " of " + std::to_string(cfg_.locks));
  return base_[home(lock)] + (lock / nodes_) * kCacheLine;
}

RemoteAddr LockTable::descriptors(const Placement& p) const {
  if (descriptors_.empty() || !p.on_memory_node() || p.node >= nodes_) return {};
  if (p.thread >= cfg_.threads_per_node || p.coroutine >= cfg_.coroutines_per_thread) return {};
  const uint64_t per_worker = uint64_t{cfg_.threads_per_node} * cfg_.coroutines_per_thread;
  return descriptors_[p.node * per_worker + uint64_t{p.thread} * cfg_.coroutines_per_thread + p.coroutine];
}

LockClient::LockClient(const LockTable& t, Worker& w) : t_(t), w_(w) {}

namespace {
// A failed call of a queue lock may leave the descriptor linked (lock.h).
bool spends(LockKind k, Status s) {
  return (k == LockKind::kMcs || k == LockKind::kAlock) && !ok(s) && s != Status::kUnsupported;
}
}  // namespace

Task<Status> LockClient::lock(uint64_t i) {
  LW_CHECK_MSG(held_ < 0, "lock " + std::to_string(i) + " while holding " + std::to_string(held_));
  LW_CHECK_MSG(i < t_.config().locks, "lock " + std::to_string(i) + " out of range");
  if (spent_) co_return Status::kRetryExhausted;
  attempt_ = {};
  detail::Ctx c{t_, w_, stats_, attempt_};
  Status s = Status::kUnsupported;
  switch (t_.config().kind) {
    case LockKind::kSpin: s = co_await detail::spin_lock(c, i, false); break;
    case LockKind::kSpinLocalCpu: s = co_await detail::spin_lock(c, i, true); break;
    case LockKind::kSpinWriteUnlock: s = co_await detail::spin_lock(c, i, false); break;
    case LockKind::kMcs: s = co_await detail::mcs_lock(c, i); break;
    case LockKind::kAlock: s = co_await detail::alock_lock(c, i); break;
  }
  if (spends(t_.config().kind, s)) spent_ = true;
  if (ok(s)) {
    held_ = static_cast<int64_t>(i);
    held_local_ = is_local(i);
    ++stats_.acquisitions;
    if (held_local_) ++stats_.local_acquisitions;
    if (attempt_.passed) ++stats_.passes;
    if (attempt_.reacquired) ++stats_.reacquires;
  }
  co_return s;
}

Task<Status> LockClient::unlock(uint64_t i) {
  LW_CHECK_MSG(held_ == static_cast<int64_t>(i),
               "unlock " + std::to_string(i) + " while holding " + std::to_string(held_));
  if (spent_) {
    held_ = -1;
    co_return Status::kRetryExhausted;
  }
  detail::Ctx c{t_, w_, stats_, attempt_};
  Status s = Status::kUnsupported;
  switch (t_.config().kind) {
    case LockKind::kSpin:
      s = co_await detail::spin_unlock(c, i, t_.spin_release_by_cas() ? detail::SpinRelease::kCas
                                                                       : detail::SpinRelease::kWrite);
      break;
    case LockKind::kSpinLocalCpu: s = co_await detail::spin_unlock(c, i, detail::SpinRelease::kLocalCpuStore); break;
    case LockKind::kSpinWriteUnlock: s = co_await detail::spin_unlock(c, i, detail::SpinRelease::kWrite); break;
    case LockKind::kMcs: s = co_await detail::mcs_unlock(c, i); break;
    case LockKind::kAlock: s = co_await detail::alock_unlock(c, i); break;
  }
  if (spends(t_.config().kind, s)) spent_ = true;
  held_ = -1;
  co_return s;
}

namespace detail {

Task<Result<uint64_t>> Ctx::rread(RemoteAddr a, bool fence) {
  count_verb(a);
  uint64_t v = 0;
  Status s = co_await w.read(&v, a, 8, fence);
  co_return Result<uint64_t>{s, v};
}

Task<Status> Ctx::rread_line(RemoteAddr a, void* line, bool fence) {
  count_verb(a);
  co_return co_await w.read(line, a, static_cast<uint32_t>(kCacheLine), fence);
}

Task<Status> Ctx::rwrite(RemoteAddr a, uint64_t v, bool fence) {
  count_verb(a);
  // The source stays alive until completion: this frame awaits it.
  co_return co_await w.write(a, &v, 8, fence);
}

Task<Result<uint64_t>> Ctx::wait_while(RemoteAddr a, uint64_t value, uint64_t* spins) {
  const uint64_t max = cfg().max_spins;
  LW_CHECK(*spins <= max);
  // The loop loads once per spin left, and once more.
  const uint64_t loads = max - *spins == UINT64_MAX ? UINT64_MAX : max - *spins + 1;
  const Worker::CpuWaitResult r = co_await w.cpu_wait_while(a, value, loads);
  st.cpu_accesses += r.polls;
  if (!ok(r.status)) co_return Result<uint64_t>{r.status, 0};
  const uint64_t saw_value = r.value == value ? r.polls : r.polls - 1;
  st.spins += saw_value;
  *spins += saw_value;
  if (r.value == value) co_return Result<uint64_t>{Status::kRetryExhausted, r.value};
  co_return Result<uint64_t>{Status::kOk, r.value};
}

Task<Status> Ctx::store_desc(RemoteAddr a, uint64_t v) {
  if (own_node(a)) co_return co_await store(a, v);
  co_return co_await rwrite(a, v);
}

}  // namespace detail
}  // namespace lw::locks
