// ALock §6.3, Fig. 6: latency distribution of lock + unlock, 20 nodes x 8
// threads; rows 100, 95, 90, 85% locality, columns 20, 100, 1000 locks.
// Shown as quantile curves: x the percentile, y the latency there (the CDF
// with its axes swapped).
#include <sstream>

#include "common.h"

namespace lw {

namespace {
constexpr uint64_t kOps = 150;  // per worker
constexpr uint32_t kNodes = 20, kThreads = 8;
const locks::LockKind kKinds[] = {locks::LockKind::kAlock, locks::LockKind::kMcs, locks::LockKind::kSpin};
}  // namespace

ReproFigure alock_fig6() {
  using alock_repro::kind_name;
  using alock_repro::point;
  using alock_repro::ratio;
  using alock_repro::table;
  ReproFigure f;
  f.name = "alock-fig6";
  f.title = "ALock Fig. 6: latency quantiles of lock + unlock, 20 nodes x 8 threads (cx3-56g)";
  f.x_label = "percentile of operations";
  f.chart = ReproChart::kCdf;
  f.log_x = false;
  const char* letters = "abcdefghijkl";
  int index = 0;
  std::string panel_of[4][3];
  for (uint32_t loc : {100u, 95u, 90u, 85u}) {
    for (uint64_t locks : {20ull, 100ull, 1000ull}) {
      std::ostringstream ps;
      ps << "(" << letters[index] << ") " << loc << "% local, " << locks << " locks";
      const std::string panel = ps.str();
      panel_of[index / 3][index % 3] = panel;
      ++index;
      f.panel_y_labels[panel] = "latency (us)";
      for (locks::LockKind k : kKinds) {
        const std::string series = panel + " " + kind_name(k);
        ReproPoint run = point(panel, series, kLockQuantiles[0], table(k, kNodes, kThreads, locks, loc, kOps));
        const int first = static_cast<int>(f.points.size());
        for (double q : kLockQuantiles) {
          ReproPoint p = run;
          p.x = q;
          char metric[48];
          std::snprintf(metric, sizeof metric, "counter:lock.q%g_us", q);
          p.metric = metric;
          if (static_cast<int>(f.points.size()) > first) {
            p.same_run_as = first;
            p.lock_table.reset();
          }
          f.points.push_back(p);
        }
        // The mean, a single point at the median's x (a series of its own).
        ReproPoint m = run;
        m.series = series + " mean";
        m.x = 50;
        m.metric = "mean_us";
        m.same_run_as = first;
        m.lock_table.reset();
        f.points.push_back(m);
      }
    }
  }
  const std::string a = panel_of[0][0], c = panel_of[0][2], fp = panel_of[1][2], l = panel_of[3][2];
  f.paper = {
      ratio(a + " mcs mean", a + " alock mean", 50, 17,
            "ALock §6.3: 100% local, 20 locks (Fig. 6a): ALock as much as 17x faster than MCS"),
      ratio(a + " spin mean", a + " alock mean", 50, 33, "ALock §6.3: ... and 33x faster than the spinlock (Fig. 6a)"),
      ratio(c + " spin mean", c + " alock mean", 50, 10,
            "ALock §6.3: 100% local, low contention (Fig. 6c): ALock on average 10x faster than the spinlock"),
      ratio(c + " mcs mean", c + " alock mean", 50, 13, "ALock §6.3: ... and 13x faster than MCS (Fig. 6c)"),
      ratio(fp + " mcs mean", fp + " alock mean", 50, 2.1,
            "ALock §6.3: low contention, 95% local (Fig. 6f): ALock outperforms MCS by 2.1x on average"),
      ratio(l + " mcs mean", l + " alock mean", 50, 1.35,
            "ALock §6.3: low contention, 85% local (Fig. 6l): 1.35x"),
  };
  std::ostringstream n;
  n << "Scale: " << kOps << " lock+unlock per worker (" << kNodes * kThreads * kOps << " per run). The text says "
    << "20 nodes, Fig. 6's caption a 10-node cluster; 20 as in the text. Ratios are compared on the mean "
    << "latency (the 'mean' columns; the text says 'as much as' / 'on average' without naming a statistic). Seen here: the low-contention ratios match "
    << "(95% local: 2.4x, paper 2.1x; 85%: 1.55x, paper 1.35x; ok within 25%); the 100% local ones are 3-4x "
    << "instead of 10-33x (MISS): a loopback lock+unlock costs about 4 us in the model against ALock's CPU path "
    << "of 1.2 us, and the baselines do not collapse under load (see alock-fig1, alock-fig5). MCS at 100% "
    << "local with 20 locks is bimodal in the model: median 4.1 us, p99 6.1 us, but p99.9 4.2 ms (mean 21 us), "
    << "and no acquisition is ever passed; apparently a holder that unlocks (rCAS tail to null) and locks again (rCAS "
    << "null to itself) through loopback keeps winning the tail against waiters whose rCAS retries carry a "
    << "stale expected value (RDMA has no swap, so the enqueue is a CAS loop); each of the other 7 threads "
    << "waits once for milliseconds and the lock runs serially. This inflates MCS's mean in panel (a); "
    << "reported to the locks' author.";
  f.notes = n.str();
  return f;
}

}  // namespace lw
