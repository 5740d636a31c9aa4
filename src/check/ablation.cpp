// Explanations by ablation: a failing seed is rerun with each relaxation of
// its plan switched off alone, and with all of them off. A relaxation is
// necessary when the finding vanishes without it on a sample of seeds under
// the plan (the failing seed and its neighbours) on which the whole plan
// fails several times. One seed alone would not do: switching a relaxation
// off moves every later event, so a rare finding can vanish by chance.
#include <algorithm>

#include "driver_internal.h"

namespace lw::check {
namespace {

constexpr uint32_t kBaselineHits = 3;

uint64_t neighbour(uint64_t seed, uint32_t k) {
  return k == 0 ? seed : seed ^ (uint64_t{k} * 0x9e3779b97f4a7c15ull);
}

bool fails_with(const WorkloadFactory& factory, const Options& o, SeedPlan plan, uint32_t k,
                const Shape& shape, const std::string& kind) {
  plan.seed = neighbour(plan.seed, k);
  SeedResult r = detail::run_one(factory, o, plan, shape, {});
  for (const Finding& f : r.findings)
    if (f.failure && f.kind == kind) return true;
  return false;
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

}  // namespace

void explain(const WorkloadFactory& factory, const Options& o, Finding* f) {
  LW_CHECK(f != nullptr);
  Options quiet = o;
  quiet.keep_causes = false;  // the log is not needed to decide
  f->necessary.clear();
  f->sufficient.clear();
  f->protocol_bug = false;
  f->explained = true;
  if (!f->failure) return;
  const uint32_t sample = calibrate(factory, quiet, *f);
  if (reproduces(factory, quiet, without_relaxations(f->plan), f->shape, f->kind, sample)) {
    f->protocol_bug = true;
    return;
  }
  std::vector<const Semantics::Switch*> on;
  for (const Semantics::Switch& sw : Semantics::switches())
    if (f->plan.semantics.*(sw.field)) on.push_back(&sw);
  for (const Semantics::Switch* sw : on) {
    SeedPlan p = f->plan;
    p.semantics.*(sw->field) = false;
    if (!reproduces(factory, quiet, p, f->shape, f->kind, sample)) f->necessary.push_back(sw->name);
  }
  if (!f->necessary.empty()) return;
  // Each of several relaxations suffices alone: name them.
  for (const Semantics::Switch* sw : on) {
    SeedPlan p = without_relaxations(f->plan);
    p.semantics.*(sw->field) = true;
    if (reproduces(factory, quiet, p, f->shape, f->kind, sample)) f->sufficient.push_back(sw->name);
  }
}

}  // namespace lw::check
