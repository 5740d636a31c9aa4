// A figure's set-up line and chart-type names (repro.h).
#include <set>
#include <sstream>

#include "repro/repro.h"

namespace lw {

const char* to_string(ReproChart c) {
  switch (c) {
    case ReproChart::kLines: return "lines";
    case ReproChart::kBars: return "bars";
    case ReproChart::kCdf: return "cdf";
  }
  return "lines";
}

namespace {

// 1048576 -> "1,048,576".
std::string grouped(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// "4", "1/2/4" (up to 4 values) or "1-96" (more).
std::string span(const std::set<uint64_t>& v) {
  if (v.empty()) return "";
  if (v.size() > 4) return grouped(*v.begin()) + "-" + grouped(*v.rbegin());
  std::string s;
  for (uint64_t x : v) s += (s.empty() ? "" : "/") + grouped(x);
  return s;
}

std::string names(const std::set<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : "/") + x;
  return s;
}

}  // namespace

std::string repro_setup(const ReproFigure& f) {
  std::set<uint64_t> compute, memory, nodes, threads, coroutines, keys, locks;
  std::set<std::string> profiles;
  for (const ReproPoint& p : f.points) {
    if (p.same_run_as >= 0) continue;
    if (p.txn) {
      // The cluster is built when the point runs (ReproTxn): its own fields.
      nodes.insert(p.txn->nodes);
      threads.insert(p.txn->threads);
      coroutines.insert(p.txn->coroutines);
      profiles.insert(p.txn->nic_profile.empty() ? "cx5-100g (cx6-200g disaggregated)" : p.txn->nic_profile);
      continue;
    }
    compute.insert(p.cluster.compute_nodes);
    memory.insert(p.cluster.memory_nodes);
    threads.insert(p.cluster.threads_per_node);
    coroutines.insert(p.cluster.coroutines_per_thread);
    profiles.insert(p.cluster.nic.profile);
    if (p.sherman) keys.insert(p.sherman->keys);
    if (p.hash) keys.insert(p.hash->keys);
    if (p.btree) keys.insert(p.btree->keys);
    if (p.hocl) locks.insert(p.hocl->locks);
    if (p.lock_table) locks.insert(p.lock_table->table.locks);
  }
  std::ostringstream s;
  if (!nodes.empty()) s << span(nodes) << " nodes";
  if (!compute.empty()) {
    if (!nodes.empty()) s << "; ";
    s << span(compute) << " compute + " << span(memory) << " memory nodes";
  }
  s << ", " << span(threads) << " threads per node x " << span(coroutines) << " coroutines";
  if (!keys.empty()) s << ", " << span(keys) << " keys";
  if (!locks.empty()) s << ", " << span(locks) << " locks";
  s << ", NIC " << names(profiles);
  return s.str();
}

}  // namespace lw
