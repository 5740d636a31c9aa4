// A small runner for the lock tests: every memory-node thread locks and
// unlocks `ops` times, incrementing the lock's counter (CPU on its own node,
// READ + WRITE otherwise) inside each hold, and the host checks the counts.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/locks/lock.h"

namespace lw::locks::test {

struct LockRun {
  uint64_t expected = 0;  // successful lock() calls
  uint64_t counted = 0;   // sum of the counters
  uint64_t failures = 0;  // lock/unlock calls that did not return kOk
  Status first_error = Status::kOk;
  std::vector<LockClientStats> stats;  // per worker
  LockClientStats total;
  std::string error;  // backend or table set-up
};

inline ClusterConfig lock_cluster(const char* backend, uint32_t nodes, uint32_t threads, uint64_t seed) {
  ClusterConfig c;
  c.backend = backend;
  c.seed = seed;
  c.compute_nodes = 1;
  c.threads_per_node = 1;
  c.coroutines_per_thread = 1;
  c.memory_nodes = nodes;
  c.memory_node_threads = threads;
  c.memory_node_bytes = 1 << 20;
  return c;
}

// Locks 0..keys-1; each op picks a lock on its own node with local_percent.
inline LockRun run_locks(const ClusterConfig& c, LockTableConfig t, uint32_t ops, uint32_t local_percent) {
  LockRun out;
  std::unique_ptr<Backend> b = make_backend(c, &out.error);
  if (!b) return out;
  t.threads_per_node = c.memory_node_threads;
  t.coroutines_per_thread = 1;
  Result<std::shared_ptr<LockTable>> tr = LockTable::create(*b, t);
  if (!tr.ok()) {
    out.error = "table: " + std::string(to_string(tr.status));
    return out;
  }
  std::shared_ptr<LockTable> table = tr.value;
  std::vector<RemoteAddr> counters;
  for (uint64_t k = 0; k < t.locks; ++k) counters.push_back(b->allocate(table->home(k), 64, 64));
  std::mutex mu;
  std::atomic<uint64_t> expected{0}, failures{0};
  for (uint32_t n = 0; n < c.memory_nodes; ++n)
    for (uint32_t th = 0; th < c.memory_node_threads; ++th)
      b->spawn({Placement::Kind::kMemory, n, th, 0}, [&, table, local_percent, ops](Worker& w) -> Task<void> {
        LockClient cl(*table, w);
        for (uint32_t i = 0; i < ops; ++i) {
          uint64_t k = w.rng().below(t.locks);
          const bool want_local = w.rng().below(100) < local_percent;
          for (int tries = 0; tries < 64 && (table->home(k) == w.placement().node) != want_local; ++tries)
            k = w.rng().below(t.locks);
          Status s = co_await cl.lock(k);
          if (!ok(s)) {
            ++failures;
            std::lock_guard<std::mutex> g(mu);
            if (out.first_error == Status::kOk) out.first_error = s;
            continue;
          }
          const RemoteAddr ctr = counters[k];
          if (ctr.node() == w.placement().node) {
            Result<uint64_t> v = co_await w.cpu_load(ctr);
            (void)co_await w.cpu_store(ctr, v.value + 1);
          } else {
            uint64_t v = 0;
            (void)co_await w.read(&v, ctr, 8);
            ++v;
            (void)co_await w.write(ctr, &v, 8);
          }
          ++expected;
          if (!ok(co_await cl.unlock(k))) ++failures;
        }
        std::lock_guard<std::mutex> g(mu);
        out.stats.push_back(cl.stats());
      });
  RunStats rs = b->run();
  if (!rs.budget_exhausted.empty() || !rs.stalled.empty()) out.error = rs.budget_exhausted + rs.stalled;
  out.expected = expected;
  out.failures = failures;
  for (RemoteAddr a : counters) out.counted += b->host_load(a);
  for (const LockClientStats& s : out.stats) {
    out.total.acquisitions += s.acquisitions;
    out.total.local_acquisitions += s.local_acquisitions;
    out.total.passes += s.passes;
    out.total.reacquires += s.reacquires;
    out.total.remote_verbs += s.remote_verbs;
    out.total.loopback_verbs += s.loopback_verbs;
    out.total.cpu_accesses += s.cpu_accesses;
    out.total.spins += s.spins;
  }
  return out;
}

}  // namespace lw::locks::test
