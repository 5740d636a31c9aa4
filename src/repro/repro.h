// Reproductions of the papers' NIC microbenchmark figures on the NIC model:
// each figure is a set of perf runs (series over an x axis) and the values the
// papers state in their text, so that model and paper can be set side by side.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "latchwork/config/cluster_config.h"
#include "repro/jasny/btree_workload.h"
#include "runs/hash_run.h"
#include "runs/perf.h"
#include "runs/sherman_run.h"
#include "repro/jasny/tuple_workload.h"
#include "latchwork/txn/run.h"
#include "latchwork/workloads/lock_table.h"
#include "latchwork/workloads/oltp.h"

namespace lw {

// A transaction run (DrTM+H §5-§6, SMART §6.2.2), run by run_txn_point()
// (repro_txn.h). The design is resolved and the cluster built by
// txn::txn_cluster() when the point runs (ReproPoint::cluster gives only the
// seed), so that listing the figures runs no transaction code.
struct ReproTxn {
  std::string workload;                 // tpcc | smallbank | tatp | tpce
  workloads::OltpOptions oltp;
  std::string design = "drtmh";         // a txn::design_preset name
  std::string phases;                   // "E=one,V=two": txn::apply_phase_flag each
  std::optional<bool> passive_ack = std::nullopt;     // unset: the preset's
  std::optional<bool> location_cache = std::nullopt;
  std::optional<bool> speculative_reads = std::nullopt;
  txn::TxnRunOptions run;               // the window (run.design is replaced)
  uint32_t nodes = 16;                  // store nodes (symmetric) or compute nodes
  uint32_t threads = 1;
  uint32_t coroutines = 1;
  uint32_t memory_nodes = 2;            // disaggregated designs only
  uint64_t memory_node_bytes = 256ull << 20;
  std::string nic_profile;              // "": cx5-100g, cx6-200g for disaggregated designs
  std::map<std::string, double> nic_overrides = {};  // on top of the profile
  uint32_t rpc_cores = 0;               // > 0: RPC polling cores per node
  RpcServers rpc_servers = RpcServers::kCores;  // kWorkers: the nodes' worker threads serve RPCs
  std::optional<QpPolicy> qp_policy = std::nullopt;  // unset: txn_cluster's
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const ReproTxn&) const = default;
};

struct ReproPoint {
  std::string series;
  double x = 0;
  ClusterConfig cluster;
  PerfOptions perf;
  // Set: the point is a tuple-store workload (Jasny §3-4), not a perf run.
  std::optional<TupleWorkloadOptions> tuples = std::nullopt;
  // Set: the point is a B-tree workload (Jasny §4, Fig. 11).
  std::optional<BTreeWorkloadOptions> btree = std::nullopt;
  // Figures with many series group them: one table and one plot panel per
  // value (e.g. "256 B read-only"); "" = one panel.
  std::string panel = {};
  // Set: the point is a hash-table run (SMART §6.2.1, hash_run.h).
  std::optional<HashRunOptions> hash = std::nullopt;
  // >= 0: no run of its own; the point shows another metric of that point's
  // run (e.g. its p99 latency, or the share of updates with 2 retries).
  int same_run_as = -1;
  // The y value: "" = the figure's default (Mops, or mean latency), else
  // "mops", "p50_us", "p99_us", "mean_us", or "counter:NAME" (a counter of
  // the result: the NIC model's, or hash.* of hash runs).
  std::string metric = {};
  // Set: the point is a lock-table run (ALock §6, lock_table.h), run by
  // run_lock_point() (repro_lock.h). With lock_localities, one run per
  // locality and the y is their mean; with lock_baseline_remote_budget > 0
  // each is divided by the same run with that remote budget (ALock Fig. 4).
  std::optional<workloads::LockTableOptions> lock_table = std::nullopt;
  std::vector<uint32_t> lock_localities = {};
  int32_t lock_baseline_remote_budget = 0;
  // Non-empty: plots place the point at this metric of its result (e.g. the
  // achieved Mops of a paced run) instead of x; tables and paper values
  // still name it by x.
  std::string x_metric = {};
  // Set: the point is a Sherman / SMART B+Tree run (sherman_run.h). (`btree`
  // above is the Jasny B-tree workload.)
  std::optional<ShermanRunOptions> sherman = std::nullopt;
  // Set: the point is a run of HOCL alone (Sherman Figs. 2 and 16).
  std::optional<HoclRunOptions> hocl = std::nullopt;
  // Set: the point is a transaction run (ReproTxn above).
  std::optional<ReproTxn> txn = std::nullopt;

