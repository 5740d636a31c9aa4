#include "runs/hash_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "latchwork/backends.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/sim/timeline.h"
#include "run_common.h"
#include "latchwork/structures/race/hash_table.h"
#include "structures/race/load_image_key.h"
#include "verbs/node_memory_reuse.h"

namespace lw {
namespace {

using run_common::percentile_us;
using run_common::process_seed;

// The value a key holds after the load phase: below 2^32, so it can never
// equal a value a coroutine writes (those carry the writer in the high bits).
uint64_t initial_value(uint64_t key) { return key; }

struct UpdateLog {
  uint64_t key, value;
  bool ok;
};

// What one coroutine measured; merged under a lock (the threads backend
// runs coroutines on many OS threads).
struct Tally {
  uint64_t ops = 0, lookups = 0, updates = 0, not_found = 0, failed = 0;
  uint64_t retries = 0, round_trips = 0, bytes = 0, work_requests = 0;
  std::vector<uint64_t> retry_hist = std::vector<uint64_t>(HashRunOptions::kRetryBuckets, 0);
  std::vector<Nanos> latencies;
  bool started = false;  // first_start is set
  Nanos first_start = 0, last_end = 0;
  std::string error;
};

struct Totals {
  std::mutex mu;
  Tally sum;
  std::vector<std::vector<UpdateLog>> logs;  // by worker index (verify only)
  void add(Tally& t, std::vector<UpdateLog>&& log, uint64_t worker) {
    std::lock_guard<std::mutex> g(mu);
    sum.ops += t.ops;
    sum.lookups += t.lookups;
    sum.updates += t.updates;
    sum.not_found += t.not_found;
    sum.failed += t.failed;
    sum.retries += t.retries;
    sum.round_trips += t.round_trips;
    sum.bytes += t.bytes;
    sum.work_requests += t.work_requests;
    for (size_t i = 0; i < t.retry_hist.size(); ++i) sum.retry_hist[i] += t.retry_hist[i];
    sum.latencies.insert(sum.latencies.end(), t.latencies.begin(), t.latencies.end());
    if (t.started && (!sum.started || t.first_start < sum.first_start)) {
      sum.started = true;
      sum.first_start = t.first_start;
    }
    sum.last_end = std::max(sum.last_end, t.last_end);
    if (sum.error.empty()) sum.error = t.error;
    if (!log.empty()) {
      if (logs.size() <= worker) logs.resize(worker + 1);
      logs[worker] = std::move(log);
    }
  }
};

// The exact final-state check: the table holds every loaded key once, and
// each key's value is its initial value or one that was written to it; a
// key written by one coroutine whose updates all succeeded holds the last.
std::string check_final_state(Backend& b, const race::HashTable& table, const ycsb::Workload& wl,
                              const std::vector<std::vector<UpdateLog>>& logs) {
  std::string why;
  const Result<std::map<uint64_t, uint64_t>> got = table.host_contents(b, &why);
  if (!ok(got.status)) {
    std::ostringstream e;
    e << "the table is corrupt (" << to_string(got.status) << "): " << why;
    return e.str();
  }
  const std::map<uint64_t, uint64_t>& contents = got.value;
  if (contents.size() != wl.spec().keys) {
    std::ostringstream e;
    e << "the table holds " << contents.size() << " keys, " << wl.spec().keys << " were loaded";
    return e.str();
  }
  struct Written {
    std::vector<uint64_t> values;
    int64_t writer = -1;       // the single writer, or -2 for several
    bool all_ok = true;
    uint64_t last = 0;
  };
  std::unordered_map<uint64_t, Written> written;
  for (size_t w = 0; w < logs.size(); ++w) {
    for (const UpdateLog& u : logs[w]) {
      Written& x = written[u.key];
      x.values.push_back(u.value);
      x.writer = x.writer == -1 || x.writer == static_cast<int64_t>(w) ? static_cast<int64_t>(w) : -2;
      x.all_ok = x.all_ok && u.ok;
      x.last = u.value;
    }
  }
  for (uint64_t r = 0; r < wl.spec().keys; ++r) {
    const uint64_t key = wl.key_of_rank(r);
    auto it = contents.find(key);
    std::ostringstream e;
    if (it == contents.end()) {
      e << "loaded key " << key << " is missing";
      return e.str();
    }
    auto wit = written.find(key);
    if (wit == written.end()) {
      if (it->second != initial_value(key)) {
        e << "key " << key << " was never written but holds " << it->second;
        return e.str();
      }
      continue;
    }
    const Written& x = wit->second;
    if (x.writer >= 0 && x.all_ok && it->second != x.last) {
      e << "key " << key << " holds " << it->second << ", its only writer last wrote " << x.last;
      return e.str();
    }
    if (it->second != initial_value(key) &&
        std::find(x.values.begin(), x.values.end(), it->second) == x.values.end()) {
      e << "key " << key << " holds " << it->second << ", a value nobody wrote to it";
      return e.str();
    }
  }
  return {};
}

// Under partitioned writes every key has one writer (hash_run.h): the
// check is exact for every key, not only for keys a single coroutine wrote
// by chance. `first_writer` is this process's first global writer index,
// `writers` those of every process. Lists up to kShown mismatches.
std::string check_partitioned_state(Backend& b, const race::HashTable& table, const ycsb::Workload& wl,
                                    const std::vector<std::vector<UpdateLog>>& logs, uint64_t first_writer,
                                    uint64_t local_writers, uint64_t writers, uint64_t* exact_keys) {
  constexpr uint64_t kShown = 10;
  std::string why;
  const Result<std::map<uint64_t, uint64_t>> got = table.host_contents(b, &why);
  if (!ok(got.status)) {
    std::ostringstream e;
    e << "the table is corrupt (" << to_string(got.status) << "): " << why;
    return e.str();
  }
  const std::map<uint64_t, uint64_t>& contents = got.value;
  // The last value each of this process's writers wrote to each key. A key
  // has one writer, so the log order of that writer is the key's order.
  std::unordered_map<uint64_t, uint64_t> last;
  for (size_t w = 0; w < logs.size(); ++w)
    for (const UpdateLog& u : logs[w])
      if (u.ok) last[u.key] = u.value;
  const uint64_t keys = wl.spec().keys;
  uint64_t mismatches = 0, exact = 0;
  std::ostringstream shown;
  auto mismatch = [&](uint64_t key, const std::string& expected, const std::string& found) {
    if (mismatches++ < kShown) shown << "; key " << key << ": expected " << expected << ", found " << found;
  };
  for (uint64_t r = 0; r < keys; ++r) {
    const uint64_t key = wl.key_of_rank(r);
    LW_CHECK(key >= 1 && key <= keys);
    const uint64_t owner = (key - 1) % writers;
    const auto it = contents.find(key);
    const bool mine = owner >= first_writer && owner < first_writer + local_writers;
    if (mine) {
      ++exact;
      const auto lit = last.find(key);
      const uint64_t want = lit == last.end() ? initial_value(key) : lit->second;
      if (it == contents.end()) mismatch(key, std::to_string(want), "no such key");
      else if (it->second != want) mismatch(key, std::to_string(want), std::to_string(it->second));
      continue;
    }
    // Another process's writer: its loaded value, or one its writer tagged.
    const bool present = it != contents.end();
    if (!present || (it->second != initial_value(key) &&
                     (it->second >> 32 != owner + 1 || (it->second & 0xffffffffull) == 0))) {
      std::ostringstream want;
      want << initial_value(key) << " or a value of writer " << owner << " ((" << (owner + 1) << " << 32) | seq)";
      mismatch(key, want.str(), present ? std::to_string(it->second) : "no such key");
    }
  }
  // Every loaded key was found above; a larger table holds keys nobody loaded.
  if (contents.size() != keys && mismatches++ < kShown)
    shown << "; the table holds " << contents.size() << " keys, " << keys << " were loaded";
  *exact_keys = exact;
  if (mismatches == 0) return {};
  std::ostringstream e;
  e << mismatches << " mismatches in the final state (first " << std::min(mismatches, kShown) << shown.str() << ")";
  return e.str();
}


}  // namespace

bool apply_hash_table_preset(const std::string& table, ClusterConfig* c) {
  const bool smart = table == "smart-ht";
  if (!smart && table != "race") return false;
  c->nic.qp_policy = smart ? QpPolicy::kPerThreadDoorbell : QpPolicy::kPerThreadQp;
  c->smart.throttling = smart;
  c->smart.backoff = smart;
  c->smart.dynamic_limit = smart;
  c->smart.coroutine_throttling = smart;
  return true;
}

void divide_policy_time(ClusterConfig* c, uint32_t divisor) {
  LW_CHECK(divisor >= 1);
  c->smart.delta_ns = std::max<Nanos>(1, c->smart.delta_ns / divisor);
  c->smart.retry_window_ns = std::max<Nanos>(1, c->smart.retry_window_ns / divisor);
}

uint32_t undivide_policy_time(ClusterConfig* c) {
  const SmartConfig paper;
  LW_CHECK(c->smart.delta_ns > 0 && c->smart.delta_ns <= paper.delta_ns);
  const auto divisor = static_cast<uint32_t>(paper.delta_ns / c->smart.delta_ns);
  c->smart.delta_ns = paper.delta_ns;
  c->smart.retry_window_ns = paper.retry_window_ns;
  return divisor;
}

std::string HashRunOptions::validate(const ClusterConfig& c) const {
  if (std::string e = c.validate(); !e.empty()) return e;
  ycsb::WorkloadSpec spec{mix, keys, zipf, workload_seed};
  if (std::string e = spec.validate(); !e.empty()) return e;
  race::TableConfig tc;
  tc.capacity = keys;
  if (std::string e = tc.validate(); !e.empty()) return e;
  if (ops_per_worker == 0 && (measure_ns == 0 || measure_ns > ClusterConfig::kMaxLatencyNs ||
                              warmup_ns > ClusterConfig::kMaxLatencyNs))
    return "the measurement window must be in (0, 1 s] and the warm-up in [0, 1 s] of virtual time";
  if (ops_per_worker > max_ops_per_worker) return "ops per worker above the loop bound";
  if (drain_ns > ClusterConfig::kMaxLatencyNs) return "the drain after the window must be at most 1 s of virtual time";
  if (drain_ns > 0 && (ops_per_worker > 0 || checks()))
    return "a drain deadline needs the measurement window and no final-state check (writes in flight at the deadline)";
  if (!(offered_mops >= 0 && offered_mops <= 1e4)) return "offered load must be in [0, 10000] Mops";
  if (think_ns > ClusterConfig::kMaxLatencyNs) return "the think time must be at most 1 s of virtual time";
  if (think_ns > 0 && offered_mops > 0)
    return "pace the load either open-loop (offered Mops) or closed-loop (think time), not both";
  if (c.total_workers() * ClusterConfig::kMaxBatchWrs > uint64_t{c.queue_depth} * c.total_compute_threads())
    return "each coroutine needs " + std::to_string(ClusterConfig::kMaxBatchWrs) +
           " work requests of its thread's queue pair: raise queue_depth or lower --coroutines";
  if (checks() && ops_per_worker * c.total_workers() > kMaxVerifiedOps)
    return "--verify logs every update: at most 2^22 operations (use --ops-per-worker)";
  std::ostringstream e;
  if (processes == 0 || processes > kMaxProcesses) {
    e << "processes must be in [1, " << kMaxProcesses << "]";
    return e.str();
  }
  if (process_index >= processes) {
    e << "the process index must be below the processes (" << processes << ")";
    return e.str();
  }
  if (processes > 1 && shared_name.empty()) return "several processes need a shared table name";
  if (processes > 1 && verify && !partitioned_writes)
    return "several processes can check the final state only with partitioned writes";
  if (partitioned_writes && keys < uint64_t{processes} * c.total_workers()) {
    e << "partitioned writes need at least one key per writer: --keys below processes x workers ("
      << uint64_t{processes} * c.total_workers() << ")";
    return e.str();
  }
  if (barrier_timeout_ms == 0 || barrier_timeout_ms > 3'600'000) return "the barrier timeout must be in [1, 3600000] ms";
  return {};
}

HashRunResult run_hash(const ClusterConfig& cluster, const HashRunOptions& o) {
  const std::string invalid = o.validate(cluster);
  LW_CHECK_MSG(invalid.empty(), invalid);
  HashRunResult r;
  r.table = o.table;
  r.mix = ycsb::to_string(o.mix);
  r.processes = o.processes;
  r.process_index = o.process_index;
  std::string err;
  ClusterConfig mine = cluster;
  mine.seed = process_seed(cluster.seed, o.process_index);
  run_common::DrainDeadline drain(&mine, o.warmup_ns, o.measure_ns, o.drain_ns);
  std::unique_ptr<Backend> backend = make_backend(mine, &err);
  LW_CHECK_MSG(backend, err);
  if (o.timeline) o.timeline->attach(*backend);
  const ClusterConfig& c = backend->config();
  race::TableConfig tc;
  tc.capacity = o.keys;
  tc.shared_name = o.shared_name;
  Result<race::HashTable> created = race::HashTable::create(*backend, tc);
  if (!ok(created.status)) {
    std::ostringstream e;
    e << "the table does not fit the memory nodes (" << to_string(created.status)
      << "): raise memory_node_bytes or lower --keys";
    if (!o.shared_name.empty()) e << " (or the shared name \"" << o.shared_name << "\" holds a table of another size)";
    r.error = e.str();
    return r;
  }
  const race::HashTable table = created.value;
  const ycsb::Workload wl({o.mix, o.keys, o.zipf, o.workload_seed});
  const bool several = o.processes > 1;

  // The load phase, host-side (not measured; its wall time is reported).
  // One process loads a shared table; the others wait for it at the barrier.
  const auto load_start = std::chrono::steady_clock::now();
  if (o.process_index == 0) {
    race::HostRecords records;
    records.reserve(o.keys);
    for (uint64_t rank = 0; rank < o.keys; ++rank) {
      const uint64_t key = wl.key_of_rank(rank);
      records.emplace_back(key, initial_value(key));
    }
    // A figure's points load the same records: the first one's image, kept
    // in the set-up store while node memory reuse is in effect (repro). A
    // shared table's load is one process's: no image of it is reused.
    const bool reuse = !several && NodeMemoryReuse::active();
    std::optional<SetupKey> key;
    if (reuse) key.emplace(race::load_image_key(table, records));
    const std::shared_ptr<const race::HostLoadImage> image =
        reuse ? SetupStore::process().find<const race::HostLoadImage>(*key) : nullptr;
    size_t failed = 0;
    if (Status s = table.host_load(*backend, records, image.get(), &failed); !ok(s)) {
      r.error = "loading key " + std::to_string(records[failed].first) + " failed: " + std::string(to_string(s));
      return r;
    }
    if (reuse && !image)
      if (auto made = table.host_image(*backend, records)) {
        const uint64_t bytes = made->bytes();
        SetupStore::process().add(std::move(*key), std::move(made), bytes, SetupLifetime::kReuseScope);
      }
  }
  r.load_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  if (several) {
    if (std::string e = backend->barrier(o.shared_name + "/hash-loaded", o.processes, o.barrier_timeout_ms);
        !e.empty()) {
      r.error = "waiting for the load: " + e;
      return r;
    }
  }

  smart::Runtime rt(c);
  Totals totals;
  const uint64_t workers = c.total_workers();
  // Global writer indexes: this process's coroutines are [first_writer,
  // first_writer + workers) of all_writers (every process has the same cluster).
  const uint64_t first_writer = uint64_t{o.process_index} * workers;
  const uint64_t all_writers = uint64_t{o.processes} * workers;
  const bool fixed = o.ops_per_worker > 0;
  const Nanos gap_ns = o.offered_mops > 0
                           ? static_cast<Nanos>(static_cast<double>(workers) * 1e3 / o.offered_mops)
                           : 0;
  // Tallies live here, not in the coroutines' frames, so that a run stopped
  // at the drain deadline still merges those of coroutines in an operation.
  std::vector<Tally> tallies(workers);
  std::vector<char> merged(workers, 0);
  backend->spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    const Placement& p = w.placement();
    const uint64_t index = (uint64_t{p.node} * c.threads_per_node + p.thread) * c.coroutines_per_thread + p.coroutine;
    LW_CHECK(index < workers);
    Tally& t = tallies[index];
    std::vector<UpdateLog> log;
    const Nanos start = w.now();
    const Nanos window_begin = start + o.warmup_ns, window_end = window_begin + o.measure_ns;
    drain.note(window_end);
    // Paced coroutines start at a random phase so that they do not all fire at once.
    const Nanos phase = gap_ns > 0 ? static_cast<Nanos>(w.rng().below(static_cast<uint64_t>(gap_ns))) : 0;
    // Closed-loop coroutines start one think time apart at random, or they
    // would stay in step and arrive in bursts of every coroutine at once.
    if (o.think_ns > 0) co_await w.sleep(static_cast<Nanos>(w.rng().below(static_cast<uint64_t>(o.think_ns))));
    uint64_t seq = 0;
    const uint64_t limit = fixed ? o.ops_per_worker : o.max_ops_per_worker;
    for (uint64_t i = 0; i < limit; ++i) {
      if (i > 0 && o.think_ns > 0) co_await w.sleep(o.think_ns);
      Nanos t0 = w.now();
      if (!fixed && t0 >= window_end) break;
      if (gap_ns > 0) {
        const Nanos due = start + phase + static_cast<Nanos>(i) * gap_ns;
        if (t0 < due) co_await w.sleep(due - t0);
        t0 = w.now();
        if (!fixed && t0 >= window_end) break;
      }
      w.compute(CpuWork::kOpIssue, 1);  // draw the operation and its key, time it
      ycsb::Op op = wl.next(w.rng());
      const OpCounters before = w.counters();
      Status s = Status::kOk;
      bool found = true;
      if (op.type == ycsb::OpType::kLookup) {
        const Result<race::HashTable::Found> res = co_await table.lookup(ctx, op.key);
        s = res.status;
        found = res.value.found;
      } else {
        // The writer's global index tags the value (another process's
        // check tells whose it is); seq makes every value of a writer distinct.
        const uint64_t writer = first_writer + index;
        const uint64_t value = ((writer + 1) << 32) | (++seq & 0xffffffffull);
        if (o.partitioned_writes) {
          // Move the key within its block of all_writers indexes to the one
          // this writer owns; the block past the end is partial, so step back
          // a block (keys >= all_writers: validate()).
          uint64_t i = op.key - 1;
          i = i - i % all_writers + writer;
          if (i >= o.keys) i -= all_writers;
          op.key = i + 1;
        }
        const Result<bool> res = co_await table.update(ctx, op.key, value);
        s = res.status;
        found = res.value;
        if (o.checks()) log.push_back({op.key, value, ok(s) && found});
      }
      const Nanos t1 = w.now();
      const OpCounters& after = w.counters();
      if (!ok(s)) {
        ++t.failed;
        if (t.error.empty()) {
          std::ostringstream e;
          e << (op.type == ycsb::OpType::kLookup ? "a lookup" : "an update") << " of key " << op.key
            << " failed with " << to_string(s) << " (worker " << p.node << "/" << p.thread << "/" << p.coroutine << ")";
          t.error = e.str();
        }
        // Only a bounded retry loop giving up lets the coroutine go on; any
        // other status is a broken queue pair or memory node.
        if (s != Status::kRetryExhausted) break;
        continue;
      }
      if (!found) {
        ++t.not_found;
        if (t.error.empty()) t.error = "key " + std::to_string(op.key) + " was loaded but not found";
      }
      if (!fixed && (t1 < window_begin || t1 >= window_end)) continue;
      if (!t.started) {
        t.started = true;
        t.first_start = t0;
      }
      t.last_end = t1;
      ++t.ops;
      t.latencies.push_back(t1 - t0);
      t.round_trips += after.round_trips - before.round_trips;
      t.work_requests += after.work_requests - before.work_requests;
      t.bytes += (after.bytes_read - before.bytes_read) + (after.bytes_written - before.bytes_written);
      if (op.type == ycsb::OpType::kLookup) {
        ++t.lookups;
      } else {
        ++t.updates;
        const uint64_t retries = after.retries - before.retries;
        t.retries += retries;
        ++t.retry_hist[std::min<uint64_t>(retries, HashRunOptions::kRetryBuckets - 1)];
      }
    }
    totals.add(t, std::move(log), index);
    merged[index] = 1;
  });
  const RunStats stats = backend->run();
  const bool drained = drain.stopped(stats, c.budget.max_events);
  if (drained) {
    for (uint64_t i = 0; i < workers; ++i) {
      if (merged[i]) continue;
      totals.add(tallies[i], {}, i);
      ++r.drained_workers;
    }
  } else {
    require_within_budget(stats);
  }
  // Everyone reaches this barrier, failed or not, so that no process waits
  // out the timeout for one that stopped early; the check needs every
  // process's writes done.
  std::string done_error;
  if (several) done_error = backend->barrier(o.shared_name + "/hash-done", o.processes, o.barrier_timeout_ms);

  Tally& s = totals.sum;
  r.workers = workers;
  r.ops = s.ops;
  r.lookups = s.lookups;
  r.updates = s.updates;
  r.not_found = s.not_found;
  r.failed = s.failed;
  const double span_ns = fixed ? static_cast<double>(std::max<Nanos>(1, s.last_end > s.first_start ? s.last_end - s.first_start : 0))
                               : static_cast<double>(o.measure_ns);
  r.mops = static_cast<double>(s.ops) * 1e3 / span_ns;
  std::sort(s.latencies.begin(), s.latencies.end());
  r.latency_us_p50 = percentile_us(s.latencies, 0.50);
  r.latency_us_p99 = percentile_us(s.latencies, 0.99);
  if (!s.latencies.empty()) {
    double sum = 0;
    for (Nanos l : s.latencies) sum += static_cast<double>(l);
    r.latency_us_mean = sum / static_cast<double>(s.latencies.size()) / 1e3;
  }
  r.update_retries = s.retry_hist;
  if (s.updates) {
    r.retries_per_update = static_cast<double>(s.retries) / static_cast<double>(s.updates);
    r.updates_without_retry = static_cast<double>(s.retry_hist[0]) / static_cast<double>(s.updates);
  }
  if (s.ops) {
    const double n = static_cast<double>(s.ops);
    r.round_trips_per_op = static_cast<double>(s.round_trips) / n;
    r.bytes_per_op = static_cast<double>(s.bytes) / n;
    r.work_requests_per_op = static_cast<double>(s.work_requests) / n;
  }
  const OpStats rs = rt.stats();
  r.runtime_retries_per_update = rs.kind(race::kUpdate).retries.mean();
  r.runtime_round_trips_per_op = rs.total().round_trips.mean();
  const std::vector<smart::ThreadSummary> ts = rt.summaries();
  const size_t compute = std::min<size_t>(ts.size(), c.total_compute_threads());  // compute threads first
  for (size_t i = 0; i < compute; ++i) {
    r.credits_limit_mean += ts[i].credits_limit;
    r.t_max_us_mean += static_cast<double>(ts[i].t_max_ns) / 1e3;
    r.c_max_mean += ts[i].c_max;
  }
  if (compute) {
    r.credits_limit_mean /= static_cast<double>(compute);
    r.t_max_us_mean /= static_cast<double>(compute);
    r.c_max_mean /= static_cast<double>(compute);
  }
  r.verbs = stats.verbs;
  r.wall_seconds = stats.wall_seconds;
  r.elapsed_ns = stats.elapsed_ns;
  if (c.backend == "sim" && stats.wall_seconds > 0)
    r.sim_verbs_per_wall_second = static_cast<double>(stats.verbs) / stats.wall_seconds;
  r.trace_hash = stats.trace_hash;
  r.counters = stats.counters;
  r.error = s.error;
  if (r.error.empty() && !stats.stalled.empty()) r.error = "the run stalled: " + stats.stalled;
  if (r.error.empty() && !done_error.empty()) r.error = "waiting for the other processes: " + done_error;
  if (o.checks() && r.error.empty()) {
    r.error = o.partitioned_writes ? check_partitioned_state(*backend, table, wl, totals.logs, first_writer, workers,
                                                             all_writers, &r.keys_checked_exact)
                                   : check_final_state(*backend, table, wl, totals.logs);
    r.verified = r.error.empty();
  }
  return r;
}

