#include "common.h"

#include "latchwork/base/assert.h"

namespace lw::sherman_repro {

ClusterConfig sherman_cluster(uint32_t compute_nodes, uint32_t threads, uint32_t coroutines) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = "cx5-100g";
  c.compute_nodes = compute_nodes;
  c.threads_per_node = threads;
  c.coroutines_per_thread = coroutines;
  c.memory_nodes = 8;
  c.memory_node_bytes = 512ull << 20;
  return c;
}

ShermanRunOptions tree_options(const std::string& index, TreeMix mix, double zipf, ClusterConfig* c) {
  ShermanRunOptions o;
  LW_CHECK(apply_sherman_index(index, &o, c));
  o.mix = mix;
  o.zipf = zipf;
  o.keys = kKeys;
  o.tree.chunk_bytes = 1ull << 20;  // 176+ threads x 8 MB chunks would not fit the scaled memory nodes
  o.warmup_ns = 200'000;
  o.measure_ns = 300'000;
  // Bounded points: the largest healthy point takes a few million events; a
  // point that livelocks (under WrapRule::kBounded, two-level READs past version_wrap_ns retried until
  // max_attempts) would stop at 2^25 events and be reported as collapsed with
  // the operations its window completed (ShermanRunResult::collapsed); the
  // drain deadline below now stops it first, with its window's results.
  c->budget.max_events = uint64_t{1} << 25;
  c->budget.progress_seconds = 0;
  o.collapse_at_budget = true;
  // Healthy points end within about 1.2 ms of their window; stragglers
  // (version-wrap retries on large nodes) ran on for 6-97 virtual ms, and
  // the livelocked points to the event budget, all after every value of
  // the figure was fixed. They stop 2 ms after the window.
  o.drain_ns = 2'000'000;
  return o;
}

void steady_state(ShermanRunOptions* o, ClusterConfig* c) {
  o->warmup_ns = kSteadyWindowNs;
  o->measure_ns = kSteadyWindowNs;
  // The longest such point (read-intensive, 34 Mops for 22 ms) takes about
  // 2^26 events; the budget only stops a livelock.
  c->budget.max_events = uint64_t{1} << 28;
}

void steady_state_if_skewed_writes(ShermanRunOptions* o, ClusterConfig* c) {
  const bool writes = o->mix != TreeMix::kRangeOnly && o->mix != TreeMix::kReadOnly;
  if (o->zipf > 0 && writes) steady_state(o, c);
}

const std::vector<Step>& breakdown_steps() {
  static const std::vector<Step> steps = {
      {"FG+", "fg+", false, false, false},
      {"+Combine", "fg+", true, false, false},
      {"+On-Chip", "fg+", true, true, false},
      {"+Hierarchical", "fg+", true, true, true},
      {"+2-Level Ver", "sherman", true, true, true},
  };
  return steps;
}

ShermanRunOptions step_options(const Step& s, TreeMix mix, double zipf, ClusterConfig* c) {
  ShermanRunOptions o = tree_options(s.index, mix, zipf, c);
  o.tree.combine = s.combine;
  o.tree.lock.on_chip = s.on_chip;
  o.tree.lock.hierarchical = s.hierarchical;
  o.tree.lock.handover = s.hierarchical;
  o.index = s.name;
  return o;
}

ReproPoint metric_of(const ReproFigure& f, size_t run, std::string panel, std::string series, double x,
                     std::string metric) {
  LW_CHECK(run < f.points.size());
  ReproPoint p;
  p.panel = std::move(panel);
  p.series = std::move(series);
  p.x = x;
  p.cluster = f.points[run].cluster;
  p.same_run_as = static_cast<int>(run);
  p.metric = std::move(metric);
  return p;
}

size_t point_of(const ReproFigure& f, const std::string& series, double x) {
  for (size_t i = 0; i < f.points.size(); ++i)
    if (f.points[i].series == series && f.points[i].x == x) return i;
  LW_CHECK_MSG(false, "no point " + series);
  return 0;
}

PaperValue ratio(std::string series, std::string over, double x, double value, std::string source,
                 double tolerance) {
  PaperValue v;
  v.series = std::move(series);
  v.over_series = std::move(over);
  v.x = x;
  v.value = value;
  v.source = std::move(source);
  v.tolerance = tolerance;
  return v;
}

std::string scale_note(bool steady) {
  const std::string window =
      steady ? "a 10 ms warm-up and a 10 ms measured window of virtual time per point (the paper: seconds; "
               "skewed writes on host-memory locks collapse over milliseconds as spinning CASes hold the NIC's "
               "engines and more threads get stuck on hot leaves: FG+ write-intensive runs 6.0 Mops in a 300 us "
               "window, 0.40 at 3 ms, 0.28 at 10 ms, 0.26 at 20 ms, 0.23 at 40 ms, while Sherman stays at 6.5-6.8)"
             : "a 200 us warm-up and a 300 us measured window of virtual time per point (the paper: seconds)";
  return "Scale: 2^20 keys bulk-loaded 80% full (the paper: 10^9), 1 KB nodes, 8 memory + 8 compute nodes of 22 "
         "threads on the cx5-100g NIC model, " + window + ". Fewer keys make Zipf 0.99's hot keys share fewer "
         "leaves, so skewed write runs conflict somewhat more than the paper's. Two-level READs are trusted by their "
         "version checks alone, as Sherman's artifact runs them (--wrap-rule check); §4.4's 8 us bound "
         "(--wrap-rule bounded) retries every READ that queues past 8 us and collapses Fig. 13 at 528 coroutines, "
         "Fig. 12 at range 1000 and Fig. 15 at 256 B and 1 KB keys (docs/sherman.md, miss (A)).";
}

}  // namespace lw::sherman_repro

namespace lw::sherman_repro {

void add_breakdown(ReproFigure* f, const std::vector<TreeMix>& mixes, double zipf, bool steady) {
  for (TreeMix mix : mixes) {
    const std::string m = to_string(mix);
    std::vector<size_t> runs;
    for (const Step& s : breakdown_steps()) {
      ReproPoint p;
      p.panel = m;
      p.series = m + " " + s.name;
      p.x = zipf;
      p.cluster = sherman_cluster();
      p.sherman = step_options(s, mix, zipf, &p.cluster);
      if (steady) steady_state(&*p.sherman, &p.cluster);
      runs.push_back(f->points.size());
      f->points.push_back(p);
    }
    for (const char* q : {"p50", "p99"}) {
      const std::string panel = m + " " + q + " latency";
      f->panel_y_labels[panel] = std::string(q) + " latency (us)";
      for (size_t i = 0; i < runs.size(); ++i)
        f->points.push_back(metric_of(*f, runs[i], panel, m + " " + q + " " + breakdown_steps()[i].name, zipf,
                                      std::string(q) + "_us"));
    }
  }
}

}  // namespace lw::sherman_repro
