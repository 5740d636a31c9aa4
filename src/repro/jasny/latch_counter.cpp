#include "repro/jasny/latch_counter.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/sim/timeline.h"
#include "latchwork/sync/exclusive_latch.h"

namespace lw {
namespace {

constexpr uint32_t kRecordBytes = 256;
constexpr uint64_t kOffA = 64, kOffB = 192;

struct Counters {
  std::mutex mu;      // the threads backend's workers are OS threads
  std::string error;  // the first operation that failed (a latch that gave up, a full queue)
  std::atomic<uint64_t> increments{0}, reads{0}, torn{0};
  std::atomic<uint64_t> tally_adds{0};  // bookkeeping verbs, not counted per operation
  RemoteAddr tally;  // shared by all processes: each worker adds its increments
};

// Records the first failed status: the worker stops, and the run reports it
// (exit 1) instead of aborting.
bool failed(Counters& n, Status s, const char* what) {
  if (ok(s)) return false;
  std::lock_guard<std::mutex> g(n.mu);
  if (n.error.empty()) n.error = std::string(what) + " failed with status " + std::string(to_string(s));
  return true;
}

// Adds a worker's increments to the tally once it is done.
Task<void> add_to_tally(Worker& w, Counters& n, uint64_t mine) {
  if (mine == 0) co_return;
  n.tally_adds.fetch_add(1, std::memory_order_relaxed);
  Result<uint64_t> r = co_await w.faa(n.tally, mine);
  (void)failed(n, r.status, "adding to the latch counter's tally");
}

uint64_t word_at(const std::vector<std::byte>& v, size_t at) {
  uint64_t x;
  std::memcpy(&x, v.data() + at, 8);
  return x;
}

// Pessimistic: latch, READ lines 1..3, bump A and B, WRITE, unlatch.
Task<void> pessimistic_worker(Worker& w, const LatchCounterOptions& o,
                              const std::vector<RemoteAddr>& records, Counters& n) {
  std::vector<std::byte> buf(kRecordBytes - kOffA);
  uint64_t mine = 0;
  for (uint32_t i = 0; i < o.ops_per_worker; ++i) {
    const RemoteAddr rec = records[w.rng().below(records.size())];
    const RemoteAddr data = rec + kOffA;
    const bool read_only = w.rng().below(100) < o.read_percent;
    RemotePtr<RwLatch::Word> word(rec);
    if (o.kind == LatchKind::kReaderWriter && read_only) {
      RwLatch latch(word);
      if (failed(n, co_await latch.lock_shared(w), "taking the latch shared")) break;
      if (failed(n, co_await w.read(buf.data(), data, buf.size()), "reading the counter")) break;
      if (failed(n, co_await latch.unlock_shared(w), "releasing the shared latch")) break;
    } else {
      ExclusiveLatch ex(word.cast<ExclusiveLatch::Word>());
      RwLatch rw(word);
      const Status locked = o.kind == LatchKind::kExclusive ? co_await ex.lock(w) : co_await rw.lock(w);
      if (failed(n, locked, "taking the latch")) break;
      if (failed(n, co_await w.read(buf.data(), data, buf.size()), "reading the counter")) break;
      if (!read_only) {
        uint64_t a = word_at(buf, 0) + 1, b = word_at(buf, kOffB - kOffA) + 1;
        std::memcpy(buf.data(), &a, 8);
        std::memcpy(buf.data() + (kOffB - kOffA), &b, 8);
        if (failed(n, co_await w.write(data, buf.data(), buf.size()), "writing the counter")) break;
      }
      const Status unlocked = o.kind == LatchKind::kExclusive ? co_await ex.unlock(w) : co_await rw.unlock(w);
      if (failed(n, unlocked, "releasing the latch")) break;
    }
    if (read_only) {
      n.reads.fetch_add(1, std::memory_order_relaxed);
      if (word_at(buf, 0) != word_at(buf, kOffB - kOffA)) n.torn.fetch_add(1, std::memory_order_relaxed);
    } else {
      n.increments.fetch_add(1, std::memory_order_relaxed);
      ++mine;
    }
  }
  co_await add_to_tally(w, n, mine);
}

Task<void> optimistic_worker(Worker& w, const LatchCounterOptions& o,
                             const std::vector<OptimisticBlock>& blocks, Counters& n) {
  const uint32_t payload_bytes = blocks[0].layout().payload_bytes();
  const size_t last = payload_bytes - 8;
  std::vector<std::byte> payload(payload_bytes), image(kRecordBytes);
  uint64_t mine = 0;
  for (uint32_t i = 0; i < o.ops_per_worker; ++i) {
    const OptimisticBlock& b = blocks[w.rng().below(blocks.size())];
    if (w.rng().below(100) < o.read_percent) {
      if (failed(n, co_await b.read(w, payload), "an optimistic read")) break;
      n.reads.fetch_add(1, std::memory_order_relaxed);
      if (word_at(payload, 0) != word_at(payload, last)) n.torn.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const Status updated = co_await b.update(w, [last](std::span<std::byte> p) {
      uint64_t a, z;
      std::memcpy(&a, p.data(), 8);
      std::memcpy(&z, p.data() + last, 8);
      ++a;
      ++z;
      std::memcpy(p.data(), &a, 8);
      std::memcpy(p.data() + last, &z, 8);
    });
    if (failed(n, updated, "an optimistic update")) break;
    n.increments.fetch_add(1, std::memory_order_relaxed);
    ++mine;
  }
  co_await add_to_tally(w, n, mine);
}

}  // namespace

const char* to_string(LatchKind k) {
  switch (k) {
    case LatchKind::kExclusive: return "exclusive";
    case LatchKind::kReaderWriter: return "rw";
    case LatchKind::kOptimistic: return "optimistic";
  }
  return "?";
}

bool parse_latch_kind(std::string_view name, LatchKind* out) {
  for (auto k : {LatchKind::kExclusive, LatchKind::kReaderWriter, LatchKind::kOptimistic})
    if (name == to_string(k)) {
      *out = k;
      return true;
    }
  return false;
}

std::string LatchCounterResult::to_json() const {
  nlohmann::json j = {{"experiment", "latch-counter"}, {"latch", latch},
                      {"workers", workers}, {"increments", increments},
                      {"counted", counted}, {"reads", reads},
                      {"torn_reads", torn_reads}, {"exact", exact()},
                      {"processes", processes}, {"tally", tally}, {"error", error},
                      {"verbs", verbs}, {"verbs_per_op", verbs_per_op()},
                      {"elapsed_ns", elapsed_ns}, {"ops_per_second", ops_per_second()},
                      {"wall_seconds", wall_seconds}};
  char hash[32];
  std::snprintf(hash, sizeof hash, "0x%016llx", static_cast<unsigned long long>(trace_hash));
  j["trace_hash"] = hash;
  return j.dump();
}

std::string validate_latch_counter(const ClusterConfig& cluster, const LatchCounterOptions& o) {
  if (std::string e = cluster.validate(); !e.empty()) return e;
  if (o.counters == 0 || o.counters > LatchCounterOptions::kMaxCounters)
    return "counters must be in [1, " + std::to_string(LatchCounterOptions::kMaxCounters) + "], got " +
           std::to_string(o.counters);
  if (o.read_percent > 100) return "read percent must be in [0, 100]";
  if (o.processes == 0) return "processes must be at least 1";
  if (o.processes > 1 && o.shared_name.empty()) return "several processes need a shared name";
  // Latches and optimistic blocks keep up to kMaxBatchWrs verbs outstanding per coroutine.
  if (std::string e = cluster.check_queue_depth(ClusterConfig::kMaxBatchWrs); !e.empty()) return e;
  // The records, spread over the memory nodes, and the tally must fit.
  const uint64_t per_node = (uint64_t{o.counters} + cluster.memory_nodes - 1) / cluster.memory_nodes;
  const uint64_t need = per_node * kRecordBytes + kCacheLine + LatchCounterOptions::kNodeOverheadBytes;
  if (need > cluster.memory_node_bytes)
    return std::to_string(o.counters) + " counters of " + std::to_string(kRecordBytes) + " bytes need " +
           std::to_string(need) + " bytes per memory node but memory_node_bytes is " +
           std::to_string(cluster.memory_node_bytes) + " (lower --counters or add memory)";
  return {};
}

LatchCounterResult run_latch_counter(const ClusterConfig& cluster, const LatchCounterOptions& o) {
  LatchCounterResult r;
  r.processes = o.processes;
  r.latch = to_string(o.kind);
  if (std::string e = validate_latch_counter(cluster, o); !e.empty()) {
    r.error = e;
    return r;
  }
  std::string err;
  std::unique_ptr<Backend> backend = make_backend(cluster, &err);
  if (!backend) {
    r.error = err;
    return r;
  }
  if (o.timeline) o.timeline->attach(*backend);
  // One process: private records. Several: records every process finds by name.
  auto place = [&](NodeId node, const std::string& what, uint64_t bytes) {
    if (o.shared_name.empty()) return backend->allocate(node, bytes);
    return backend->allocate_shared(node, o.shared_name + "/" + what, bytes);
  };
  std::vector<RemoteAddr> records;
  std::vector<OptimisticBlock> blocks;
  for (uint32_t i = 0; i < o.counters; ++i) {
    // Spread records over memory nodes.
    RemoteAddr a = place(static_cast<NodeId>(i % cluster.memory_nodes), "record" + std::to_string(i), kRecordBytes);
    if (a.is_null()) {
      r.error = "no memory for counter record " + std::to_string(i);
      return r;
    }
    records.push_back(a);
    blocks.emplace_back(o.scheme, a, kRecordBytes);
  }
  Counters n;
  n.tally = place(0, "tally", kCacheLine);
  if (n.tally.is_null()) {
    r.error = "no memory for the tally";
    return r;
  }
  if (std::string e = backend->barrier(o.shared_name + "/start", o.processes, o.barrier_timeout_ms); !e.empty()) {
    r.error = e;
    return r;
  }
  backend->spawn_compute([&](Worker& w) -> Task<void> {
    if (o.kind == LatchKind::kOptimistic) return optimistic_worker(w, o, blocks, n);
    return pessimistic_worker(w, o, records, n);
  });
  RunStats stats = backend->run();
  require_within_budget(stats);
  if (std::string e = backend->barrier(o.shared_name + "/end", o.processes, o.barrier_timeout_ms); !e.empty()) {
    r.error = e;
    return r;
  }
  r.tally = backend->host_load(n.tally);

  r.latch = to_string(o.kind);
  if (o.kind == LatchKind::kOptimistic) r.latch += std::string("/") + to_string(o.scheme);
  r.workers = cluster.total_compute_threads() * cluster.coroutines_per_thread;
  r.increments = n.increments;
  r.reads = n.reads;
  r.torn_reads = n.torn;
  for (uint32_t i = 0; i < o.counters; ++i) {
    std::vector<std::byte> rec(kRecordBytes);
    backend->host_read(records[i], rec.data(), kRecordBytes);
    uint64_t a, b;
    if (o.kind == LatchKind::kOptimistic) {
      std::vector<std::byte> payload(blocks[i].layout().payload_bytes());
      blocks[i].layout().extract(rec, payload);
      a = word_at(payload, 0);
      b = word_at(payload, payload.size() - 8);
    } else {
      a = word_at(rec, kOffA);
      b = word_at(rec, kOffB);
    }
    r.counted += a;
    if (a != b) ++r.b_mismatches;
  }
  if (!n.error.empty()) r.error = n.error;
  r.verbs = stats.verbs - n.tally_adds.load();
  r.elapsed_ns = stats.elapsed_ns;
  r.trace_hash = stats.trace_hash;
  r.wall_seconds = stats.wall_seconds;
  return r;
}

}  // namespace lw
