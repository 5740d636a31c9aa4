// What the figures one process runs share (`repro a,b,c`, or one figure):
// node memory handed on from point to point and, while that reuse is in
// effect, the set-up store's products (store plans and images, hash-table
// load images, trees' bulk images: base/setup_store.h), and the results of
// the runs simulated so far.
//
// A point whose run inputs equal an earlier point's (same_run) takes that
// point's result instead of simulating again: every point is a seeded,
// deterministic simulation, so the copy is exactly what its run would give.
// SMART Fig. 8's first and last steps are Fig. 7's RACE and SMART-HT (30 of
// its 60 points), and SMART Fig. 11 runs four of Fig. 10's points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "repro/repro.h"

namespace lw {

class NodeMemoryReuse;

// Whether two points simulate the same run: every input of their run is
// equal (cluster, options of their kind, lock localities); their series, x,
// panel, metric and x_metric may differ. HashRunOptions::table and
// ShermanRunOptions::index only name the run in reports and are not
// compared. A same_run_as view runs nothing: never equal.
bool same_run(const ReproPoint& a, const ReproPoint& b);

// The figures in groups that share at least one run (same_run), directly or
// through another figure, so that each group can run in one session: indexes
// into `figures`, each group in their order, groups in the order of their
// first figure. A figure that shares nothing is a group of its own.
std::vector<std::vector<size_t>> group_sharing_runs(const std::vector<const ReproFigure*>& figures);

class ReproSession {
 public:
  ReproSession();
  ~ReproSession();
  ReproSession(const ReproSession&) = delete;
  ReproSession& operator=(const ReproSession&) = delete;

  // The result of an earlier run with the same inputs (same_run), named as
  // `p` names its run; nullopt if none was simulated in this session.
  std::optional<PerfResult> find(const ReproPoint& p) const;
  // Remembers a simulated run's result (at most kMaxRuns; later ones are not
  // kept). Safe from several threads.
  void add(const ReproPoint& p, const PerfResult& r);
  uint64_t shared_runs() const;  // find() calls that returned a result

  static constexpr size_t kMaxRuns = 8192;

 private:
  // The kept run equal to p (run_key(p) = key), or SIZE_MAX; mu_ held.
  size_t index_of(const ReproPoint& p, uint64_t key) const;

  // In effect while the session lives: the set-up store's scoped products
  // go with it (NodeMemoryReuse's destructor).
  std::unique_ptr<NodeMemoryReuse> reuse_;
  mutable std::mutex mu_;  // guards the members below
  std::vector<ReproPoint> points_;
  std::vector<PerfResult> results_;
  std::unordered_multimap<uint64_t, size_t> by_key_;  // run_key -> index
  mutable uint64_t shared_ = 0;
};

}  // namespace lw
