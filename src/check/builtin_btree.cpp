// `latchwork check --structure btree`: workers insert (each with a value
// unique to that insert) and look up keys of a remote B+-tree with small
// nodes, so that splits race lookups; every key is a register whose initial
// value is 0 (absent). The history is checked like the tuple store's, and the
// tree's structure (order, fences, sibling links, free latches) after the run.
#include <string>

#include "builtin_internal.h"
#include "latchwork/backends.h"
#include "latchwork/sim/sim_backend.h"
#include "latchwork/structures/btree.h"

namespace lw {

namespace {

// Small nodes: a few hundred keys make a tree of three or four levels.
constexpr uint32_t kNodeBytes = 256;

}  // namespace

bool btree_check_scheme(const std::string& scheme, BTreeSync* sync) {
  if (scheme == "btree-optimistic") *sync = BTreeSync::kOptimistic;
  else if (scheme == "btree-pessimistic") *sync = BTreeSync::kPessimistic;
  else return false;
  return true;
}

std::string check_detail::btree_dry_run(const ClusterConfig& c, const CheckOptions& o) {
  std::string err;
  std::unique_ptr<Backend> backend = make_backend(c, &err);
  if (!backend) return err;
  BTreeOptions t;
  if (!btree_check_scheme(o.scheme, &t.sync)) return "unknown btree scheme " + o.scheme;
  t.node_bytes = kNodeBytes;
  t.max_nodes = 4096;
  std::unique_ptr<BTree> tree;
  return BTree::create(*backend, t, &tree);
}

CheckSeedResult run_btree_check_seed(const ClusterConfig& base, const CheckOptions& o, uint64_t seed) {
  const ClusterConfig c = check_detail::check_cluster(base, seed);
  std::string err;
  std::unique_ptr<Backend> backend = make_backend(c, &err);
  LW_CHECK_MSG(backend, err);
  RelaxationLog log;
  if (auto* sim = dynamic_cast<SimBackend*>(backend.get())) sim->set_relaxation_log(&log);
  BTreeOptions t;
  LW_CHECK(btree_check_scheme(o.scheme, &t.sync));
  t.node_bytes = kNodeBytes;
  t.max_nodes = 4096;
  std::unique_ptr<BTree> tree;
  err = BTree::create(*backend, t, &tree);
  LW_CHECK_MSG(err.empty(), err);

  History history;
  uint64_t gave_up = 0;
  RetryPolicy policy;
  policy.max_attempts = o.max_attempts;
  backend->spawn_compute([&](Worker& w) -> Task<void> {
    const uint32_t me = check_detail::worker_index(c, w.placement());
    for (uint32_t i = 0; i < o.ops_per_worker; ++i) {
      HistoryOp op;
      op.key = w.rng().below(o.keys);
      op.who = w.placement();
      op.start = w.now();
      Status s;
      if (w.rng().below(100) < o.read_percent) {
        op.kind = HistoryOp::Kind::kRead;
        bool found = false;
        uint64_t v = 0;
        s = co_await tree->lookup(w, op.key + 1, &v, &found, policy);
        op.value = found ? v : 0;
      } else {
        op.kind = HistoryOp::Kind::kWrite;
        op.value = (uint64_t{me} + 1) << 32 | (i + 1);
        s = co_await tree->insert(w, op.key + 1, op.value, policy);
      }
      op.end = w.now();
      op.ok = ok(s);
      if (!op.ok) ++gave_up;
      history.record(op);
    }
  });
  RunStats stats = backend->run();
  require_within_budget(stats);

  // A key's entry moves between nodes on splits: no byte range narrows it.
  CheckSeedResult r = check_detail::judge_history(seed, history, gave_up, stats.trace_hash, log,
                                                  [](uint64_t) { return check_detail::Range{}; });
  if (gave_up > 0) {
    CheckFinding f;
    f.kind = "gave_up";
    f.detail = std::to_string(gave_up) + " operation(s) exhausted " + std::to_string(o.max_attempts) +
               " attempts (a latch never freed, or restarts without end)";
    r.findings.push_back(std::move(f));
  }
  if (std::string e = tree->check_structure(*backend); !e.empty()) {
    CheckFinding f;
    f.kind = "broken_structure";
    f.detail = e;
    r.findings.push_back(std::move(f));
  }
  return r;
}

}  // namespace lw
