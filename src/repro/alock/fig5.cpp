// ALock §6.2, Fig. 5: lock-table throughput on 5, 10 and 20 nodes; panels
// (a)-(c), (e)-(g), (i)-(k): 20 / 100 / 1000 locks at 95, 90 and 85%
// locality; (d), (h), (l): 100% locality with 20, 100 and 1000 locks.
#include <sstream>

#include "common.h"

namespace lw {

namespace {
constexpr uint64_t kOps = 200;  // per worker and run
constexpr uint32_t kThreads[] = {1, 2, 4, 8, 12};
const locks::LockKind kKinds[] = {locks::LockKind::kAlock, locks::LockKind::kMcs, locks::LockKind::kSpin};
}  // namespace

static std::string alock_fig5_panel(uint32_t nodes, uint64_t locks, bool all_local) {
  const char* letters = "abcdefghijkl";
  const int row = nodes == 5 ? 0 : nodes == 10 ? 1 : 2;
  const int col = all_local ? 3 : locks == 20 ? 0 : locks == 100 ? 1 : 2;
  std::ostringstream s;
  s << "(" << letters[row * 4 + col] << ") " << nodes << " nodes, " << (all_local ? "100% local" : std::to_string(locks) + " locks");
  return s.str();
}

ReproFigure alock_fig5() {
  using alock_repro::kind_name;
  using alock_repro::point;
  using alock_repro::ratio;
  using alock_repro::table;
  ReproFigure f;
  f.name = "alock-fig5";
  f.title = "ALock Fig. 5: lock-table throughput, ALock vs MCS vs spinlock on symmetric nodes (cx3-56g)";
  f.x_label = "threads per node";
  f.log_x = false;
  for (uint32_t nodes : {5u, 10u, 20u}) {
    for (uint64_t locks : {20ull, 100ull, 1000ull}) {
      const std::string panel = alock_fig5_panel(nodes, locks, false);
      for (locks::LockKind k : kKinds)
        for (uint32_t loc : {95u, 90u, 85u})
          for (uint32_t t : kThreads)
            f.points.push_back(point(panel, panel + " " + kind_name(k) + " " + std::to_string(loc) + "%", t,
                                     table(k, nodes, t, locks, loc, kOps)));
    }
    const std::string panel = alock_fig5_panel(nodes, 0, true);
    for (locks::LockKind k : kKinds)
      for (uint64_t locks : {20ull, 100ull, 1000ull})
        for (uint32_t t : kThreads)
          f.points.push_back(point(panel, panel + " " + kind_name(k) + " " + std::to_string(locks) + " locks", t,
                                   table(k, nodes, t, locks, 100, kOps)));
  }
  const std::string i = alock_fig5_panel(20, 20, false), l = alock_fig5_panel(20, 0, true);
  const std::string c = alock_fig5_panel(5, 1000, false), j = alock_fig5_panel(20, 100, false);
  f.paper = {
      ratio(i + " alock 95%", i + " mcs 95%", 12, 29,
            "ALock §6.2: at high contention (Fig. 5i, 20 nodes, 20 locks) ALock outperforms MCS by up to 29x"),
      ratio(i + " alock 95%", i + " spin 95%", 12, 24,
            "ALock §6.2: ... and the spinlock by up to 24x (Fig. 5i)"),
      ratio(l + " alock 20 locks", l + " mcs 20 locks", 12, 24,
            "ALock §6.2: at 100% locality ALock performs up to 24x as many operations as MCS (Figs. 5d/h/l, 20 locks)"),
      ratio(l + " alock 20 locks", l + " spin 20 locks", 12, 22,
            "ALock §6.2: ... and 22x as many as the spinlock (Figs. 5d/h/l, 20 locks)"),
      ratio(j + " alock 95%", j + " spin 95%", 12, 4,
            "ALock §6.2: more than 4x the spinlock with 240 threads in the system (Fig. 5j)"),
      ratio(c + " alock 95%", c + " mcs 95%", 12, 3.8,
            "ALock §6.2: at low contention (Figs. 5c/g/k) ALock outperforms MCS by up to 3.8x"),
      ratio(c + " alock 95%", c + " spin 95%", 12, 3.3,
            "ALock §6.2: ... and the spinlock by up to 3.3x (Figs. 5c/g/k)"),
      ratio(c + " alock 90%", c + " alock 85%", 12, 1.40,
            "ALock §6.2: at 5 nodes and low contention ALock improves by 40% from 85% to 90% locality (Fig. 5c)", 0.15),
      ratio(c + " alock 95%", c + " alock 90%", 12, 1.75,
            "ALock §6.2: ... and by another 75% from 90% to 95% locality (Fig. 5c)", 0.15),
  };
  f.paper[4].at_least = true;
  std::ostringstream n;
  n << "Scale: " << kOps << " lock+unlock per worker and point (the paper runs each point for seconds); threads per "
    << "node 1, 2, 4, 8, 12 (the paper: up to 12). The text states its ratios as 'up to' over a panel without the "
    << "thread count; each is compared here at 12 threads per node and 95% locality, where the gaps are widest. "
    << "Seen here: ALock is the fastest "
    << "lock in every panel and its lead grows with locality and contention, but the stated gaps are 2-10x "
    << "larger than the model's: high contention (i) 3.1x MCS and 3.5x spinlock (paper 29x, 24x); 100% local "
    << "with 20 locks 8.0x and 5.4x (24x, 22x); (j) 3.1x the spinlock (more than 4x, ok); low contention (c) 4.2x "
    << "and 2.8x (3.8x, 3.3x, ok); the locality effect at 5 nodes +30% from 85 to 90% (paper +40%, ok) and +44% "
    << "from 90 to 95% (+75%). Why (MISS account): in the model the baselines lose throughput only by "
    << "queueing on each node's NIC (processing units, PCIe DMA slots, QP-cache misses once 240 QPs exceed "
    << "cx3-56g's 225) and keep scaling with nodes, e.g. MCS reaches 39.6 Mops in (k); the paper reports them "
    << "'overwhelmed', 'congestion in the RNIC, which quickly degrades performance' -- the collapse under "
    << "load of Fig. 1, which the model does not have (alock-fig1). What matches in shape: MCS and spinlock "
    << "flatten after 4 threads per node at 20 locks; MCS at 100% local with 20 locks declines with threads "
    << "(4.95 to 3.59 Mops at 20 nodes); ALock at 100% local with 20 locks (one lock per node) saturates "
    << "its CPU hand-off near 26 Mops. Nothing was tuned to these values.";
  f.notes = n.str();
  return f;
}

}  // namespace lw
