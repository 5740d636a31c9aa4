#include "repro/repro_session.h"

#include <string>

#include "latchwork/base/assert.h"
#include "verbs/node_memory_reuse.h"

namespace lw {
namespace {

// The node memory the points hand on to later ones, at most (resident bytes;
// two points of SMART Fig. 10 hold ~1.2 GB between them).
constexpr uint64_t kReusedNodeBytes = 2ull << 30;

// A few inputs of a point's run, hashed: equal for points that same_run
// finds equal (it compares all of these), and rarely equal otherwise.
uint64_t run_key(const ReproPoint& p) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  mix(p.cluster.seed);
  mix(p.cluster.compute_nodes);
  mix(p.cluster.threads_per_node);
  mix(p.cluster.coroutines_per_thread);
  mix(p.cluster.memory_nodes);
  mix(static_cast<uint64_t>(p.perf.op));
  mix(p.perf.size);
  mix(p.perf.measure_ns);
  mix(uint64_t{p.tuples.has_value()} | uint64_t{p.btree.has_value()} << 1 | uint64_t{p.hash.has_value()} << 2 |
      uint64_t{p.lock_table.has_value()} << 3 | uint64_t{p.sherman.has_value()} << 4 |
      uint64_t{p.hocl.has_value()} << 5 | uint64_t{p.txn.has_value()} << 6);
  if (p.hash) mix(static_cast<uint64_t>(p.hash->mix));
  if (p.lock_table) {
    mix(static_cast<uint64_t>(p.lock_table->table.kind));
    mix(p.lock_table->locality_percent);
    mix(p.lock_table->cluster.memory_nodes);
    mix(p.lock_table->cluster.memory_node_threads);
  }
  if (p.txn) {
    mix(p.txn->nodes);
    mix(p.txn->threads);
    mix(p.txn->coroutines);
  }
  return h;
}

}  // namespace

// A field added to ReproPoint must be compared below if it changes the run
// (and listed in the comment of same_run if it does not). The run options'
// `timeline` recorders only watch a run, and repro sets none.
static_assert(sizeof(ReproPoint) == 3400, "ReproPoint changed: review same_run");

namespace {

// Two optional run options equal in every field but `name`, a report name.
template <class Options>
bool equal_but_name(const std::optional<Options>& a, const std::optional<Options>& b, std::string Options::*name) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  Options named = *a;
  named.*name = (*b).*name;
  return named == *b;
}

}  // namespace

bool same_run(const ReproPoint& a, const ReproPoint& b) {
  if (a.same_run_as >= 0 || b.same_run_as >= 0) return false;
  // A commit sink watches its own run: such a run is never taken from another.
  if ((a.txn && a.txn->run.on_commit) || (b.txn && b.txn->run.on_commit)) return false;
  return equal_but_name(a.hash, b.hash, &HashRunOptions::table) &&
         equal_but_name(a.sherman, b.sherman, &ShermanRunOptions::index) && a.cluster == b.cluster &&
         a.perf == b.perf && a.tuples == b.tuples && a.btree == b.btree && a.lock_table == b.lock_table &&
         a.lock_localities == b.lock_localities &&
         a.lock_baseline_remote_budget == b.lock_baseline_remote_budget && a.hocl == b.hocl && a.txn == b.txn;
}

std::vector<std::vector<size_t>> group_sharing_runs(const std::vector<const ReproFigure*>& figures) {
  // Union-find over figures, joined by any two points of theirs that run
  // the same simulation.
  std::vector<size_t> parent(figures.size());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&parent](size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  struct Run {
    size_t figure;
    const ReproPoint* point;
  };
  std::unordered_map<uint64_t, std::vector<Run>> by_key;
  for (size_t f = 0; f < figures.size(); ++f) {
    for (const ReproPoint& p : figures[f]->points) {
      if (p.same_run_as >= 0) continue;
      std::vector<Run>& bucket = by_key[run_key(p)];
      for (const Run& r : bucket) {
        if (root(r.figure) == root(f) || !same_run(*r.point, p)) continue;
        parent[root(f)] = root(r.figure);
      }
      bucket.push_back({f, &p});
    }
  }
  std::vector<std::vector<size_t>> groups;
  std::vector<size_t> group_of(figures.size(), SIZE_MAX);
  for (size_t f = 0; f < figures.size(); ++f) {
    size_t& g = group_of[root(f)];
    if (g == SIZE_MAX) {
      g = groups.size();
      groups.emplace_back();
    }
    groups[g].push_back(f);
  }
  return groups;
}

ReproSession::ReproSession() : reuse_(std::make_unique<NodeMemoryReuse>(kReusedNodeBytes)) {}

ReproSession::~ReproSession() = default;

size_t ReproSession::index_of(const ReproPoint& p, uint64_t key) const {
  const auto [lo, hi] = by_key_.equal_range(key);
  for (auto it = lo; it != hi; ++it)
    if (same_run(points_[it->second], p)) return it->second;
  return SIZE_MAX;
}

std::optional<PerfResult> ReproSession::find(const ReproPoint& p) const {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t i = index_of(p, run_key(p));
  if (i == SIZE_MAX) return std::nullopt;
  ++shared_;
  PerfResult r = results_[i];
  if (p.hash) r.op = p.hash->table;        // as run_hash names it
  if (p.sherman) r.op = p.sherman->index;  // as run_sherman names it
  return r;
}

void ReproSession::add(const ReproPoint& p, const PerfResult& r) {
  LW_CHECK_MSG(p.same_run_as < 0, "a same_run_as view has no run of its own");
  std::lock_guard<std::mutex> lock(mu_);
  if (points_.size() >= kMaxRuns) return;
  const uint64_t key = run_key(p);
  if (index_of(p, key) != SIZE_MAX) return;  // two threads ran it at once
  by_key_.emplace(key, points_.size());
  points_.push_back(p);
  results_.push_back(r);
}

uint64_t ReproSession::shared_runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shared_;
}

}  // namespace lw
