// The distributed lock table of ALock §6 (lock_table.h).
#include "latchwork/workloads/lock_table.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/sim/timeline.h"

namespace lw::workloads {
namespace {

using locks::LockClient;
using locks::LockClientStats;
using locks::LockTable;

// Loop bounds (every loop of a worker is bounded by these or by the lock's
// max_spins).
constexpr uint64_t kMaxOpsPerWorker = 10'000'000;
constexpr Nanos kMaxCsNs = 1'000'000;
// Each counter has a line of its own, as the lock it sits next to.
constexpr uint64_t kCounterStride = kCacheLine;

void add_stats(LockClientStats* sum, const LockClientStats& s) {
  sum->acquisitions += s.acquisitions;
  sum->local_acquisitions += s.local_acquisitions;
  sum->passes += s.passes;
  sum->reacquires += s.reacquires;
  sum->remote_verbs += s.remote_verbs;
  sum->loopback_verbs += s.loopback_verbs;
  sum->cpu_accesses += s.cpu_accesses;
  sum->spins += s.spins;
}

// What one worker measured; merged under a lock (the threads backend runs
// workers on many OS threads).
struct Tally {
  uint64_t ops = 0, failures = 0;
  Histogram latency, local_latency, remote_latency;
  LockClientStats stats;
  bool started = false;
  Nanos first_start = 0, last_end = 0;
  std::string error;
};

struct Totals {
  std::mutex mu;
  Tally sum;
  void add(const Tally& t) {
    std::lock_guard<std::mutex> g(mu);
    sum.ops += t.ops;
    sum.failures += t.failures;
    sum.latency.merge(t.latency);
    sum.local_latency.merge(t.local_latency);
    sum.remote_latency.merge(t.remote_latency);
    add_stats(&sum.stats, t.stats);
    if (t.started && (!sum.started || t.first_start < sum.first_start)) {
      sum.started = true;
      sum.first_start = t.first_start;
    }
    sum.last_end = std::max(sum.last_end, t.last_end);
    if (sum.error.empty()) sum.error = t.error;
  }
};

// Locks on node n: n, n + nodes, n + 2 nodes, ...
uint64_t locks_on(uint64_t locks, uint32_t nodes, uint32_t n) {
  return locks / nodes + (n < locks % nodes ? 1 : 0);
}

// The lock of an operation by a worker of node `n` (ALock §6): one of its
// own node's with probability locality_percent, else one of every other
// node's, uniformly.
uint64_t pick_lock(Rng& rng, uint64_t locks, uint32_t nodes, uint32_t n, uint32_t locality_percent) {
  const uint64_t own = locks_on(locks, nodes, n);
  const bool local = nodes == 1 || rng.below(100) < locality_percent;
  if (local) return rng.below(own) * nodes + n;
  // The j-th lock not on node n: block j / (nodes - 1), and within it the
  // (j % (nodes - 1))-th node other than n.
  const uint64_t j = rng.below(locks - own);
  const uint64_t off = j % (nodes - 1);
  return (j / (nodes - 1)) * nodes + (off < n ? off : off + 1);
}

}  // namespace

// A field added to LockTableOptions changes this size: compare it in its
// operator== (or say there why it does not change a run).
static_assert(sizeof(LockTableOptions) == 856, "LockTableOptions changed: review its operator==");

std::string LockTableOptions::validate() const {
  if (std::string e = cluster.validate(); !e.empty()) return e;
  locks::LockTableConfig t = table;
  t.threads_per_node = std::max<uint32_t>(1, cluster.memory_node_threads);
  t.coroutines_per_thread = cluster.coroutines_per_thread;
  if (std::string e = t.validate(); !e.empty()) return e;
  const uint32_t nodes = cluster.memory_nodes;
  std::ostringstream e;
  if (cluster.memory_node_threads == 0)
    return "the lock table runs on memory-node threads: cluster.memory_node_threads (threads per node) must be at least 1";
  if (locality_percent > 100) return "locality_percent must be in [0, 100], got " + std::to_string(locality_percent);
  if (nodes < 2 && locality_percent < 100)
    return "a locality below 100% needs at least 2 nodes (there is no remote lock on 1 node)";
  if (table.locks < nodes) {
    e << "every node needs a lock: locks (" << table.locks << ") below nodes (" << nodes << ")";
    return e.str();
  }
  if (ops_per_worker == 0 || ops_per_worker > kMaxOpsPerWorker) {
    e << "ops_per_worker must be in [1, " << kMaxOpsPerWorker << "], got " << ops_per_worker;
    return e.str();
  }
  if (cs_ns > kMaxCsNs) return "cs_ns must be at most 1 ms, got " + std::to_string(cs_ns);
  if (process_index >= nodes) {
    e << "process_index (" << process_index << ") must be below the nodes (" << nodes << ")";
    return e.str();
  }
  if (cluster.backend != "verbs" && process_index != 0)
    return "process_index is for the verbs backend (one process per node); in-process backends run every node";
  return {};
}

std::string run_lock_table(const LockTableOptions& o, LockTableResult* out) {
  LW_CHECK(out != nullptr);
  *out = LockTableResult{};
  if (std::string e = o.validate(); !e.empty()) return e;
  std::string err;
  std::unique_ptr<Backend> backend = make_backend(o.cluster, &err);
  if (!backend) return "cannot create the backend: " + err;
  if (o.timeline) o.timeline->attach(*backend);
  const ClusterConfig& c = backend->config();
  const uint32_t nodes = c.memory_nodes;
  if (!backend->capabilities().cpu_access) return "the " + std::string(backend->name()) + " backend runs no memory-node threads";

  locks::LockTableConfig tc = o.table;
  tc.threads_per_node = c.memory_node_threads;
  tc.coroutines_per_thread = c.coroutines_per_thread;
  Result<std::shared_ptr<LockTable>> created = LockTable::create(*backend, tc);
  if (!ok(created.status))
    return "the lock table does not fit the memory nodes (" + std::string(to_string(created.status)) +
           "): raise memory_node_bytes or lower the locks";
  const std::shared_ptr<LockTable> table = created.value;

  // The counters of verify: counter of lock i on its home node, line i / nodes.
  std::vector<RemoteAddr> counters(nodes);
  if (o.verify) {
    for (uint32_t n = 0; n < nodes; ++n) {
      const uint64_t bytes = std::max<uint64_t>(1, locks_on(tc.locks, nodes, n)) * kCounterStride;
      counters[n] = backend->allocate(n, bytes, kCacheLine);
      if (counters[n].is_null()) return "the lock counters do not fit memory node " + std::to_string(n) + ": raise memory_node_bytes";
    }
  }
  auto counter_of = [&](uint64_t lock) {
    return counters[lock % nodes] + (lock / nodes) * kCounterStride;
  };
  std::vector<std::atomic<uint64_t>> acquired(o.verify ? tc.locks : 0);
  // verbs + verify: each process's acquisitions per lock, one row per node
  // process on node 0 (host-side allocations are symmetric across `latchwork
  // node` processes, so every process gets the same address), summed after
  // the last barrier.
  RemoteAddr tallies;
  if (o.verify && c.backend == "verbs") {
    tallies = backend->allocate(0, uint64_t{nodes} * tc.locks * kWord, kCacheLine);
    if (tallies.is_null()) return "the per-process tallies of verify do not fit memory node 0: raise memory_node_bytes";
  }

  // verbs: this process runs the workers of node process_index only (each
  // `latchwork node` process runs its own); barriers line the processes up.
  const bool verbs = c.backend == "verbs";
  if (verbs) {
    if (c.verbs.local_node >= 0 && static_cast<uint32_t>(c.verbs.local_node) != o.process_index)
      return "process_index must be the node this process serves (verbs.local_node " +
             std::to_string(c.verbs.local_node) + ")";
    if (std::string e = backend->barrier("lock-table/start", nodes, c.verbs.barrier_timeout_ms); !e.empty())
      return "waiting for the other nodes: " + e;
  }

  Totals totals;
  uint64_t workers = 0;
  for (uint32_t n = 0; n < nodes; ++n)
    if (!verbs || n == o.process_index) workers += uint64_t{c.memory_node_threads} * c.coroutines_per_thread;
  const uint64_t total_ops = workers * o.ops_per_worker;
  const uint64_t step = std::max<uint64_t>(1, total_ops / 20);
  std::atomic<uint64_t> done_ops{0};
  std::mutex progress_mu;
  const WorkerMain main = [&](Worker& w) -> Task<void> {
    const uint32_t n = w.placement().node;
    LockClient client(*table, w);
    Tally t;
    for (uint64_t op = 0; op < o.ops_per_worker; ++op) {
      w.compute(CpuWork::kOpIssue, 1);  // draw the lock, time the operation
      const uint64_t lock = pick_lock(w.rng(), tc.locks, nodes, n, o.locality_percent);
      const bool local = client.is_local(lock);
      const Nanos t0 = w.now();
      Status s = co_await client.lock(lock);
      if (!ok(s)) {
        ++t.failures;
        if (t.error.empty())
          t.error = "lock(" + std::to_string(lock) + ") failed with " + std::string(to_string(s)) + " on node " +
                    std::to_string(n) + " thread " + std::to_string(w.placement().thread);
        // A spinlock's bounded wait giving up leaves nothing held: go on. A
        // queue lock's leaves its descriptor queued (the client is spent),
        // and anything else is a broken queue pair or node: stop this worker.
        if (s != Status::kRetryExhausted || client.spent()) break;
        continue;
      }
      if (o.cs_ns > 0) w.charge_cpu(o.cs_ns);
      if (o.verify) {
        // Read, increment, write back: lost updates show a broken lock.
        const RemoteAddr a = counter_of(lock);
        uint64_t v = 0;
        if (local) {
          const Result<uint64_t> r = co_await w.cpu_load(a);
          s = r.status;
          v = r.value + 1;
          if (ok(s)) s = (co_await w.cpu_store(a, v)).status;
        } else {
          s = co_await w.read(&v, a, 8);
          ++v;
          if (ok(s)) s = co_await w.write(a, &v, 8);
        }
        if (!ok(s) && t.error.empty()) t.error = "the counter of lock " + std::to_string(lock) + ": " + std::string(to_string(s));
        if (ok(s)) acquired[lock].fetch_add(1, std::memory_order_relaxed);
      }
      const Status u = co_await client.unlock(lock);
      const Nanos t1 = w.now();
      if (!ok(u)) {
        ++t.failures;
        if (t.error.empty()) t.error = "unlock(" + std::to_string(lock) + ") failed with " + std::string(to_string(u));
        break;  // the lock's state is unknown: stop this worker
      }
      if (!t.started) {
        t.started = true;
        t.first_start = t0;
      }
      t.last_end = t1;
      ++t.ops;
      t.latency.add(t1 - t0);
      (local ? t.local_latency : t.remote_latency).add(t1 - t0);
      if (o.progress) {
        const uint64_t d = done_ops.fetch_add(1, std::memory_order_relaxed) + 1;
        if (d % step == 0) {
          std::lock_guard<std::mutex> g(progress_mu);
          o.progress(d, total_ops);
        }
      }
    }
    t.stats = client.stats();
    totals.add(t);
  };
  for (uint32_t n = 0; n < nodes; ++n) {
    if (verbs && n != o.process_index) continue;
    for (uint32_t th = 0; th < c.memory_node_threads; ++th)
      for (uint32_t co = 0; co < c.coroutines_per_thread; ++co)
        backend->spawn({Placement::Kind::kMemory, n, th, co}, main);
  }
  const RunStats stats = backend->run();
  require_within_budget(stats);
  if (verbs) {
    if (o.verify) {
      std::vector<uint64_t> mine(tc.locks);
      for (uint64_t i = 0; i < tc.locks; ++i) mine[i] = acquired[i].load(std::memory_order_relaxed);
      backend->host_write(tallies + uint64_t{o.process_index} * tc.locks * kWord, mine.data(), tc.locks * kWord);
    }
    if (std::string e = backend->barrier("lock-table/done", nodes, c.verbs.barrier_timeout_ms); !e.empty())
      return "waiting for the other nodes to finish: " + e;
    if (o.verify) {
      // Every process's row is in: the acquisitions of lock i are the column sums.
      std::vector<uint64_t> all(uint64_t{nodes} * tc.locks);
      backend->host_read(tallies, all.data(), all.size() * kWord);
      for (uint64_t i = 0; i < tc.locks; ++i) {
        uint64_t sum = 0;
        for (uint32_t n = 0; n < nodes; ++n) sum += all[uint64_t{n} * tc.locks + i];
        acquired[i].store(sum, std::memory_order_relaxed);
      }
    }
  }
  if (!stats.stalled.empty()) return "the run stalled: " + stats.stalled;

  LockTableResult& r = *out;
  const Tally& s = totals.sum;
  r.ops = s.ops;
  r.elapsed_ns = s.started && s.last_end > s.first_start ? s.last_end - s.first_start : stats.elapsed_ns;
  r.mops = r.elapsed_ns > 0 ? static_cast<double>(r.ops) * 1e3 / static_cast<double>(r.elapsed_ns) : 0;
  r.latency = s.latency;
  r.local_latency = s.local_latency;
  r.remote_latency = s.remote_latency;
  r.totals = s.stats;
  r.failures = s.failures;
  r.nic = stats.counters;
  r.nic["run.verbs"] = static_cast<double>(stats.verbs);
  r.nic["run.events"] = static_cast<double>(stats.events);
  r.nic["run.wall_seconds"] = stats.wall_seconds;
  if (o.verify) {
    for (uint64_t i = 0; i < tc.locks; ++i) {
      const uint64_t got = backend->host_load(counter_of(i));
      const uint64_t want = acquired[i].load(std::memory_order_relaxed);
      if (got != want) {
        r.exact = false;
        std::ostringstream m;
        m << "lock " << i << " (node " << i % nodes << "): counter " << got << " after " << want
          << " acquisitions";
        r.mismatch = m.str();
        break;
      }
    }
  }
  // Failed calls are not a mismatch of the counters; say what the first was.
  if (r.failures > 0 && r.mismatch.empty() && !s.error.empty()) r.mismatch = "first failure: " + s.error;
  return {};
}

}  // namespace lw::workloads
