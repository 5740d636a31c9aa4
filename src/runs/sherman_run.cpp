// The B+Tree experiment (sherman_run.h): Sherman §5, SMART §6.2.3.
#include "runs/sherman_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "latchwork/backends.h"
#include "runs/hash_run.h"
#include "latchwork/runtime/op_stats.h"
#include "run_common.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/sim/timeline.h"

namespace lw {
namespace {

using run_common::percentile_us;
using run_common::process_seed;

using tree_workload::KeySet;
using tree_workload::OpType;

// What one coroutine measured in the window; merged under a lock.
struct Tally {
  uint64_t ops = 0, lookups = 0, inserts = 0, ranges = 0, removes = 0, fresh = 0, not_found = 0, failed = 0;
  uint64_t splitting = 0, range_keys = 0;
  uint64_t round_trips = 0, bytes = 0;
  Histogram write_rt, write_bytes_no_split, write_bytes;
  std::vector<uint64_t> lookup_retries = std::vector<uint64_t>(ShermanRunOptions::kBuckets, 0);
  std::vector<Nanos> latencies;
  bool started = false;
  Nanos first_start = 0, last_end = 0;
  std::string error;
};

struct Totals {
  std::mutex mu;
  Tally sum;
  // verify: the last value each of this process's writers wrote to each key.
  std::unordered_map<uint64_t, uint64_t> last;
  void add(Tally& t, const std::unordered_map<uint64_t, uint64_t>& written) {
    std::lock_guard<std::mutex> g(mu);
    sum.ops += t.ops;
    sum.lookups += t.lookups;
    sum.inserts += t.inserts;
    sum.ranges += t.ranges;
    sum.removes += t.removes;
    sum.fresh += t.fresh;
    sum.not_found += t.not_found;
    sum.failed += t.failed;
    sum.splitting += t.splitting;
    sum.range_keys += t.range_keys;
    sum.round_trips += t.round_trips;
    sum.bytes += t.bytes;
    sum.write_rt.merge(t.write_rt);
    sum.write_bytes_no_split.merge(t.write_bytes_no_split);
    sum.write_bytes.merge(t.write_bytes);
    for (size_t i = 0; i < t.lookup_retries.size(); ++i) sum.lookup_retries[i] += t.lookup_retries[i];
    sum.latencies.insert(sum.latencies.end(), t.latencies.begin(), t.latencies.end());
    if (t.started && (!sum.started || t.first_start < sum.first_start)) {
      sum.started = true;
      sum.first_start = t.first_start;
    }
    sum.last_end = std::max(sum.last_end, t.last_end);
    if (sum.error.empty()) sum.error = t.error;
    for (const auto& [k, v] : written) last[k] = v;  // one writer per key: no overlap
  }
};

// The exact final-state check under partitioned writes: every loaded key
// and every fresh key of this process's writers holds exactly what the
// model says; keys of other processes' writers hold their loaded value or
// one their writer tagged; no key is there that nobody loaded or inserted.
std::string check_final_state(Backend& b, const sherman::Tree& tree, const KeySet& ks,
                              const std::unordered_map<uint64_t, uint64_t>& last, uint64_t first_writer,
                              uint64_t local_writers, uint64_t all_writers, bool removes, uint64_t* exact_keys) {
  constexpr uint64_t kShown = 10;
  std::string why;
  const Result<std::map<uint64_t, uint64_t>> got = tree.host_contents(b, &why);
  if (!ok(got.status)) return "the tree is corrupt (" + std::string(to_string(got.status)) + "): " + why;
  const std::map<uint64_t, uint64_t>& contents = got.value;
  uint64_t mismatches = 0, exact = 0;
  std::ostringstream shown;
  auto mismatch = [&](uint64_t key, const std::string& expected, const std::string& found) {
    if (mismatches++ < kShown) shown << "; key " << key << ": expected " << expected << ", found " << found;
  };
  auto mine = [&](uint64_t writer) { return writer >= first_writer && writer < first_writer + local_writers; };
  for (uint64_t i = 0; i < ks.size(); ++i) {
    const uint64_t key = ks.key(i);
    const uint64_t owner = i % all_writers;
    const auto it = contents.find(key);
    if (mine(owner)) {
      ++exact;
      const auto lit = last.find(key);
      const uint64_t want = lit == last.end() ? tree_workload::initial_value(key) : lit->second;
      if (want == tree_workload::kRemovedMark) {
        if (it != contents.end()) mismatch(key, "no such key (removed last)", std::to_string(it->second));
      } else if (it == contents.end()) {
        mismatch(key, std::to_string(want), "no such key");
      } else if (it->second != want) {
        mismatch(key, std::to_string(want), std::to_string(it->second));
      }
    } else if (it == contents.end()) {
      if (!removes) mismatch(key, "a loaded key", "no such key");
    } else if (it->second != tree_workload::initial_value(key) &&
               tree_workload::value_writer_plus_one(it->second) != owner + 1) {
      mismatch(key, "its loaded value or one of writer " + std::to_string(owner), std::to_string(it->second));
    }
  }
  // Fresh keys: those this process's writers inserted, exactly.
  for (const auto& [key, value] : last) {
    if (!tree_workload::is_fresh(key)) continue;
    ++exact;
    const auto it = contents.find(key);
    if (it == contents.end()) mismatch(key, std::to_string(value), "no such key");
    else if (it->second != value) mismatch(key, std::to_string(value), std::to_string(it->second));
  }
  // Keys nobody loaded: fresh keys of another process's writers only.
  const std::vector<uint64_t>& loaded = ks.sorted();
  for (const auto& [key, value] : contents) {
    if (!tree_workload::is_fresh(key)) {
      if (!std::binary_search(loaded.begin(), loaded.end(), key)) mismatch(key, "no such key (never loaded)", std::to_string(value));
      continue;
    }
    const uint64_t w = tree_workload::fresh_writer(key);
    if (mine(w)) {
      if (!last.count(key)) mismatch(key, "no such key (never inserted)", std::to_string(value));
    } else if (tree_workload::value_writer_plus_one(value) != w + 1) {
      mismatch(key, "a value of writer " + std::to_string(w), std::to_string(value));
    }
  }
  *exact_keys = exact;
  if (mismatches == 0) return {};
  std::ostringstream e;
  e << mismatches << " mismatches in the final state (first " << std::min(mismatches, kShown) << shown.str() << ")";
  return e.str();
}

}  // namespace

bool apply_sherman_index(const std::string& index, ShermanRunOptions* o, ClusterConfig* c) {
  sherman::TreeConfig t = o->tree;
  if (!sherman::apply_index_preset(index, &t, c)) return false;
  o->index = index;
  o->tree = t;
  if (index == "smart-bt") divide_policy_time(c, kDefaultPolicyTimeDivisor);
  return true;
}

std::string ShermanRunOptions::validate(const ClusterConfig& c) const {
  if (std::string e = c.validate(); !e.empty()) return e;
  if (std::string e = tree.validate(); !e.empty()) return e;
  if (keys == 0 || keys > kMaxKeys) return "keys must be in [1, 2^32]";
  if (!(zipf >= 0 && zipf < 10)) return "zipf must be in [0, 10)";
  if (zipf > 0) {
    if (std::string e = ZipfKeys::validate(keys, zipf); !e.empty()) return e;
  }
  if (range_size == 0 || range_size > keys) return "the range size must be in [1, keys]";
  if (ops_per_worker == 0 && (measure_ns == 0 || measure_ns > ClusterConfig::kMaxLatencyNs || 
                              warmup_ns > ClusterConfig::kMaxLatencyNs))
    return "the measurement window must be in (0, 1 s] and the warm-up in [0, 1 s] of virtual time";
  if (ops_per_worker > max_ops_per_worker) return "ops per worker above the loop bound";
  if (drain_ns > ClusterConfig::kMaxLatencyNs) return "the drain after the window must be at most 1 s of virtual time";
  if (drain_ns > 0 && (ops_per_worker > 0 || verify))
    return "a drain deadline needs the measurement window and no --verify (writes in flight at the deadline)";
  if (c.total_workers() * ClusterConfig::kMaxBatchWrs > uint64_t{c.queue_depth} * c.total_compute_threads())
    return "each coroutine needs " + std::to_string(ClusterConfig::kMaxBatchWrs) +
           " work requests of its thread's queue pair: raise queue_depth or lower --coroutines";
  if (processes == 0 || processes > HashRunOptions::kMaxProcesses) return "processes must be in [1, 1024]";
  if (process_index >= processes) return "the process index must be below the processes";
  if (processes > 1 && shared_name.empty()) return "several processes need a shared tree name";
  const uint64_t writers = uint64_t{processes} * c.total_workers();
  if (writers > kMaxWriters) return "at most 65536 coroutines over all processes (fresh keys carry their writer)";
  if (verify && keys < writers)
    return "--verify partitions the writes: at least one loaded key per coroutine (keys >= " + std::to_string(writers) +
           ")";
  if (verify && ops_per_worker * c.total_workers() > kMaxVerifiedOps)
    return "--verify logs every write: at most 2^22 operations (use --ops-per-worker)";
  if (barrier_timeout_ms == 0 || barrier_timeout_ms > 3'600'000) return "the barrier timeout must be in [1, 3600000] ms";
  return {};
}

ShermanRunResult run_sherman(const ClusterConfig& cluster, const ShermanRunOptions& o) {
  const std::string invalid = o.validate(cluster);
  LW_CHECK_MSG(invalid.empty(), invalid);
  ShermanRunResult r;
  r.index = o.index;
  r.mix = to_string(o.mix);
  std::string err;
  ClusterConfig mine = cluster;
  mine.seed = process_seed(cluster.seed, o.process_index);
  run_common::DrainDeadline drain(&mine, o.warmup_ns, o.measure_ns, o.drain_ns);
  std::unique_ptr<Backend> backend = make_backend(mine, &err);
  LW_CHECK_MSG(backend, err);
  if (o.timeline) o.timeline->attach(*backend);
  const ClusterConfig& c = backend->config();
  sherman::TreeConfig tc = o.tree;
  if (!o.shared_name.empty()) tc.shared_name = o.shared_name;
  // Process 0 creates and loads the tree; the others adopt it by name after
  // the load barrier (two creates at once would both find no root).
  auto create = [&](sherman::Tree* out) {
    Result<sherman::Tree> created = sherman::Tree::create(*backend, tc);
    if (!ok(created.status)) {
      r.error = "creating the tree failed (" + std::string(to_string(created.status)) +
                "): raise memory_node_bytes or check the tree options";
      return false;
    }
    *out = created.value;
    return true;
  };
  sherman::Tree tree;
  if (o.process_index == 0 && !create(&tree)) return r;
  const std::shared_ptr<const KeySet> shared_keys = KeySet::shared(o.keys, o.zipf, o.workload_seed);
  const KeySet& ks = *shared_keys;
  const bool several = o.processes > 1;

  const auto load_start = std::chrono::steady_clock::now();
  if (o.process_index == 0) {
    std::vector<std::pair<uint64_t, uint64_t>> pairs;
    pairs.reserve(ks.size());
    for (uint64_t k : ks.sorted()) pairs.emplace_back(k, tree_workload::initial_value(k));
    if (Status s = tree.bulk_load(*backend, pairs); !ok(s)) {
      r.error = "the bulk load failed (" + std::string(to_string(s)) + "): raise memory_node_bytes or lower --keys";
      return r;
    }
  }
  r.load_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  if (several) {
    if (std::string e = backend->barrier(o.shared_name + "/btree-loaded", o.processes, o.barrier_timeout_ms);
        !e.empty()) {
      r.error = "waiting for the load: " + e;
      return r;
    }
  }
  if (o.process_index > 0 && !create(&tree)) return r;
  tree.warm_cache(*backend);

  smart::Runtime rt(c);
  Totals totals;
  const uint64_t workers = c.total_workers();
  const uint64_t first_writer = uint64_t{o.process_index} * workers;
  const uint64_t all_writers = uint64_t{o.processes} * workers;
  const bool fixed = o.ops_per_worker > 0;
  const bool fresh_inserts = tree_workload::mix_inserts_fresh(o.mix);
  const bool removes = tree_workload::mix_removes(o.mix);
  const uint32_t node_bytes = tc.node_bytes;
  // Counted as operations complete, so that a run stopped at its event
  // budget (o.collapse_at_budget) still reports what its window did.
  std::atomic<uint64_t> window_ops{0}, any_failed{0};
  // Each coroutine's tally lives here, not in its frame, so that a run
  // stopped at the drain deadline still has the tallies of coroutines that
  // were in an operation (merged after the run; `merged` marks the rest).
  std::vector<Tally> tallies(workers);
  std::vector<std::unordered_map<uint64_t, uint64_t>> writes(workers);
  std::vector<char> merged(workers, 0);
  backend->spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    const Placement& p = w.placement();
    const uint64_t index = (uint64_t{p.node} * c.threads_per_node + p.thread) * c.coroutines_per_thread + p.coroutine;
    const uint64_t writer = first_writer + index;
    const bool inserter = writer % 2 == 0;  // range-write: even coroutines insert
    LW_CHECK(index < workers);
    Tally& t = tallies[index];
    std::unordered_map<uint64_t, uint64_t>& written = writes[index];
    std::vector<std::pair<uint64_t, uint64_t>> out;
    const Nanos start = w.now();
    const Nanos window_begin = start + o.warmup_ns, window_end = window_begin + o.measure_ns;
    drain.note(window_end);
    uint64_t seq = 0;
    const uint64_t limit = fixed ? o.ops_per_worker : o.max_ops_per_worker;
    for (uint64_t i = 0; i < limit; ++i) {
      w.compute(CpuWork::kOpIssue, 1);  // draw the operation and its key, time it
      const Nanos t0 = w.now();
      if (!fixed && t0 >= window_end) break;
      const OpType type = tree_workload::draw_op(o.mix, w.rng(), inserter);
      uint64_t li = ks.draw_index(w.rng());
      uint64_t key = ks.key(li);
      const OpCounters before = w.counters();
      Status s = Status::kOk;
      bool found = true, fresh = false;
      uint32_t got = 0;
      std::string bad_range;
      if (type == OpType::kLookup) {
        const Result<sherman::Tree::Found> res = co_await tree.lookup(ctx, key);
        s = res.status;
        found = res.value.found;
      } else if (type == OpType::kRemove) {
        // Loaded keys only, partitioned like updates under verify.
        if (o.verify) {
          li = li - li % all_writers + writer;
          if (li >= ks.size()) li -= all_writers;
          key = ks.key(li);
        }
        const Result<bool> res = co_await tree.remove(ctx, key);
        s = res.status;
        if (o.verify && ok(s)) written[key] = tree_workload::kRemovedMark;
      } else if (type == OpType::kInsert) {
        // Table 3's inserts: 2/3 update a loaded key, 1/3 a fresh key (§5.1.3).
        fresh = fresh_inserts && w.rng().below(3) == 0;
        if (fresh) {
          key = tree_workload::fresh_key(w.rng().next(), writer);
        } else if (o.verify) {
          // Partitioned writes: move the index to this writer's within its block.
          li = li - li % all_writers + writer;
          if (li >= ks.size()) li -= all_writers;
          key = ks.key(li);
        }
        const uint64_t value = tree_workload::tagged_value(writer, ++seq);
        const Result<bool> res = co_await tree.insert(ctx, key, value);
        s = res.status;
        if (o.verify && ok(s)) written[key] = value;
      } else {
        const uint64_t last = li + o.range_size;
        const uint64_t to = last < ks.size() ? ks.key(last) : sherman::kMaxKey + 1;
        out.clear();
        const Result<uint32_t> res =
            co_await tree.range(ctx, key, to, &out, static_cast<uint32_t>(std::min<uint64_t>(o.range_size * 4 + 64, 1u << 20)));
        s = res.status;
        got = res.value;
        for (size_t j = 0; ok(s) && j < out.size() && bad_range.empty(); ++j) {
          if (out[j].first < key || out[j].first >= to || (j > 0 && out[j].first <= out[j - 1].first)) {
            std::ostringstream e;
            e << "range [" << key << ", " << to << ") returned key " << out[j].first << " at position " << j
              << " (outside or out of order)";
            bad_range = e.str();
          }
        }
        if (ok(s) && (out.empty() || out[0].first != key)) found = false;  // the start is a loaded key
      }
      const Nanos t1 = w.now();
      const OpCounters& after = w.counters();
      const char* what = type == OpType::kLookup   ? "a lookup"
                         : type == OpType::kInsert ? "an insert"
                         : type == OpType::kRemove ? "a remove"
                                                   : "a range";
      if (!ok(s)) {
        ++t.failed;
        any_failed.fetch_add(1, std::memory_order_relaxed);
        if (t.error.empty()) {
          std::ostringstream e;
          e << what << " of key " << key << " failed with " << to_string(s) << " (worker " << p.node << "/"
            << p.thread << "/" << p.coroutine << ")";
          t.error = e.str();
        }
        if (s != Status::kRetryExhausted) break;
        continue;
      }
      if (!bad_range.empty() && t.error.empty()) t.error = bad_range;
      if (!found && !removes) {
        ++t.not_found;
        if (t.error.empty()) t.error = std::string(what) + " of loaded key " + std::to_string(key) + " did not find it";
      }
      if (!fixed && (t1 < window_begin || t1 >= window_end)) continue;
      if (!t.started) {
        t.started = true;
        t.first_start = t0;
      }
      t.last_end = t1;
      ++t.ops;
      window_ops.fetch_add(1, std::memory_order_relaxed);
      t.latencies.push_back(t1 - t0);
      const uint64_t rts = after.round_trips - before.round_trips;
      const uint64_t written_bytes = after.bytes_written - before.bytes_written;
      t.round_trips += rts;
      t.bytes += (after.bytes_read - before.bytes_read) + written_bytes;
      if (type == OpType::kLookup) {
        ++t.lookups;
        ++t.lookup_retries[std::min<uint64_t>(after.retries - before.retries, ShermanRunOptions::kBuckets - 1)];
      } else if (type == OpType::kInsert) {
        ++t.inserts;
        t.fresh += fresh;
        t.write_rt.add(rts);
        t.write_bytes.add(written_bytes);
        // A split writes at least two nodes (the new sibling and the old node);
        // FG+ writes one whole node on every insert.
        if (written_bytes < 2ull * node_bytes) t.write_bytes_no_split.add(written_bytes);
        else ++t.splitting;
      } else if (type == OpType::kRemove) {
        ++t.removes;
      } else {
        ++t.ranges;
        t.range_keys += got;
      }
    }
    totals.add(t, written);
    merged[index] = 1;
  });
  const RunStats stats = backend->run();
  const bool drained = drain.stopped(stats, c.budget.max_events);
  if (drained) {
    for (uint64_t i = 0; i < workers; ++i) {
      if (merged[i]) continue;
      totals.add(tallies[i], writes[i]);
      ++r.drained_workers;
    }
  }
  if (!drained && !stats.budget_exhausted.empty() && o.collapse_at_budget && !fixed) {
    // A collapsed point (e.g. every READ past version_wrap_ns, retried until
    // max_attempts): report what the window completed and why it stopped,
    // not a result. Latencies and shares are of the workers that finished.
    r.collapsed = true;
    r.workers = c.total_workers();
    r.ops = window_ops.load();
    r.failed = any_failed.load();
    r.mops = static_cast<double>(r.ops) * 1e3 / static_cast<double>(o.measure_ns);
    r.tree = tree.stats();
    r.verbs = stats.verbs;
    r.wall_seconds = stats.wall_seconds;
    r.elapsed_ns = stats.elapsed_ns;
    r.trace_hash = stats.trace_hash;
    r.counters = stats.counters;
    r.error = "collapsed: " + stats.budget_exhausted;
    return r;
  }
  if (!drained) require_within_budget(stats);
  std::string done_error;
  if (several) done_error = backend->barrier(o.shared_name + "/btree-done", o.processes, o.barrier_timeout_ms);

  Tally& s = totals.sum;
  r.workers = workers;
  r.ops = s.ops;
  r.lookups = s.lookups;
  r.inserts = s.inserts;
  r.ranges = s.ranges;
  r.removes = s.removes;
  r.fresh_inserts = s.fresh;
  r.splitting_writes = s.splitting;
  r.not_found = s.not_found;
  r.failed = s.failed;
  const double span_ns =
      fixed ? static_cast<double>(std::max<Nanos>(1, s.last_end > s.first_start ? s.last_end - s.first_start : 0))
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
  constexpr uint32_t kB = ShermanRunOptions::kBuckets;
  r.write_round_trip_share.assign(kB, 0);
  if (s.write_rt.count()) {
    const double n = static_cast<double>(s.write_rt.count());
    uint64_t below = 0;
    for (uint32_t i = 0; i + 1 < kB; ++i) {
      r.write_round_trip_share[i] = static_cast<double>(s.write_rt.exact(i)) / n;
      below += s.write_rt.exact(i);
    }
    r.write_round_trip_share[kB - 1] = static_cast<double>(s.write_rt.count() - below) / n;
    r.write_round_trips_p99 = static_cast<double>(s.write_rt.quantile(0.99));
    r.write_bytes_mean = s.write_bytes.mean();
  }
  if (s.write_bytes_no_split.count()) r.write_bytes_no_split_median = static_cast<double>(s.write_bytes_no_split.quantile(0.5));
  r.lookup_retry_share.assign(kB, 0);
  if (s.lookups) {
    for (uint32_t i = 0; i < kB; ++i)
      r.lookup_retry_share[i] = static_cast<double>(s.lookup_retries[i]) / static_cast<double>(s.lookups);
    r.lookups_without_retry = r.lookup_retry_share[0];
  }
  if (s.ranges) r.range_keys_mean = static_cast<double>(s.range_keys) / static_cast<double>(s.ranges);
  if (s.ops) {
    r.round_trips_per_op = static_cast<double>(s.round_trips) / static_cast<double>(s.ops);
    r.bytes_per_op = static_cast<double>(s.bytes) / static_cast<double>(s.ops);
  }
  r.tree = tree.stats();
  const uint64_t lookups_cached = r.tree.cache_hits + r.tree.cache_misses;
  if (lookups_cached) r.cache_hit_ratio = static_cast<double>(r.tree.cache_hits) / static_cast<double>(lookups_cached);
  const uint64_t spec = r.tree.speculative_hits + r.tree.speculative_misses;
  if (spec) r.speculative_hit_ratio = static_cast<double>(r.tree.speculative_hits) / static_cast<double>(spec);
  r.height = tree.height(*backend);
  r.lock_on_chip = tree.lock().on_chip();
  r.lock_fallback = tree.lock().fallback();
  r.verbs = stats.verbs;
  r.wall_seconds = stats.wall_seconds;
  r.elapsed_ns = stats.elapsed_ns;
  r.trace_hash = stats.trace_hash;
  r.counters = stats.counters;
  r.error = s.error;
  if (r.error.empty() && !stats.stalled.empty()) r.error = "the run stalled: " + stats.stalled;
  if (r.error.empty() && !done_error.empty()) r.error = "waiting for the other processes: " + done_error;
  if (o.verify && r.error.empty()) {
    r.error = check_final_state(*backend, tree, ks, totals.last, first_writer, workers, all_writers, removes,
                                &r.keys_checked_exact);
    r.verified = r.error.empty();
  }
  return r;
}

