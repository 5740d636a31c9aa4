// The tuple store as a check workload: workers read and write a few keys;
// every write stores a value unique to it in every payload word, so a read
// of a payload mixing values is torn, and the register model checks the
// rest (stale, future, unknown values). Pessimistic writes record their
// exclusive latch holds.
#include <cstring>

#include "builtin_internal.h"
#include "latchwork/sim/sim_backend.h"
#include "latchwork/structures/jasny/tuple_store.h"

namespace lw::check {
namespace {

// A payload whose every word is `value`; whole() tells whether a read one is.
void fill(std::span<std::byte> p, uint64_t value) {
  for (size_t at = 0; at + 8 <= p.size(); at += 8) std::memcpy(p.data() + at, &value, 8);
}
bool whole(std::span<const std::byte> p, uint64_t* value) {
  uint64_t first = 0;
  std::memcpy(&first, p.data(), 8);
  for (size_t at = 8; at + 8 <= p.size(); at += 8) {
    uint64_t v;
    std::memcpy(&v, p.data() + at, 8);
    if (v != first) return false;
  }
  *value = first;
  return true;
}

// Out-of-place writers each own fresh records: one per operation.
TupleStoreOptions store_options(const BuiltinOptions& b, uint32_t writers, uint32_t ops) {
  TupleStoreOptions t;
  parse_tuple_scheme(b.scheme, &t);
  t.tuple_bytes = b.tuple_bytes;
  t.tuples = b.keys;
  t.writers = writers;
  t.records_per_writer = ops;
  return t;
}

uint32_t all_workers(const ClusterConfig& c, uint32_t compute_workers) {
  return compute_workers + c.memory_nodes * c.memory_node_threads;
}

class TuplesWorkload final : public Workload {
 public:
  explicit TuplesWorkload(BuiltinOptions b) : b_(std::move(b)) {}

  void setup(SeedRun& run) override {
    const TupleStoreOptions t = store_options(b_, run.workers(), run.ops_per_worker());
    if (std::string e = TupleStore::create(run.backend(), t, &store_); !e.empty()) run.fail("setup", e);
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    std::vector<std::byte> payload(store_->payload_bytes());
    RetryPolicy policy;
    policy.max_attempts = b_.max_attempts;
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      HistoryOp op;
      op.key = w.rng().below(b_.keys);
      op.who = w.placement();
      op.start = w.now();
      Status s;
      if (w.rng().below(100) < b_.read_percent) {
        op.kind = HistoryOp::Kind::kRead;
        s = co_await store_->read(w, op.key, payload, policy);
        op.end = w.now();
        op.ok = ok(s);
        if (op.ok) op.whole = whole(payload, &op.value);
      } else {
        op.kind = HistoryOp::Kind::kWrite;
        op.value = (uint64_t{me} + 1) << 32 | (i + 1);  // unique per write
        fill(payload, op.value);
        if (run.crash() != nullptr)
          run.in_flight(w, [&run, op](Nanos end) mutable {
            op.end = end;
            op.ok = false;
            run.registers().record(op);
          });
        HoldTimes hold;
        s = co_await store_->write(w, op.key, payload, me, &hold, policy);
        op.end = w.now();
        op.ok = ok(s);
        if (op.ok && hold.acquired > 0 && hold.released >= hold.acquired)
          run.holds().exclusive(op.key, hold.acquired, hold.released, op.who);
      }
      run.registers().record(op);
      const char* what = op.kind == HistoryOp::Kind::kRead ? "a read" : "a write";
      if (s == Status::kRetryExhausted) {
        run.gave_up(w, std::string(what) + " of key " + std::to_string(op.key) + " after " +
                           std::to_string(b_.max_attempts) + " attempts");
      } else {
        if (!op.ok)
          run.fail("error-status", std::string(what) + " of key " + std::to_string(op.key) + " by " +
                                       describe(op.who) + " returned " + std::string(to_string(s)));
        run.op_done(w);
      }
    }
  }

  std::string still_held(SeedRun& run) override {
    std::string first;
    uint64_t n = 0;
    for (uint64_t k = 0; k < b_.keys; ++k)
      if (std::string s = store_->latch_state(run.backend(), k); !s.empty() && n++ == 0) first = std::move(s);
    if (n > 1) first += " (and " + std::to_string(n - 1) + " more key(s))";
    return first;
  }

 private:
  BuiltinOptions b_;
  std::unique_ptr<TupleStore> store_;
};

}  // namespace

namespace builtin_detail {

std::string tuples_dry_run(const ClusterConfig& c, const BuiltinOptions& b, uint32_t ops_per_worker) {
  SimBackend sim(c);
  const uint32_t workers = all_workers(c, static_cast<uint32_t>(c.total_workers()));
  std::unique_ptr<TupleStore> store;
  if (std::string e = TupleStore::create(sim, store_options(b, workers, ops_per_worker), &store); !e.empty())
    return e + " (the check's memory nodes have " + std::to_string(c.memory_node_bytes) + " bytes)";
  return {};
}

// Set-up is deterministic: a store created on a fresh simulator of the
// run's cluster lands where the run's own does.
std::pair<RemoteAddr, uint64_t> tuples_key_range(const ClusterConfig& c, const BuiltinOptions& b,
                                                 uint32_t ops_per_worker, uint64_t key) {
  if (key >= b.keys) return {};
  SimBackend sim(c);
  const uint32_t workers = all_workers(c, static_cast<uint32_t>(c.total_workers()));
  std::unique_ptr<TupleStore> store;
  if (!TupleStore::create(sim, store_options(b, workers, ops_per_worker), &store).empty()) return {};
  return store->key_range(key);
}

WorkloadFactory tuples_workload(const BuiltinOptions& b) {
  return [b] { return std::make_unique<TuplesWorkload>(b); };
}

}  // namespace builtin_detail
}  // namespace lw::check
