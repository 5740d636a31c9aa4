// Explanations by ablation: a failing seed is rerun with each relaxation of
// its plan switched off alone. Switched off with its timing held
// (SimBackend::hold_timing): the switch keeps its random draws and delays
// and loses only its effect, so that switching off a relaxation that never
// touched the finding leaves the rest of the run's timing where it was. The
// simulator draws timing and relaxations from one random stream; without
// holding, switching one off moved every later event, and a race that
// needed a long delay was blamed on whichever switch supplied it.
//
// Verdicts, in order:
// - protocol bug: it happens under `sequential` without jitter;
// - timing-dependent protocol race: with every relaxation off it still
//   happens when their delays are held (the failing run's own timing), or
//   under `sequential` with the plan's jitter or a much wider one;
// - else the relaxations whose removal alone (timing held) makes it vanish
//   on the failing seed and on a sample of seeds under the plan, or the ones
//   each of which suffices alone. Only relaxations that touched the
//   finding's addresses (Finding::touched; any that acted when it has none)
//   are named; explain_note says what was flagged and not named, and where
//   timing could not be held.
#include <algorithm>
#include <set>

#include "driver_internal.h"
#include "latchwork/sim/relaxation_log.h"
#include "latchwork/sim/verb_trace.h"

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
                const Shape& shape, const std::string& kind, const Semantics* held = nullptr) {
  plan.seed = neighbour(plan.seed, k);
  detail::Hooks hooks;
  hooks.hold_timing = held;
  return has_kind(detail::run_one(factory, o, plan, shape, hooks), kind);
}

// The first of the first `sample` seeds of `plan` on which the finding
// appears (0: the plan's own), or -1.
int64_t first_hit(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan, const Shape& shape,
                  const std::string& kind, uint32_t sample, const Semantics* held = nullptr) {
  for (uint32_t k = 0; k < sample; ++k)
    if (fails_with(factory, o, plan, k, shape, kind, held)) return k;
  return -1;
}

bool reproduces(const WorkloadFactory& factory, const Options& o, const SeedPlan& plan,
                const Shape& shape, const std::string& kind, uint32_t sample,
                const Semantics* held = nullptr) {
  return first_hit(factory, o, plan, shape, kind, sample, held) >= 0;
}

// Where a verdict's run is: "its own seed" or "seed N of its plan's sample".
std::string on_seed(const Finding& f, int64_t k) {
  return k == 0 ? "on its own seed"
                : "on seed " + std::to_string(neighbour(f.seed, static_cast<uint32_t>(k))) + " of the plan's sample";
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

// The relaxations explain() may name: those that touched the finding's
// addresses in the failing run, or, for a finding without addresses, those
// that acted anywhere in it (the log changes no decision: the same run).
std::set<std::string> blamable(const WorkloadFactory& factory, const Options& o, const Finding& f) {
  RelaxationLog log;
  VerbTrace trace(size_t{1} << 18);
  detail::Hooks hooks;
  hooks.log = &log;
  hooks.trace = &trace;
  Options logged = o;
  logged.keep_causes = true;
  const SeedResult r = detail::run_one(factory, logged, f.plan, f.shape, hooks);
  std::set<std::string> names;
  const Finding* same = nullptr;
  for (const Finding& g : r.findings)
    if (g.failure && g.kind == f.kind && same == nullptr) same = &g;
  // Events past the log's or the trace's bound are not seen: then any switch may have acted.
  if (log.dropped() > 0 || trace.dropped() > 0) {
    for (const Semantics::Switch& sw : Semantics::switches()) names.insert(sw.name);
  } else if (same != nullptr && same->addressed) {
    names.insert(same->touched.begin(), same->touched.end());
  } else {
    for (const RelaxationEvent& e : log.events()) names.insert(e.relaxation);
  }
  return names;
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
  // timing; only with delays -- the relaxations' own, held, or jitter as
  // wide as the plan's or much wider -- it is a race of the protocol that
  // needs a delay in the wrong place.
  const SeedPlan seq = without_relaxations(f->plan);
  SeedPlan still = seq, wide = seq;
  still.jitter_ns = 0;
  wide.jitter_ns = std::max(seq.jitter_ns, o.race_jitter_ns);
  if (reproduces(factory, quiet, still, f->shape, f->kind, sample)) {
    f->protocol_bug = true;
    return;
  }
  const Semantics& plan_sem = f->plan.semantics;
  if (const int64_t k = first_hit(factory, quiet, seq, f->shape, f->kind, sample, &plan_sem); k >= 0) {
    f->timing_race = true;
    f->explain_note = "it fails under sequential with the delays of the plan's relaxations held (their effects off), " +
                      on_seed(*f, k);
    return;
  }
  // Wider jitter slows every operation as much: the watchdog waits as much
  // longer, so that slowness alone is never a hang.
  Options slow = quiet;
  slow.watchdog_ns = o.watchdog_ns * std::clamp<Nanos>(wide.jitter_ns / std::max<Nanos>(o.max_jitter_ns, 1), 1, 200);
  if ((seq.jitter_ns > 0 && reproduces(factory, quiet, seq, f->shape, f->kind, sample)) ||
      (o.race_seeds > 0 && reproduces(factory, slow, wide, f->shape, f->kind, o.race_seeds))) {
    f->timing_race = true;
    f->explain_note = "timing could not be held: it fails under sequential with jitter up to " +
                      std::to_string(wide.jitter_ns) + " ns";
    return;
  }
  const std::set<std::string> allowed = blamable(factory, quiet, *f);
  std::vector<const Semantics::Switch*> on;
  for (const Semantics::Switch& sw : Semantics::switches())
    if (f->plan.semantics.*(sw.field)) on.push_back(&sw);
  std::vector<std::string> idle;   // flagged by ablation, never touched the finding
  bool moved = false;              // off with timing held, the failing seed's run still changed
  for (const Semantics::Switch* sw : on) {
    SeedPlan p = f->plan;
    p.semantics.*(sw->field) = false;
    detail::Hooks held;
    held.hold_timing = &plan_sem;
    const SeedResult same_seed = detail::run_one(factory, quiet, p, f->shape, held);
    moved = moved || same_seed.trace_hash != f->trace_hash;
    // The finding stays on its own seed, timing held: not necessary.
    if (has_kind(same_seed, f->kind)) continue;
    if (reproduces(factory, quiet, p, f->shape, f->kind, sample, &plan_sem)) continue;
    (allowed.count(sw->name) ? f->necessary : idle).push_back(sw->name);
  }
  const std::string idle_note =
      joined(idle) + " vanished the finding when off but never touched its addresses in this run";
  if (!f->necessary.empty()) {
    if (!idle.empty()) f->explain_note = idle_note;
    return;
  }
  // Each of several relaxations that touched it suffices alone: name them.
  for (const Semantics::Switch* sw : on) {
    if (!allowed.count(sw->name)) continue;
    SeedPlan p = without_relaxations(f->plan);
    p.semantics.*(sw->field) = true;
    if (reproduces(factory, quiet, p, f->shape, f->kind, sample, &plan_sem)) f->sufficient.push_back(sw->name);
  }
  if (f->sufficient.empty()) {
    // A relaxation's effect changes what the program reads, and so its
    // timing from there on: then the verdict rests on the sample.
    const std::string untimed =
        "no relaxation alone is necessary or suffices on " + std::to_string(sample) + " seed(s)" +
        (moved ? " (switching one off changed the run of seed " + std::to_string(f->seed) +
                     " after its first effect, even with its delays held)"
               : "");
    f->explain_note = idle.empty() ? untimed : idle_note + "; " + untimed;
  }
}

}  // namespace lw::check