std::string ShermanRunResult::to_json() const {
  char hash[32];
  std::snprintf(hash, sizeof hash, "0x%016llx", static_cast<unsigned long long>(trace_hash));
  const sherman::TreeStats& t = tree;
  nlohmann::json j = {
      {"index", index},
      {"workload", mix},
      {"workers", workers},
      {"ops", ops},
      {"lookups", lookups},
      {"inserts", inserts},
      {"fresh_inserts", fresh_inserts},
      {"ranges", ranges},
      {"range_keys_mean", range_keys_mean},
      {"not_found", not_found},
      {"failed", failed},
      {"mops", mops},
      {"latency_us", {{"p50", latency_us_p50}, {"p99", latency_us_p99}, {"mean", latency_us_mean}}},
      {"write_round_trip_share", write_round_trip_share},
      {"write_round_trips_p99", write_round_trips_p99},
      {"write_bytes_no_split_median", write_bytes_no_split_median},
      {"write_bytes_mean", write_bytes_mean},
      {"splitting_writes", splitting_writes},
      {"lookup_retry_share", lookup_retry_share},
      {"lookups_without_retry", lookups_without_retry},
      {"round_trips_per_op", round_trips_per_op},
      {"bytes_per_op", bytes_per_op},
      {"cache_hit_ratio", cache_hit_ratio},
      {"speculative_hit_ratio", speculative_hit_ratio},
      {"height", height},
      {"tree",
       {{"leaf_splits", t.leaf_splits},
        {"internal_splits", t.internal_splits},
        {"root_splits", t.root_splits},
        {"cache_hits", t.cache_hits},
        {"cache_misses", t.cache_misses},
        {"cache_invalidations", t.cache_invalidations},
        {"cache_evictions", t.cache_evictions},
        {"speculative_hits", t.speculative_hits},
        {"speculative_misses", t.speculative_misses},
        {"torn_reads", t.torn_reads},
        {"wrap_retries", t.wrap_retries},
        {"sibling_hops", t.sibling_hops},
        {"restarts", t.restarts}}},
      {"lock",
       {{"on_chip", lock_on_chip},
        {"fallback", lock_fallback},
        {"acquisitions", t.lock.acquisitions},
        {"handovers", t.lock.handovers},
        {"global_cas", t.lock.global_cas},
        {"global_cas_failed", t.lock.global_cas_failed},
        {"local_waits", t.lock.local_waits},
        {"gave_up", t.lock.gave_up}}},
      {"verbs", verbs},
      {"elapsed_ns", elapsed_ns},
      {"wall_seconds", wall_seconds},
      {"load_wall_seconds", load_wall_seconds},
      {"counters", counters},
      {"keys_checked_exact", keys_checked_exact},
      {"verified", verified},
      {"collapsed", collapsed},
      {"drained_workers", drained_workers},
      {"trace_hash", hash}};
  if (!error.empty()) j["error"] = error;
  return j.dump();
}

