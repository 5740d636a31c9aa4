// The B-tree workload: bulk load, then timed lookups (and inserts) of
// uniform random keys by every compute coroutine.
#include "repro/jasny/btree_workload.h"

#include <atomic>
#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "latchwork/backends.h"
#include "window_tally.h"
#include "latchwork/structures/jasny/btree.h"

namespace lw {
namespace {

struct Totals : WindowTotals {
  std::atomic<uint64_t> misses{0};
};

// Nodes a bulk load at `fill` needs, plus room for splits.
uint64_t pool_nodes(const BTreeWorkloadOptions& o) {
  const uint64_t per = std::max<uint64_t>(2, static_cast<uint64_t>(btree_capacity(o.node_bytes) * o.fill));
  uint64_t total = 1, level = o.keys;
  for (int depth = 0; depth < 32 && level > 1; ++depth) {
    level = (level + per - 1) / per;
    total += level;
  }
  return total + total / 2 + 16;
}

}  // namespace

std::string BTreeWorkloadOptions::validate() const {
  BTreeSync s;
  if (!parse_btree_sync(sync, &s)) return "unknown B-tree sync \"" + sync + "\" (unsynchronized, pessimistic, optimistic)";
  if (s == BTreeSync::kUnsynchronized && insert_percent > 0) return "unsynchronized trees take no inserts";
  if (insert_percent > 100) return "insert percent must be in [0, 100]";
  if (keys == 0 || keys > (1ull << 30)) return "keys must be in [1, 2^30]";
  BTreeOptions t;
  t.node_bytes = node_bytes;
  t.fill = fill;
  t.node_padding = node_padding;
  if (std::string e = t.validate(); !e.empty()) return e;
  if (measure_ns == 0) return "measurement window must be positive";
  return {};
}

std::string BTreeWorkloadResult::to_json() const {
  return nlohmann::json{{"workers", workers},   {"height", height},       {"ops", ops},
                        {"gave_up", gave_up},   {"misses", misses},       {"mops", mops},
                        {"node_gbps", node_gbps}, {"mean_latency_us", mean_latency_us},
                        {"verbs", verbs},       {"wall_seconds", wall_seconds}}
      .dump();
}

BTreeWorkloadResult run_btree_workload(const ClusterConfig& c, const BTreeWorkloadOptions& o) {
  LW_CHECK_MSG(o.validate().empty(), o.validate());
  std::string err;
  std::unique_ptr<Backend> backend = make_backend(c, &err);
  LW_CHECK_MSG(backend, err);
  BTreeOptions t;
  parse_btree_sync(o.sync, &t.sync);
  t.node_bytes = o.node_bytes;
  t.fill = o.fill;
  t.node_padding = o.node_padding;
  t.max_nodes = pool_nodes(o);
  std::unique_ptr<BTree> tree;
  err = BTree::create(*backend, t, &tree);
  LW_CHECK_MSG(err.empty(), err);
  {
    std::vector<std::pair<uint64_t, uint64_t>> kv;
    kv.reserve(o.keys);
    for (uint64_t i = 0; i < o.keys; ++i) kv.emplace_back(2 * i, i + 1);
    err = tree->bulk_load(*backend, kv);
    LW_CHECK_MSG(err.empty(), err);
  }
  const uint32_t height = tree->height(*backend);
  Totals totals;
  RetryPolicy policy;
  policy.max_attempts = 1u << 16;
  backend->spawn_compute([&](Worker& w) -> Task<void> {
    WindowTally tally;
    tally.begin = w.now() + o.warmup_ns;
    tally.end = tally.begin + o.measure_ns;
    uint64_t misses = 0;
    for (uint64_t i = 0; i < o.max_ops_per_worker; ++i) {
      const Nanos t0 = w.now();
      if (t0 >= tally.end) break;
      const uint64_t k = w.rng().below(o.keys);
      Status s;
      if (w.rng().below(100) < o.insert_percent) {
        s = co_await tree->insert(w, 2 * k + 1, k, policy);
      } else {
        uint64_t v = 0;
        bool found = false;
        s = co_await tree->lookup(w, 2 * k, &v, &found, policy);
        if (ok(s) && (!found || v != k + 1)) ++misses;
      }
      tally.note(s, t0, w.now(), "btree workload");
    }
    totals.add(tally);
    totals.misses += misses;
  });
  const RunStats stats = backend->run();
  require_within_budget(stats);
  BTreeWorkloadResult r;
  r.workers = c.total_compute_threads() * c.coroutines_per_thread;
  r.height = height;
  r.ops = totals.ops;
  r.gave_up = totals.gave_up;
  r.misses = totals.misses;
  r.mops = totals.mops(o.measure_ns);
  r.node_gbps = r.mops * 1e6 * height * o.node_bytes / 1e9;
  r.mean_latency_us = totals.mean_latency_us();
  r.verbs = stats.verbs;
  r.wall_seconds = stats.wall_seconds;
  return r;
}

}  // namespace lw
