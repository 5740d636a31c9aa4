#include "repro/jasny/torn_read.h"

#include <atomic>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "latchwork/backends.h"
#include "verbs/node_memory.h"

namespace lw {

std::string TornReadOptions::validate() const {
  if (!OptimisticLayout::valid_block_size(size) || size > (1u << 20))
    return "--size must be a multiple of 64 between 64 and 1048576, got " + std::to_string(size);
  if (ops == 0 || ops > (1ull << 32)) return "--ops must be between 1 and 2^32";
  if (readers == 0 || readers > 256) return "--readers must be between 1 and 256";
  if (slots == 0 || slots > 4096) return "--slots must be between 1 and 4096";
  return {};
}

std::string TornReadResult::to_json() const {
  char hash[24];
  std::snprintf(hash, sizeof hash, "0x%016llx", static_cast<unsigned long long>(trace_hash));
  nlohmann::json j = {{"experiment", "torn-read"},
                      {"scheme", scheme},
                      {"size", size},
                      {"reads", reads},
                      {"accepted", accepted},
                      {"torn", torn},
                      {"torn_detected", torn_detected},
                      {"torn_undetected", torn_undetected},
                      {"undetected_percent", undetected_percent()},
                      {"writes", writes},
                      {"backend", backend},
                      {"profile", profile},
                      {"seed", seed},
                      {"elapsed_ns", elapsed_ns},
                      {"trace_hash", hash},
                      {"wall_seconds", wall_seconds}};
  return j.dump();
}

namespace {
bool payload_uniform(const std::vector<std::byte>& payload) {
  const size_t words = payload.size() / 8;
  uint64_t first;
  std::memcpy(&first, payload.data(), 8);
  for (size_t i = 1; i < words; ++i) {
    uint64_t v;
    std::memcpy(&v, payload.data() + i * 8, 8);
    if (v != first) return false;
  }
  return true;
}
}  // namespace

namespace {
ClusterConfig torn_read_cluster(const ClusterConfig& base, const TornReadOptions& o) {
  ClusterConfig c = base;
  c.compute_nodes = 2;
  c.threads_per_node = 1;
  c.coroutines_per_thread = o.readers;
  c.memory_nodes = 1;
  c.memory_node_bytes = std::max<uint64_t>(c.memory_node_bytes,
                                           uint64_t{o.slots} * o.size + NodeMemory::kReservedBytes + 4096);
  return c;
}
}  // namespace

std::string TornReadOptions::validate(const ClusterConfig& base) const {
  if (std::string e = validate(); !e.empty()) return e;
  const ClusterConfig c = torn_read_cluster(base, *this);
  if (std::string e = c.validate(); !e.empty()) return e;
  // A versioning reader keeps three READs outstanding.
  return c.check_queue_depth(ClusterConfig::kMaxBatchWrs);
}

TornReadResult run_torn_read(const ClusterConfig& base, const TornReadOptions& o) {
  std::string err = o.validate(base);
  LW_CHECK_MSG(err.empty(), err);
  const ClusterConfig c = torn_read_cluster(base, o);
  std::unique_ptr<Backend> backend = make_backend(c, &err);
  LW_CHECK_MSG(backend, err);

  std::vector<OptimisticBlock> blocks;
  for (uint32_t s = 0; s < o.slots; ++s) {
    RemoteAddr a = backend->allocate(0, o.size, kCacheLine);
    LW_CHECK(!a.is_null());
    blocks.emplace_back(o.scheme, a, o.size);
  }
  const uint32_t payload_bytes = blocks[0].layout().payload_bytes();

  std::atomic<uint64_t> reads{0}, accepted{0}, torn{0}, detected{0}, undetected{0}, writes{0};
  std::atomic<uint32_t> readers_left{o.readers};

  backend->spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    std::vector<std::byte> payload(payload_bytes);
    for (uint64_t v = 1; readers_left.load(std::memory_order_acquire) > 0; ++v) {
      for (size_t i = 0; i + 8 <= payload.size(); i += 8) std::memcpy(payload.data() + i, &v, 8);
      Status s = co_await blocks[v % o.slots].write_single_writer(w, v, payload);
      LW_CHECK_MSG(ok(s), "torn-read writer failed: " + std::string(to_string(s)));
      writes.fetch_add(1, std::memory_order_relaxed);
    }
  });
  for (uint32_t r = 0; r < o.readers; ++r) {
    const uint64_t my_ops = o.ops / o.readers + (r < o.ops % o.readers ? 1 : 0);
    backend->spawn({Placement::Kind::kCompute, 1, 0, r}, [&, my_ops](Worker& w) -> Task<void> {
      std::vector<std::byte> payload(payload_bytes), image(o.size);
      for (uint64_t i = 0; i < my_ops; ++i) {
        const OptimisticBlock& b = blocks[w.rng().below(o.slots)];
        OptimisticBlock::Attempt a = co_await b.try_read(w, payload, image);
        LW_CHECK_MSG(ok(a.status), "torn-read reader failed: " + std::string(to_string(a.status)));
        const bool is_torn = !payload_uniform(payload);
        reads.fetch_add(1, std::memory_order_relaxed);
        if (a.valid) accepted.fetch_add(1, std::memory_order_relaxed);
        if (is_torn) {
          torn.fetch_add(1, std::memory_order_relaxed);
          (a.valid ? undetected : detected).fetch_add(1, std::memory_order_relaxed);
        }
      }
      readers_left.fetch_sub(1, std::memory_order_release);
    });
  }
  RunStats stats = backend->run();
  require_within_budget(stats);

  TornReadResult res;
  res.scheme = to_string(o.scheme);
  res.size = o.size;
  res.reads = reads;
  res.accepted = accepted;
  res.torn = torn;
  res.torn_detected = detected;
  res.torn_undetected = undetected;
  res.writes = writes;
  res.elapsed_ns = stats.elapsed_ns;
  res.trace_hash = stats.trace_hash;
  res.wall_seconds = stats.wall_seconds;
  res.backend = c.backend;
  res.profile = c.backend == "sim" ? c.semantics_profile
                                   : (c.threads.adversarial ? "adversarial" : "hardware");
  res.seed = c.seed;
  return res;
}

}  // namespace lw
