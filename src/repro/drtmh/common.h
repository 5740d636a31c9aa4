// Shared by the DrTM+H transaction figures (Figs. 7-15, Table 3): the
// scaled-down cluster, the coroutine sweep, and helpers for the series the
// paper's ratios need.
#pragma once

#include <string>
#include <vector>

#include "repro/repro_txn.h"

namespace lw::drtmh {

// DrTM+H §4.1: 16 machines x 24 worker threads. The simulator runs every
// coordinator as a coroutine; 16 x 24 x 16 coroutines is 6,144 coordinators
// per point, too slow for a figure under a minute. Nodes stay 16 (the
// distribution of accesses and the QPs per NIC depend on them); threads are
// scaled to kThreads per node. Absolute throughput is per 16 x kThreads
// coordinators' threads, so paper comparisons are ratios.
inline constexpr uint32_t kNodes = 16;
inline constexpr uint32_t kThreads = 2;
// The paper's x axis (coroutines per thread).
inline const std::vector<uint32_t>& coroutine_sweep() {
  static const std::vector<uint32_t> v{1, 2, 4, 8, 16};
  return v;
}

// Scale of the workloads per node (DrTM+H: 384 warehouses over 16 nodes = 24
// per node; 100,000 SmallBank accounts per thread = 2.4 M per node). Scaled
// down with the threads; SmallBank keeps 90% of transactions on 4%.
workloads::OltpOptions scaled_oltp();

// A point of `design` (+ `phases`) on `workload` with `coroutines`.
ReproPoint point(const std::string& series, double x, const std::string& design, const std::string& phases,
                 const std::string& workload, uint32_t coroutines, const std::string& panel);

// Another metric ("p50_us", "counter:...") of point `index`'s run, as
// series `series` at `x` in `panel` (no run of its own).
ReproPoint view(const ReproFigure& f, size_t index, const std::string& series, double x, const std::string& metric,
                const std::string& panel);

// One series per variant over the coroutine sweep, throughput in panel
// "<workload> throughput" and p50 latency in "<workload> p50 latency" (the
// latency series is named "<series> p50").
struct Variant {
  std::string label;
  std::string design;
  std::string phases;
  std::optional<bool> passive_ack = std::nullopt;
  std::optional<bool> location_cache = std::nullopt;
};
void add_sweep(ReproFigure* f, const std::string& workload, const std::vector<Variant>& variants);

// A paper value stated as a range over the sweep ("up to A (from B)"): the
// paper does not say at which x each end lies, so the model's ratio at `x`
// is compared with the middle of [lo, hi], the tolerance covering the range
// plus `slack`.
PaperValue range_value(const std::string& series, double x, double lo, double hi, const std::string& source,
                       const std::string& over, double slack = 0.15);

}  // namespace lw::drtmh
