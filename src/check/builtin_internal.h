// Shared by the checks of each structure (check.cpp, check_btree.cpp).
#pragma once

#include <set>
#include <string>

#include "latchwork/check/builtin.h"
#include "latchwork/sim/relaxation_log.h"

namespace lw::check_detail {

// Builds the B-tree on a backend of `c` without running it: "" or why not.
std::string btree_dry_run(const ClusterConfig& c, const CheckOptions& o);

inline ClusterConfig check_cluster(const ClusterConfig& base, uint64_t seed) {
  ClusterConfig c = base;
  c.compute_nodes = 2;
  c.threads_per_node = 2;
  c.coroutines_per_thread = 2;
  c.memory_node_threads = 0;
  c.memory_node_bytes = 8ull << 20;
  c.seed = seed;
  // The contract bounds neither how far apart a READ's lines are fetched nor
  // how long an atomic's window stays open; the model's defaults are short
  // next to a round trip. Seeds sweep wider windows so that a READ can
  // straddle a writer's whole latch-write-unlatch sequence.
  static constexpr Nanos kSpread[] = {800, 3'000, 10'000, 30'000};
  static constexpr Nanos kWindow[] = {150, 300, 1'000, 3'000};
  if (c.semantics.read_spread_ns > 0) c.semantics.read_spread_ns = kSpread[seed % 4];
  if (c.semantics.atomic_window_ns > 0) c.semantics.atomic_window_ns = kWindow[(seed / 4) % 4];
  return c;
}

// The bytes a finding is about (a key's tuple); bytes == 0: anywhere.
struct Range {
  RemoteAddr lo;
  uint64_t bytes = 0;
  bool covers(const RelaxationEvent& e) const { return bytes == 0 || e.touches(lo, bytes); }
};

// What the simulator's relaxations did to the operations of a finding, on
// its bytes. With `atomics_only`, just the lost updates of NIC atomics (of
// anyone).
inline void explain(const RelaxationLog& log, const Placement& who, Nanos start, Nanos end,
                    bool atomics_only, const Range& range, CheckFinding* f) {
  std::set<std::string> names;
  std::vector<RelaxationEvent> events;
  if (!atomics_only)
    for (const RelaxationEvent& e : log.of(who, start, end))
      if (range.covers(e)) events.push_back(e);
  for (const RelaxationEvent& e : log.overlapping(start, end))
    if ((e.relaxation == "atomic_loses_write" || e.relaxation == "atomic_loses_cpu" ||
         e.relaxation == "switch_duplicate") &&
        range.covers(e))
      events.push_back(e);
  for (const RelaxationEvent& e : events) {
    if (f->causes.size() < 3) f->causes.push_back(e.relaxation + ": " + e.what);
    names.insert(e.relaxation);
  }
  f->relaxations.assign(names.begin(), names.end());
}

// A seed's result with a finding for every violation of its history, each
// explained by the relaxations on `range_of(key)`.
template <typename RangeOf>
CheckSeedResult judge_history(uint64_t seed, const History& history, uint64_t gave_up,
                              uint64_t trace_hash, const RelaxationLog& log, RangeOf range_of) {
  CheckSeedResult r;
  r.seed = seed;
  r.ops = history.size();
  r.gave_up = gave_up;
  r.trace_hash = trace_hash;
  for (const HistoryViolation& v : history.check(0)) {
    CheckFinding f;
    f.kind = to_string(v.kind);
    f.detail = v.detail;
    explain(log, v.who, v.start, v.end, false, range_of(v.key), &f);
    r.findings.push_back(std::move(f));
  }
  return r;
}

// The index of a worker among all compute coroutines.
inline uint32_t worker_index(const ClusterConfig& c, const Placement& p) {
  return (p.node * c.threads_per_node + p.thread) * c.coroutines_per_thread + p.coroutine;
}

}  // namespace lw::check_detail
