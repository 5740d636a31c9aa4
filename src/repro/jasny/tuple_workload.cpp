#include "repro/jasny/tuple_workload.h"

#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/base/zipf.h"
#include "latchwork/structures/jasny/tuple_store.h"
#include "window_tally.h"

namespace lw {
namespace {

constexpr const char* kUnsynchronized = "unsynchronized";

}  // namespace

std::string TupleWorkloadOptions::validate() const {
  if (scheme != kUnsynchronized) {
    TupleStoreOptions t;
    if (std::string e = parse_tuple_scheme(scheme, &t); !e.empty()) return e;
    if (t.scheme == TupleScheme::kOutOfPlace)
      return "out-of-place needs record reclamation for timed runs; use latchwork check for it";
    t.tuple_bytes = tuple_bytes;
    t.tuples = tuples;
    if (std::string e = t.validate(); !e.empty()) return e;
  } else if (tuple_bytes < 64 || tuple_bytes > (16u << 10) || tuple_bytes % 64 != 0) {
    return "tuple size must be a multiple of 64 in [64, 16384]";
  }
  if (read_percent > 100) return "read percent must be in [0, 100]";
  if (std::string e = ZipfKeys::validate(tuples, zipf); !e.empty()) return e;
  if (measure_ns == 0) return "measurement window must be positive";
  return {};
}

std::string TupleWorkloadResult::to_json() const {
  return nlohmann::json{{"workers", workers}, {"ops", ops},       {"gave_up", gave_up},
                        {"mops", mops},       {"mean_latency_us", mean_latency_us},
                        {"verbs", verbs},     {"wall_seconds", wall_seconds}}
      .dump();
}

TupleWorkloadResult run_tuple_workload(const ClusterConfig& base, const TupleWorkloadOptions& o) {
  LW_CHECK_MSG(o.validate().empty(), o.validate());
  ClusterConfig c = base;
  tuple_scheme_prepare_cluster(o.scheme, &c);
  std::string err;
  std::unique_ptr<Backend> backend = make_backend(c, &err);
  LW_CHECK_MSG(backend, err);
  const bool bare = o.scheme == kUnsynchronized;
  std::unique_ptr<TupleStore> store;
  RemoteAddr bare_region;
  uint32_t payload = o.tuple_bytes;
  if (bare) {
    bare_region = backend->allocate(0, o.tuples * o.tuple_bytes, 4096);
    LW_CHECK_MSG(!bare_region.is_null(), "no room for the tuples");
  } else {
    TupleStoreOptions t;
    parse_tuple_scheme(o.scheme, &t);
    if (t.scheme == TupleScheme::kPessimistic && t.optimization != LatchOptimization::kWriteUnlatch)
      t.layout = o.layout;
    t.tuple_bytes = o.tuple_bytes;
    t.tuples = o.tuples;
    err = TupleStore::create(*backend, t, &store);
    LW_CHECK_MSG(err.empty(), err);
    payload = store->payload_bytes();
  }
  const std::shared_ptr<const ZipfKeys> zipf = ZipfKeys::shared(o.tuples, o.zipf);
  const ZipfKeys& keys = *zipf;
  WindowTotals totals;
  RetryPolicy policy;
  policy.max_attempts = 1u << 16;
  backend->spawn_compute([&](Worker& w) -> Task<void> {
    std::vector<std::byte> buf(payload, std::byte{0x5a});
    WindowTally tally;
    tally.begin = w.now() + o.warmup_ns;
    tally.end = tally.begin + o.measure_ns;
    for (uint64_t i = 0; i < o.max_ops_per_worker; ++i) {
      w.compute(CpuWork::kOpIssue, 1);  // draw the key, time the operation
      const Nanos t0 = w.now();
      if (t0 >= tally.end) break;
      const uint64_t key = keys.sample(w.rng());
      const bool read = w.rng().below(100) < o.read_percent;
      Status s;
      if (bare) {
        const RemoteAddr at = bare_region + key * o.tuple_bytes;
        s = co_await w.read(buf.data(), at, o.tuple_bytes);
        if (ok(s) && !read) s = co_await w.write(at, buf.data(), o.tuple_bytes);
      } else if (read) {
        s = co_await store->read(w, key, buf, policy);
      } else {
        s = co_await store->write(w, key, buf, 0, nullptr, policy);
      }
      tally.note(s, t0, w.now(), "tuple workload");
    }
    totals.add(tally);
  });
  const RunStats stats = backend->run();
  require_within_budget(stats);
  TupleWorkloadResult r;
  r.workers = c.total_compute_threads() * c.coroutines_per_thread;
  r.ops = totals.ops;
  r.gave_up = totals.gave_up;
  r.mops = totals.mops(o.measure_ns);
  r.mean_latency_us = totals.mean_latency_us();
  r.verbs = stats.verbs;
  r.wall_seconds = stats.wall_seconds;
  return r;
}

}  // namespace lw
