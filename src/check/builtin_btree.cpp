// The B+-tree as a check workload: workers insert (each with a value unique
// to that insert) and look up keys in a tree of small nodes, so that splits
// race lookups; every key is a register whose initial value is 0 (absent).
// After the run the tree's structure is checked (order, fences, sibling
// links, free latches).
#include "builtin_internal.h"
#include "latchwork/sim/sim_backend.h"
#include "latchwork/structures/jasny/btree.h"

namespace lw::check {
namespace {

// Small nodes: a few hundred keys make a tree of three or four levels.
constexpr uint32_t kNodeBytes = 256;
constexpr uint64_t kMaxNodes = 4096;

BTreeOptions tree_options(const BuiltinOptions& b) {
  BTreeOptions t;
  t.sync = b.scheme == "btree-pessimistic" ? BTreeSync::kPessimistic : BTreeSync::kOptimistic;
  t.node_bytes = kNodeBytes;
  t.max_nodes = kMaxNodes;
  return t;
}

class BTreeWorkload final : public Workload {
 public:
  explicit BTreeWorkload(BuiltinOptions b) : b_(std::move(b)) {}

  void setup(SeedRun& run) override {
    if (std::string e = BTree::create(run.backend(), tree_options(b_), &tree_); !e.empty()) run.fail("setup", e);
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    RetryPolicy policy;
    policy.max_attempts = b_.max_attempts;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      HistoryOp op;
      op.key = w.rng().below(b_.keys) + 1;  // tree keys 1..keys
      op.who = w.placement();
      op.start = w.now();
      Status s;
      if (w.rng().below(100) < b_.read_percent) {
        op.kind = HistoryOp::Kind::kRead;
        bool found = false;
        uint64_t v = 0;
        s = co_await tree_->lookup(w, op.key, &v, &found, policy);
        op.value = found ? v : 0;
      } else {
        op.kind = HistoryOp::Kind::kWrite;
        op.value = (uint64_t{me} + 1) << 32 | (i + 1);
        if (run.crash() != nullptr)
          run.in_flight(w, [&run, op](Nanos end) mutable {
            op.end = end;
            op.ok = false;
            run.registers().record(op);
          });
        s = co_await tree_->insert(w, op.key, op.value, policy);
      }
      op.end = w.now();
      op.ok = ok(s);
      run.registers().record(op);
      const char* what = op.kind == HistoryOp::Kind::kRead ? "a lookup" : "an insert";
      if (s == Status::kRetryExhausted) {
        run.gave_up(w, std::string(what) + " of key " + std::to_string(op.key) + " after " +
                           std::to_string(b_.max_attempts) + " attempts or restarts");
      } else {
        if (!op.ok)
          run.fail("error-status", std::string(what) + " of key " + std::to_string(op.key) + " by " +
                                       describe(op.who) + " returned " + std::string(to_string(s)));
        run.op_done(w);
      }
    }
  }

  void check(SeedRun& run) override {
    if (std::string e = tree_->check_structure(run.backend()); !e.empty()) run.fail("broken-structure", e);
  }

  std::string still_held(SeedRun& run) override { return tree_->latch_state(run.backend()); }

 private:
  BuiltinOptions b_;
  std::unique_ptr<BTree> tree_;
};

}  // namespace

namespace builtin_detail {

std::string btree_dry_run(const ClusterConfig& c, const BuiltinOptions& b) {
  SimBackend sim(c);
  std::unique_ptr<BTree> tree;
  if (std::string e = BTree::create(sim, tree_options(b), &tree); !e.empty())
    return e + " (the check's memory nodes have " + std::to_string(c.memory_node_bytes) + " bytes)";
  return {};
}

WorkloadFactory btree_workload(const BuiltinOptions& b) {
  return [b] { return std::make_unique<BTreeWorkload>(b); };
}

}  // namespace builtin_detail
}  // namespace lw::check