  static ReproPoint of_perf(std::string series, double x, ClusterConfig c, PerfOptions o) {
    ReproPoint p;
    p.series = std::move(series);
    p.x = x;
    p.cluster = std::move(c);
    p.perf = std::move(o);
    return p;
  }
  static ReproPoint of_tuples(std::string series, double x, ClusterConfig c, TupleWorkloadOptions t) {
    ReproPoint p;
    p.series = std::move(series);
    p.x = x;
    p.cluster = std::move(c);
    p.tuples = std::move(t);
    return p;
  }
};

// The clusters of the synchronization figures: `compute_nodes` x `threads`
// workers, one operation outstanding each, one memory node, the connectx
// semantics profile and the named NIC profile.
ClusterConfig repro_sync_cluster(const std::string& nic_profile, uint32_t compute_nodes, uint32_t threads,
                                 uint64_t memory_node_bytes);

// A value a paper states (read from its text; the papers' plots carry no data
// labels), and whether a model parameter was fitted to it.
struct PaperValue {
  std::string series;
  double x = 0;
  double value = 0;      // Mops
  std::string source;    // "Jasny §3.2, Fig. 4: ..."
  bool fitted = false;   // a parameter was fitted to this value
  double tolerance = 0.15;
  bool at_least = false; // the paper says "more than"
  bool at_most = false;  // the paper says "less than"
  // Non-empty: the value is a ratio, this series' y over `over_series`' y at x.
  std::string over_series = {};
  // With over_series: its highest y over the sweep instead of its y at x
  // (the paper compares with that series' peak, e.g. Sherman Fig. 13's
  // "1.4x FG+'s peak" where FG+ collapses past its peak).
  bool over_peak = false;
};

// How the paper draws a figure, and so how `repro` plots it: lines for
// sweeps, grouped bars for breakdowns and figures of one x, quantile curves
// for latency distributions.
enum class ReproChart { kLines, kBars, kCdf };
const char* to_string(ReproChart c);

// How large a figure's set-up is. kDefault: scaled down so that `repro all`
// runs in minutes (each figure's notes say how). kPaper: the papers' key
// counts, policy clocks and run lengths where this machine allows
// (paper_scale.h says what changes, figure by figure).
enum class ReproScale { kDefault, kPaper };
const char* to_string(ReproScale s);
const std::vector<std::string>& repro_scale_names();
bool parse_repro_scale(const std::string& name, ReproScale* out);

struct ReproFigure {
  std::string name;    // e.g. "jasny-fig4"
  ReproScale scale = ReproScale::kDefault;
  std::string title;
  std::string x_label;
  bool log_x = true;
  // The y axis: false, throughput in Mops; true, mean latency per operation
  // in µs (paper values are then µs too).
  bool latency = false;
  std::string notes;   // what the model leaves out, what differs in the set-up
  std::vector<ReproPoint> points;
  std::vector<PaperValue> paper;
  // Panels whose y axis is not the figure's: panel -> label.
  std::map<std::string, std::string> panel_y_labels = {};
  ReproChart chart = ReproChart::kLines;
};

// The figure's set-up in one line, from its points: nodes, threads,
// coroutines, keys or locks, NIC profile (a range where points differ).
std::string repro_setup(const ReproFigure& f);

struct ReproComparison {
  PaperValue paper;
  double model = 0;
  double error = 0;  // (model - paper) / paper
  bool within = false;
};

struct ReproResult {
  const ReproFigure* figure = nullptr;
  std::vector<PerfResult> results;  // one per point
  std::vector<ReproComparison> comparisons;
  double wall_seconds = 0;
  uint64_t verbs = 0;         // of every point's run, shared ones included
  uint64_t shared_runs = 0;   // runs taken from an equal earlier one (ReproSession)

  std::string to_json() const;
  std::string to_csv() const;
};

// A point's y value in the figure's unit (Mops, or µs when `latency`).
double repro_y(const ReproFigure& f, const PerfResult& r);
// The point's own metric when it names one (ReproPoint::metric).
double repro_y(const ReproFigure& f, const ReproPoint& p, const PerfResult& r);
// The value of a metric name (ReproPoint::metric) of a result.
double repro_metric(const std::string& metric, const PerfResult& r);
const char* repro_y_label(const ReproFigure& f);

const std::vector<ReproFigure>& repro_figures(ReproScale scale = ReproScale::kDefault);
const ReproFigure* find_repro(const std::string& name, ReproScale scale = ReproScale::kDefault);
class ReproSession;
// Runs every point, on up to `jobs` threads at once (0: one per core). Each
// point is its own seeded simulation, so the results do not depend on `jobs`;
// only wall_seconds does. `progress(done, n)` is called, one call at a time,
// as points finish (and once with done = 0 before the first). The points
// share caches, and equal runs, with the session's other figures
// (repro_session.h; null: a session of this figure alone).
ReproResult run_repro(const ReproFigure& f, const std::function<void(size_t, size_t)>& progress = {},
                      uint32_t jobs = 1, ReproSession* session = nullptr);

}  // namespace lw