PerfResult ShermanRunResult::to_perf_result() const {
  PerfResult p = run_common::base_perf_result(*this, index);
  for (size_t i = 0; i < write_round_trip_share.size(); ++i)
    p.counters["btree.rt_share." + std::to_string(i)] = 100 * write_round_trip_share[i];
  p.counters["btree.write_round_trips_p99"] = write_round_trips_p99;
  p.counters["btree.write_bytes_no_split"] = write_bytes_no_split_median;
  p.counters["btree.write_bytes_mean"] = write_bytes_mean;
  p.counters["btree.split_write_pct"] = inserts ? 100.0 * static_cast<double>(splitting_writes) / static_cast<double>(inserts) : 0;
  p.counters["btree.lookups_without_retry_pct"] = 100 * lookups_without_retry;
  for (size_t i = 0; i < lookup_retry_share.size(); ++i)
    p.counters["btree.lookup_retry_share." + std::to_string(i)] = 100 * lookup_retry_share[i];
  p.counters["btree.round_trips_per_op"] = round_trips_per_op;
  p.counters["btree.bytes_per_op"] = bytes_per_op;
  p.counters["btree.cache_hit_pct"] = 100 * cache_hit_ratio;
  p.counters["btree.speculative_hit_pct"] = 100 * speculative_hit_ratio;
  p.counters["btree.range_keys_mean"] = range_keys_mean;
  p.counters["btree.handovers"] = static_cast<double>(tree.lock.handovers);
  p.counters["btree.handover_pct"] =
      tree.lock.acquisitions ? 100.0 * static_cast<double>(tree.lock.handovers) / static_cast<double>(tree.lock.acquisitions) : 0;
  p.counters["btree.lock_on_chip"] = lock_on_chip ? 1 : 0;
  p.counters["btree.height"] = height;
  p.counters["btree.collapsed"] = collapsed ? 1 : 0;
  p.counters["btree.failed"] = static_cast<double>(failed);
  p.counters["btree.wrap_retries"] = static_cast<double>(tree.wrap_retries);
  p.trace_hash = trace_hash;
  p.error = error;
  return p;
}

}  // namespace lw
