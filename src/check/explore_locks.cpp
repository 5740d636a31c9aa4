// A lock under exhaustive exploration (explore_locks.h): two cohorts on two
// nodes contending for one lock, every interleaving and relaxation choice.
#include "latchwork/check/explore_locks.h"

#include <memory>
#include <string>

#include "latchwork/base/layout.h"

namespace lw::check {

std::string LockExploreOptions::validate() const {
  if (local_workers > kMaxWorkersPerCohort || remote_workers > kMaxWorkersPerCohort)
    return "--local-workers and --remote-workers must be at most " + std::to_string(kMaxWorkersPerCohort);
  if (local_workers + remote_workers < 1) return "at least one worker is needed";
  if (acquisitions < 1 || acquisitions > kMaxAcquisitions)
    return "--acquisitions must be in [1, " + std::to_string(kMaxAcquisitions) + "]";
  if (local_budget < 1 || remote_budget < 1) return "budgets must be at least 1";
  if (kind == locks::LockKind::kMcs || kind == locks::LockKind::kAlock) {
    // Queue-lock waiters spin on a descriptor in their own node: all workers
    // run on the two nodes, so every kind is served.
  }
  if (variant != locks::AlockVariant::kCorrect && kind != locks::LockKind::kAlock)
    return "an ALock variant needs --lock alock";
  if (max_states < 1) return "max_states must be at least 1";
  return {};
}

namespace {

// Per replay: the table, the counter, and the ghost holders. Reset by setup.
struct World {
  std::shared_ptr<locks::LockTable> table;
  RemoteAddr counter;
  uint32_t in_cs = 0;
  uint32_t max_in_cs = 0;
  uint64_t errors = 0;  // lock/unlock calls that did not return kOk
};

Task<void> worker_main(World& world, const LockExploreOptions& o, Worker& w) {
  locks::LockClient c(*world.table, w);
  const bool local = c.is_local(0);
  for (uint32_t k = 0; k < o.acquisitions; ++k) {
    if (!ok(co_await c.lock(0))) {
      ++world.errors;
      co_return;
    }
    ++world.in_cs;
    world.max_in_cs = std::max(world.max_in_cs, world.in_cs);
    // The critical section spans steps, so others may act while it is held.
    uint64_t v = 0;
    if (!o.cs_counter) {
      co_await w.sleep(0);
    } else if (local) {
      Result<uint64_t> r = co_await w.cpu_load(world.counter);
      v = r.value;
      (void)co_await w.cpu_store(world.counter, v + 1);
    } else {
      (void)co_await w.read(&v, world.counter, kWord);
      uint64_t next = v + 1;
      (void)co_await w.write(world.counter, &next, kWord);
    }
    --world.in_cs;
    if (!ok(co_await c.unlock(0))) {
      ++world.errors;
      co_return;
    }
  }
}

}  // namespace

explore::Result explore_lock(const LockExploreOptions& o) {
  LW_CHECK_MSG(o.validate().empty(), o.validate());
  auto world = std::make_shared<World>();
  explore::Spec s;
  s.name = std::string(locks::to_string(o.kind)) +
           (o.variant == locks::AlockVariant::kCorrect ? "" : std::string("/") + locks::to_string(o.variant));
  s.nodes = 2;
  s.semantics = o.semantics;
  s.check_progress = o.check_progress;
  s.max_states = o.max_states;
  // Local cohort: threads of node 0 (the lock's home); remote: threads of node 1.
  for (uint32_t t = 0; t < o.local_workers; ++t) s.workers.push_back({Placement::Kind::kMemory, 0, t, 0});
  for (uint32_t t = 0; t < o.remote_workers; ++t) s.workers.push_back({Placement::Kind::kMemory, 1, t, 0});
  locks::LockTableConfig tc;
  tc.kind = o.kind;
  tc.variant = o.variant;
  tc.locks = 1;
  tc.local_budget = o.local_budget;
  tc.remote_budget = o.remote_budget;
  tc.threads_per_node = std::max(o.local_workers, o.remote_workers);
  s.setup = [world, tc](Backend& b) {
    *world = World{};
    Result<std::shared_ptr<locks::LockTable>> t = locks::LockTable::create(b, tc);
    LW_CHECK_MSG(ok(t.status), "the lock table does not fit the explorer's memory");
    world->table = t.value;
    world->counter = b.allocate(0, kCacheLine, kCacheLine);
    LW_CHECK(!world->counter.is_null());
  };
  s.program = [world, o](Worker& w, uint32_t) { return worker_main(*world, o, w); };
  s.ghost_hash = [world] { return uint64_t{world->in_cs} | (world->errors << 8); };
  s.invariant = [world]() -> std::string {
    if (world->in_cs > 1) return "mutual exclusion: " + std::to_string(world->in_cs) + " workers hold the lock";
    if (world->errors > 0) return "a lock() or unlock() returned an error";
    return {};
  };
  const uint64_t expected = uint64_t{o.acquisitions} * (o.local_workers + o.remote_workers);
  s.final_check = [world, expected, o](Backend& b) -> std::string {
    if (!o.cs_counter) return {};
    uint64_t v = 0;
    b.host_read(world->counter, &v, kWord);
    if (v != expected)
      return "counter " + std::to_string(v) + " after " + std::to_string(expected) + " acquisitions";
    return {};
  };
  return explore::run(s);
}

}  // namespace lw::check
