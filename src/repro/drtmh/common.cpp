#include "common.h"

namespace lw::drtmh {

workloads::OltpOptions scaled_oltp() {
  workloads::OltpOptions o;
  o.warehouses_per_node = 4;          // DrTM+H: 24 per node (24 threads); 2 per thread here
  o.accounts_per_node = 20'000;       // DrTM+H: 100,000 per thread; 10,000 per thread here
  o.subscribers_per_node = 10'000;
  o.customers_per_node = 1'000;
  o.order_slots = 64;                 // loading the slots dominates set-up; no --verify here
  return o;
}

ReproPoint point(const std::string& series, double x, const std::string& design, const std::string& phases,
                 const std::string& workload, uint32_t coroutines, const std::string& panel) {
  ReproPoint p = txn_point(series, x, design, phases, workload, kNodes, kThreads, coroutines);
  p.txn->oltp = scaled_oltp();
  // Location caches start holding the whole store, as DrTM+H measures them
  // (§5.1: the ideal case always hits; §5.5, Fig. 11: a warm 300 MB cache);
  // designs without a cache are unaffected (issue 42 item 5).
  p.txn->run.warm_cache = true;
  // Every design of DrTM+H's framework runs RPCs on its worker threads'
  // event loops, between their transactions (§4.1; issue 42 item 4), not on
  // dedicated cores.
  p.txn->rpc_servers = RpcServers::kWorkers;
  p.panel = panel;
  return p;
}

ReproPoint view(const ReproFigure& f, size_t index, const std::string& series, double x, const std::string& metric,
                const std::string& panel) {
  ReproPoint v = f.points.at(index);
  v.series = series;
  v.x = x;
  v.metric = metric;
  v.panel = panel;
  v.same_run_as = static_cast<int>(index);
  return v;
}

void add_sweep(ReproFigure* f, const std::string& workload, const std::vector<Variant>& variants) {
  const std::string tp = workload + " throughput", lat = workload + " p50 latency";
  f->panel_y_labels[tp] = "M txns/s (16 nodes x 2 threads)";
  f->panel_y_labels[lat] = "median latency (us)";
  for (const Variant& v : variants) {
    for (uint32_t co : coroutine_sweep()) {
      ReproPoint p = point(workload + " " + v.label, co, v.design, v.phases, workload, co, tp);
      p.txn->passive_ack = v.passive_ack;
      p.txn->location_cache = v.location_cache;
      f->points.push_back(p);
      f->points.push_back(view(*f, f->points.size() - 1, workload + " " + v.label + " p50", co, "p50_us", lat));
    }
  }
}

PaperValue range_value(const std::string& series, double x, double lo, double hi, const std::string& source,
                       const std::string& over, double slack) {
  PaperValue v;
  v.series = series;
  v.x = x;
  v.value = (lo + hi) / 2;
  v.source = source + " (a range over the sweep; compared with its middle)";
  v.tolerance = (hi - lo) / (hi + lo) + slack;
  v.over_series = over;
  return v;
}

}  // namespace lw::drtmh
