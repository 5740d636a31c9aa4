// Explanations by ablation: a failing seed is rerun with each relaxation of
// its plan switched off alone, and with all of them off. A relaxation is
// necessary when the finding vanishes without it on a sample of seeds under
// the plan (the failing seed and its neighbours) on which the whole plan
// fails several times, and when the failing run's relaxation log shows it
// acted. One seed alone would not do: the simulator draws timing and
// relaxations from one random stream, so switching a relaxation off moves
// every later event and a rare finding can vanish by chance. Where switching
// one off leaves the failing seed's run unchanged (same trace hash) timing
// was held fixed; where it moved, the verdict rests on the sample, and the
// finding's explain_note says so when that matters.
//
// First, under `sequential`: a finding that happens there without jitter is
// a protocol bug; one that happens there only with jitter -- the plan's, or
// a much wider one -- is a timing-dependent protocol race (a lost wake-up,
// an ABA), whichever switch happened to supply the delay under the swarm.
#include <algorithm>
#include <set>

#include "driver_internal.h"
#include "latchwork/sim/relaxation_log.h"

namespace lw::check {
namespace {

constexpr uint32_t kBaselineHits = 3;

uint64_t neighbour(uint64_t seed, uint32_t k) {
  return k == 0 ? seed : seed ^ (uint64_t{k} * 0x9e3779b97f4a7c15ull);
}

bool has_kind(const SeedResult& r, const std::string& kind) {
  for (const Finding& f : r.findings)
    if (f.failure && f.kind == kind) return true;
  return false;
}

bool fails_with(const WorkloadFactory& factory, const Options& o, SeedPlan plan, uint32_t k,
                const Shape& shape, const std::string& kind) {
  plan.seed = neighbour(plan.seed, k);
  return has_kind(detail::run_one(factory, o, plan, shape, {}), kind);
}

// Whether the finding appears on any of the first `sample` seeds of `plan`.
bool reproduces(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                const Shape& shape, const std::string& kind, uint32_t sample) {
  for (uint32_t k = 0; k < sample; ++k)
    if (fails_with(factory, o, plan, k, shape, kind)) return true;
  return false;
}

// The sample size: grows until the unablated plan fails kBaselineHits times.
uint32_t calibrate(const WorkloadFactory& factory, const Options& o, const Finding& f) {
  uint32_t sample = 1 + o.ablation_seeds, hits = 0, tried = 0;
  const uint32_t most = 1 + std::max(o.ablation_seeds, o.max_ablation_seeds);
  for (;;) {
    for (; tried < sample && hits < kBaselineHits; ++tried)
      hits += fails_with(factory, o, f.plan, tried, f.shape, f.kind);
    if (hits >= kBaselineHits || sample >= most) return sample;
    sample = std::min(most, sample * 2);
  }
}

SeedPlan without_relaxations(SeedPlan p) {
  for (const Semantics::Switch& sw : Semantics::switches()) p.semantics.*(sw.field) = false;
  return p;
}

// The relaxations that acted in the failing run (its log; the log changes
// no decision, so this is the same run).
std::set<std::string> acted_in(const WorkloadFactory& factory, const Options& o, const Finding& f) {
  RelaxationLog log;
  detail::Hooks hooks;
  hooks.log = &log;
  (void)detail::run_one(factory, o, f.plan, f.shape, hooks);
  std::set<std::string> acted;
  for (const RelaxationEvent& e : log.events()) acted.insert(e.relaxation);
  // Events past the log's bound are not named: then any switch may have acted.
  if (log.dropped() > 0)
    for (const Semantics::Switch& sw : Semantics::switches()) acted.insert(sw.name);
  return acted;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

void explain(const WorkloadFactory& factory, const Options& o, Finding* f) {
  LW_CHECK(f != nullptr);
  Options quiet = o;
  quiet.keep_causes = false;  // the log is not needed to decide
  f->necessary.clear();
  f->sufficient.clear();
  f->protocol_bug = false;
  f->timing_race = false;
  f->explain_note.clear();
  f->explained = true;
  if (!f->failure) return;
  const uint32_t sample = calibrate(factory, quiet, *f);
  // Under `sequential`: without jitter the protocol fails whatever the
  // timing; only with jitter -- the plan's, or much wider -- it is a race of
  // the protocol that needs a delay in the wrong place.
  const SeedPlan seq = without_relaxations(f->plan);
  SeedPlan still = seq, wide = seq;
  still.jitter_ns = 0;
  wide.jitter_ns = std::max(seq.jitter_ns, o.race_jitter_ns);
  if (reproduces(factory, quiet, still, f->shape, f->kind, sample)) {
    f->protocol_bug = true;
    return;
  }
  // Wider jitter slows every operation as much: the watchdog waits as much
  // longer, so that slowness alone is never a hang.
  Options slow = quiet;
  slow.watchdog_ns = o.watchdog_ns * std::clamp<Nanos>(wide.jitter_ns / std::max<Nanos>(o.max_jitter_ns, 1), 1, 200);
  if ((seq.jitter_ns > 0 && reproduces(factory, quiet, seq, f->shape, f->kind, sample)) ||
      (o.race_seeds > 0 && reproduces(factory, slow, wide, f->shape, f->kind, o.race_seeds))) {
    f->timing_race = true;
    return;
  }
  const std::set<std::string> acted = acted_in(factory, quiet, *f);
  std::vector<const Semantics::Switch*> on;
  for (const Semantics::Switch& sw : Semantics::switches())
    if (f->plan.semantics.*(sw.field)) on.push_back(&sw);
  std::vector<std::string> idle;   // flagged by ablation, never acted in the failing run
  std::vector<std::string> moved;  // switching it off moved the failing seed's timing
  for (const Semantics::Switch* sw : on) {
    SeedPlan p = f->plan;
    p.semantics.*(sw->field) = false;
    const SeedResult same_seed = detail::run_one(factory, quiet, p, f->shape, {});
    if (same_seed.trace_hash != f->trace_hash) moved.push_back(sw->name);
    // Timing held fixed (the same run) and the finding stays: not necessary.
    if (same_seed.trace_hash == f->trace_hash && has_kind(same_seed, f->kind)) continue;
    if (reproduces(factory, quiet, p, f->shape, f->kind, sample)) continue;
    (acted.count(sw->name) ? f->necessary : idle).push_back(sw->name);
  }
  const std::string untimed =
      "switching a relaxation off moved the timing of seed " + std::to_string(f->seed) +
      ", so ablation could not hold it fixed and decided on " + std::to_string(sample) + " seed(s)";
  if (!f->necessary.empty()) {
    std::vector<std::string> unfixed;
    for (const std::string& n : f->necessary)
      if (std::find(moved.begin(), moved.end(), n) != moved.end()) unfixed.push_back(n);
    if (!idle.empty())
      f->explain_note = joined(idle) + " also vanished the finding when off but never acted in this run";
    if (!unfixed.empty())
      f->explain_note += std::string(f->explain_note.empty() ? "" : "; ") + untimed;
    return;
  }
  // Each of several relaxations that acted suffices alone: name them.
  for (const Semantics::Switch* sw : on) {
    if (!acted.count(sw->name)) continue;
    SeedPlan p = without_relaxations(f->plan);
    p.semantics.*(sw->field) = true;
    if (reproduces(factory, quiet, p, f->shape, f->kind, sample)) f->sufficient.push_back(sw->name);
  }
  if (f->sufficient.empty())
    f->explain_note = idle.empty() ? untimed
                                   : joined(idle) + " vanished the finding when off but never acted in this run; " +
                                         untimed;
}

}  // namespace lw::check
