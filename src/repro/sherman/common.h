// Shared set-ups of the Sherman reproductions (src/repro/sherman/*.cpp) and
// SMART Fig. 12: the clusters of Sherman §5.1 and SMART §6.2.3, the index
// presets and Fig. 10's technique-by-technique breakdown.
#pragma once

#include <string>
#include <vector>

#include "repro/repro.h"
#include "runs/sherman_run.h"

namespace lw::sherman_repro {

// Sherman §5.1: 8 memory nodes and 8 compute nodes of 22 threads (one
// coroutine each unless said), ConnectX-5 100 Gb/s (cx5-100g).
ClusterConfig sherman_cluster(uint32_t compute_nodes = 8, uint32_t threads = 22, uint32_t coroutines = 1);
// The papers load 10^9 keys (Sherman) or 10^8 (SMART); loading is host-side
// work repeated for every point, so the reproductions load 2^20.
inline constexpr uint64_t kKeys = 1u << 20;
// A point of the B+Tree experiment: the index preset on `c`, short windows.
ShermanRunOptions tree_options(const std::string& index, TreeMix mix, double zipf, ClusterConfig* c);
// Skewed writes on host-memory locks collapse slowly: spinning CASes hold
// the NIC's engines, more threads get stuck on hot leaves as time passes,
// and the rate keeps falling for milliseconds. Those points run a 10 ms
// warm-up and a 10 ms window, long enough that doubling them moves FG+'s
// write-intensive rate by 7% (0.28 -> 0.26 Mops; 0.40 at 3 ms, 6.0 at the
// short window) and Sherman's by under 2% (measured 2026-11-29).
inline constexpr Nanos kSteadyWindowNs = 10'000'000;
void steady_state(ShermanRunOptions* o, ClusterConfig* c);
// steady_state() for a point whose writes are skewed (zipf > 0 and a mix
// with inserts or updates): their convoys on hot leaves build over
// milliseconds. Figs. 12, 13 and 15; uniform and read-only points keep their
// short windows.
void steady_state_if_skewed_writes(ShermanRunOptions* o, ClusterConfig* c);

// Sherman Fig. 10/11's steps: FG+, +Combine, +On-Chip, +Hierarchical (with
// handover), +2-Level Ver (= Sherman).
struct Step {
  std::string name;
  std::string index;  // the preset the step starts from
  bool combine = false, on_chip = false, hierarchical = false;
};
const std::vector<Step>& breakdown_steps();
ShermanRunOptions step_options(const Step& s, TreeMix mix, double zipf, ClusterConfig* c);

// A point showing another metric of an earlier point's run.
ReproPoint metric_of(const ReproFigure& f, size_t run, std::string panel, std::string series, double x,
                     std::string metric);
// The index of the point named (series, x); checked.
size_t point_of(const ReproFigure& f, const std::string& series, double x);
// A ratio the paper states: series over over_series at x.
PaperValue ratio(std::string series, std::string over, double x, double value, std::string source,
                 double tolerance = 0.25);
// What every Sherman figure's notes share: scale, windows.
// `steady`: the figure's points run steady_state() windows.
std::string scale_note(bool steady = false);

}  // namespace lw::sherman_repro

namespace lw::sherman_repro {
// Fig. 10/11: for each mix a panel of throughput (one series per step, at
// x = zipf) and panels of p50 and p99 latency of the same runs. Series are
// "<mix> <step>", "<mix> p50 <step>", "<mix> p99 <step>".
// `steady`: the points run steady_state() windows.
void add_breakdown(ReproFigure* f, const std::vector<TreeMix>& mixes, double zipf, bool steady = false);
}  // namespace lw::sherman_repro
