// Minimisation: shrink a failing seed's workload (fewer operations, nodes,
// threads, coroutines) while a finding of the same kind persists on the
// same plan, so that its trace is short enough to read.
#include "driver_internal.h"

namespace lw::check {

Finding minimise(const WorkloadFactory& factory, const Options& o, const Finding& f) {
  Options quiet = o;
  quiet.keep_causes = false;
  auto fails = [&](const Shape& s, Finding* out) {
    SeedResult r = detail::run_one(factory, quiet, f.plan, s, {});
    for (Finding& g : r.findings)
      if (g.failure && g.kind == f.kind) {
        *out = std::move(g);
        return true;
      }
    return false;
  };
  Finding best = f;
  Shape s = f.shape;
  // Each accepted step shrinks the shape, so the loop ends; the bound keeps
  // a pathological workload from taking long.
  constexpr int kMaxRuns = 96;
  int runs = 0;
  for (bool shrunk = true; shrunk && runs < kMaxRuns;) {
    shrunk = false;
    std::vector<Shape> smaller;
    auto push = [&](Shape t) { if (!(t == s)) smaller.push_back(t); };
    Shape t = s;
    t.ops_per_worker = std::max(1u, s.ops_per_worker / 2);
    push(t);
    t = s; if (s.compute_nodes > 1) { --t.compute_nodes; push(t); }
    t = s; if (s.threads_per_node > 1) { --t.threads_per_node; push(t); }
    t = s; if (s.coroutines_per_thread > 1) { --t.coroutines_per_thread; push(t); }
    t = s; if (s.memory_node_threads > 0) { --t.memory_node_threads; push(t); }
    t = s; if (s.ops_per_worker > 1) { --t.ops_per_worker; push(t); }
    for (const Shape& c : smaller) {
      if (++runs > kMaxRuns) break;
      Finding g;
      if (fails(c, &g)) {
        s = c;
        // Keep the explanation: the plan, and so what it needs, is the same.
        g.necessary = f.necessary;
        g.sufficient = f.sufficient;
        g.protocol_bug = f.protocol_bug;
        g.timing_race = f.timing_race;
        g.explain_note = f.explain_note;
        g.explained = f.explained;
        g.replay = detail::replay_of(o, f.seed, s);
        best = std::move(g);
        shrunk = true;
        break;
      }
    }
  }
  // The search ran without the relaxation log: one more run of the smallest
  // shape fills in the causes.
  if (o.keep_causes && !(s == f.shape)) {
    SeedResult r = detail::run_one(factory, o, f.plan, s, {});
    for (const Finding& g : r.findings)
      if (g.failure && g.kind == f.kind) {
        best.causes = g.causes;
        break;
      }
  }
  return best;
}

}  // namespace lw::check
