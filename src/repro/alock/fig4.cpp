// ALock §6.1, Fig. 4: the budget. Throughput with remote budget 5, 10, 20
// (local budget 5) relative to 5/5, averaged over 95/90/85% locality, on 20
// nodes with 100 locks.
#include <sstream>

#include "common.h"

namespace lw {

namespace {
constexpr uint64_t kOps = 150;       // per worker and run
constexpr uint32_t kThreads = 8;     // per node; §6.1 does not say
}  // namespace

ReproFigure alock_fig4() {
  using alock_repro::point;
  using alock_repro::table;
  ReproFigure f;
  f.name = "alock-fig4";
  f.title = "ALock Fig. 4: speedup of remote budget 5/10/20 over 5 (local budget 5; 20 nodes, 100 locks, cx3-56g)";
  f.x_label = "remote budget";
  f.chart = ReproChart::kBars;  // the paper draws bars
  f.log_x = false;
  f.panel_y_labels[""] = "speedup over remote budget 5 (mean of 95/90/85% locality)";
  for (int32_t b : {5, 10, 20}) {
    workloads::LockTableOptions o = table(locks::LockKind::kAlock, 20, kThreads, 100, 95, kOps);
    o.table.local_budget = 5;
    o.table.remote_budget = b;
    ReproPoint p = point("", "alock", b, o);
    p.lock_localities = {95, 90, 85};
    p.lock_baseline_remote_budget = 5;
    f.points.push_back(p);
  }
  PaperValue v;
  v.series = "alock";
  v.x = 20;
  v.value = 1.23;
  v.tolerance = 0.10;
  v.source = "ALock §6.1, Fig. 4: a higher remote budget improves throughput by up to 23% (remote 20, local 5)";
  f.paper.push_back(v);
  std::ostringstream n;
  n << "Scale: " << kOps << " lock+unlock per worker, " << kThreads << " threads per node (§6.1 does not say how "
    << "many), 6 runs per point (3 localities, each with the 5/5 baseline). Seen here: no speedup (1.00 at remote "
    << "budgets 10 and 20; the 95% runs are identical to 5/5, the 90/85% ones within 1%): MISS. Why: a remote "
    << "cohort of more than 5 waiters almost never forms in the model. With 5-15% remote operations spread "
    << "over 100 locks a lock has well under one remote waiter on average, remote operations take a few "
    << "microseconds, and the budget is exhausted almost only by the local cohort (whose budget is 5 in "
    << "every run). The paper's 23% implies long remote queues, i.e. remote operations far slower under load "
    << "than in the model, the congestion the model lacks (see alock-fig1 and alock-fig5).";
  f.notes = n.str();
  return f;
}

}  // namespace lw