std::string HashRunResult::to_json() const {
  char hash[32];
  std::snprintf(hash, sizeof hash, "0x%016llx", static_cast<unsigned long long>(trace_hash));
  nlohmann::json j = {{"table", table},
                      {"workload", mix},
                      {"workers", workers},
                      {"ops", ops},
                      {"lookups", lookups},
                      {"updates", updates},
                      {"not_found", not_found},
                      {"failed", failed},
                      {"mops", mops},
                      {"latency_us", {{"p50", latency_us_p50}, {"p99", latency_us_p99}, {"mean", latency_us_mean}}},
                      {"retries_per_update", retries_per_update},
                      {"update_retry_counts", update_retries},
                      {"updates_without_retry", updates_without_retry},
                      {"round_trips_per_op", round_trips_per_op},
                      {"work_requests_per_op", work_requests_per_op},
                      {"bytes_per_op", bytes_per_op},
                      {"runtime_stats", {{"retries_per_update", runtime_retries_per_update},
                                         {"round_trips_per_op", runtime_round_trips_per_op}}},
                      {"policies", {{"credits_limit_mean", credits_limit_mean},
                                    {"t_max_us_mean", t_max_us_mean},
                                    {"c_max_mean", c_max_mean}}},
                      {"verbs", verbs},
                      {"elapsed_ns", elapsed_ns},
                      {"wall_seconds", wall_seconds},
                      {"load_wall_seconds", load_wall_seconds},
                      {"counters", counters},
                      {"processes", processes},
                      {"process_index", process_index},
                      {"keys_checked_exact", keys_checked_exact},
                      {"verified", verified},
                      {"drained_workers", drained_workers},
                      {"trace_hash", hash}};
  if (sim_verbs_per_wall_second > 0) j["sim_verbs_per_wall_second"] = sim_verbs_per_wall_second;
  if (!error.empty()) j["error"] = error;
  return j.dump();
}

PerfResult HashRunResult::to_perf_result() const {
  PerfResult p = run_common::base_perf_result(*this, table);
  p.sim_verbs_per_wall_second = sim_verbs_per_wall_second;
  p.counters["hash.retries_per_update"] = retries_per_update;
  p.counters["hash.updates_without_retry_pct"] = 100 * updates_without_retry;
  p.counters["hash.round_trips_per_op"] = round_trips_per_op;
  p.counters["hash.bytes_per_op"] = bytes_per_op;
  p.counters["hash.credits_limit_mean"] = credits_limit_mean;
  p.counters["hash.t_max_us_mean"] = t_max_us_mean;
  p.counters["hash.c_max_mean"] = c_max_mean;
  for (size_t i = 0; i < update_retries.size(); ++i)
    p.counters["hash.retry_share_pct." + std::to_string(i)] =
        updates ? 100.0 * static_cast<double>(update_retries[i]) / static_cast<double>(updates) : 0;
  p.trace_hash = trace_hash;
  p.error = error;
  return p;
}

}  // namespace lw
