#include "latchwork/check/builtin.h"

#include <cstring>
#include <map>
#include <set>

#include "latchwork/backends.h"
#include "latchwork/sim/relaxation_log.h"
#include "latchwork/sim/sim_backend.h"
#include "builtin_internal.h"

namespace lw {
namespace {

using check_detail::check_cluster;
using check_detail::explain;
using check_detail::Range;

Range as_range(const std::pair<RemoteAddr, uint64_t>& r) { return {r.first, r.second}; }
using check_detail::worker_index;

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


}  // namespace

std::string CheckOptions::validate() const {
  if (structure == "btree") {
    bool known = false;
    for (const std::string& s : btree_check_scheme_names()) known = known || s == scheme;
    if (!known) return "the btree structure takes the schemes btree-optimistic and btree-pessimistic";
    if (keys == 0 || keys > 100000) return "keys must be in [1, 100000]";
    if (ops_per_worker == 0 || ops_per_worker > 100000) return "ops per worker must be in [1, 100000]";
    if (read_percent > 100) return "read percent must be in [0, 100]";
    return max_attempts == 0 ? "max attempts must be positive" : "";
  }
  if (structure != "tuples") return "structure must be tuples or btree";
  TupleStoreOptions t;
  if (std::string e = parse_tuple_scheme(scheme, &t); !e.empty()) return e;
  t.tuple_bytes = tuple_bytes;
  t.tuples = keys;
  t.writers = 1;
  t.records_per_writer = 1;
  if (std::string e = t.validate(); !e.empty()) return e;
  if (keys == 0 || keys > 4096) return "keys must be in [1, 4096]";
  if (ops_per_worker == 0 || ops_per_worker > 100000) return "ops per worker must be in [1, 100000]";
  if (read_percent > 100) return "read percent must be in [0, 100]";
  if (max_attempts == 0) return "max attempts must be positive";
  return {};
}

std::string CheckOptions::validate(const ClusterConfig& base) const {
  if (std::string e = validate(); !e.empty()) return e;
  // The seeds' windows vary; seed 0's cluster has the shape of every seed's.
  ClusterConfig c = check_cluster(base, 0);
  if (structure != "btree") tuple_scheme_prepare_cluster(scheme, &c);
  if (std::string e = c.validate(); !e.empty()) return e;
  if (std::string e = c.check_queue_depth(ClusterConfig::kMaxBatchWrs); !e.empty()) return e;
  if (structure == "btree") return check_detail::btree_dry_run(c, *this);
  // The store must fit in the cluster's memory: set it up once.
  std::string err;
  std::unique_ptr<Backend> backend = make_backend(c, &err);
  if (!backend) return err;
  TupleStoreOptions t;
  parse_tuple_scheme(scheme, &t);
  t.tuple_bytes = tuple_bytes;
  t.tuples = keys;
  t.writers = static_cast<uint32_t>(c.total_workers());
  t.records_per_writer = ops_per_worker;
  std::unique_ptr<TupleStore> store;
  if (std::string e = TupleStore::create(*backend, t, &store); !e.empty())
    return e + " (the check's memory nodes have " + std::to_string(c.memory_node_bytes) + " bytes)";
  return {};
}

CheckSeedResult run_check_seed(const ClusterConfig& base, const CheckOptions& o, uint64_t seed) {
  LW_CHECK_MSG(o.validate().empty(), o.validate());
  if (o.structure == "btree") return run_btree_check_seed(base, o, seed);
  ClusterConfig c = check_cluster(base, seed);
  tuple_scheme_prepare_cluster(o.scheme, &c);
  std::string err;
  std::unique_ptr<Backend> backend = make_backend(c, &err);
  LW_CHECK_MSG(backend, err);
  RelaxationLog log;
  if (auto* sim = dynamic_cast<SimBackend*>(backend.get())) sim->set_relaxation_log(&log);

  const uint32_t workers = static_cast<uint32_t>(c.total_compute_threads() * c.coroutines_per_thread);
  TupleStoreOptions t;
  parse_tuple_scheme(o.scheme, &t);
  t.tuple_bytes = o.tuple_bytes;
  t.tuples = o.keys;
  t.writers = workers;
  t.records_per_writer = o.ops_per_worker;
  std::unique_ptr<TupleStore> store;
  err = TupleStore::create(*backend, t, &store);
  LW_CHECK_MSG(err.empty(), err);

  History history;
  uint64_t gave_up = 0;
  std::vector<HistoryOp> stuck;  // operations that exhausted their retries
  RetryPolicy policy;
  policy.max_attempts = o.max_attempts;
  backend->spawn_compute([&](Worker& w) -> Task<void> {
    const uint32_t me = worker_index(c, w.placement());
    std::vector<std::byte> payload(store->payload_bytes());
    for (uint32_t i = 0; i < o.ops_per_worker; ++i) {
      HistoryOp op;
      op.key = w.rng().below(o.keys);
      op.who = w.placement();
      op.start = w.now();
      if (w.rng().below(100) < o.read_percent) {
        op.kind = HistoryOp::Kind::kRead;
        Status s = co_await store->read(w, op.key, payload, policy);
        op.end = w.now();
        op.ok = ok(s);
        if (op.ok) op.whole = whole(payload, &op.value);
      } else {
        op.kind = HistoryOp::Kind::kWrite;
        op.value = (uint64_t{me} + 1) << 32 | (i + 1);  // unique per write
        fill(payload, op.value);
        HoldTimes hold;
        Status s = co_await store->write(w, op.key, payload, me, &hold, policy);
        op.end = w.now();
        op.ok = ok(s);
        if (op.ok && hold.released >= hold.acquired && hold.acquired > 0)
          history.hold({op.key, hold.acquired, hold.released, op.who});
      }
      if (!op.ok) {
        ++gave_up;
        stuck.push_back(op);
      }
      history.record(op);
    }
  });
  RunStats stats = backend->run();
  require_within_budget(stats);

  CheckSeedResult r = check_detail::judge_history(
      seed, history, gave_up, stats.trace_hash, log,
      [&](uint64_t key) { return as_range(store->key_range(key)); });
  if (!stuck.empty()) {
    // A latch that is never released makes every later operation on its key
    // give up: report the first, explained by what happened before it.
    const HistoryOp& first = stuck.front();
    CheckFinding f;
    f.kind = "stuck_latch";
    f.detail = std::to_string(stuck.size()) + " operation(s) gave up after " +
               std::to_string(o.max_attempts) + " attempts; the first, a " +
               (first.kind == HistoryOp::Kind::kRead ? "read" : "write") + " of key " +
               std::to_string(first.key) + " by " + describe(first.who) + " during [" +
               std::to_string(first.start) + ", " + std::to_string(first.end) +
               "] ns, never saw the latch free";
    explain(log, first.who, 0, first.end, true, as_range(store->key_range(first.key)), &f);
    if (f.causes.empty())
      f.causes.push_back("no relaxation acted: the protocol itself never frees the latch (e.g. an "
                         "unlatch WRITE erasing a reader's count, whose FAA(-2) then underflows)");
    r.findings.push_back(std::move(f));
  }
  return r;
}

}  // namespace lw
