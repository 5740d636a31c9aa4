// The cost of one threads-backend verb (ThreadsBackend::execute_now, one
// thread, hot line) against the seqlock baseline (seqlock_baseline.h) and raw
// access (memcpy or a CPU CAS behind the same kind of call, no bounds check,
// no line atomicity). The three are interleaved, best of several samples.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "latchwork/threads/threads_backend.h"
#include "seqlock_baseline.h"
#include "sections.h"

namespace lw::bench {
namespace {

alignas(64) std::byte raw_memory[1024];

[[gnu::noinline]] void raw_read(uint64_t off, uint64_t len, std::byte* dst) {
  std::memcpy(dst, raw_memory + off, len);
}
[[gnu::noinline]] void raw_write(uint64_t off, uint64_t len, const std::byte* src) {
  std::memcpy(raw_memory + off, src, len);
}
[[gnu::noinline]] uint64_t raw_cas(uint64_t off, uint64_t expected, uint64_t desired) {
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(raw_memory + off))
      .compare_exchange_strong(expected, desired);
  return expected;
}

struct Costs {
  double threads = 1e30, seqlock = 1e30, raw = 1e30;
};

// Samples of about 0.3 ms each, so that most escape preemption on a busy
// machine; the best of many samples is the cost.
template <typename F>
uint64_t ops_per_sample(F& f) {
  constexpr uint64_t kProbe = 2000;
  const double ns = sample_ns(kProbe, f);
  return std::clamp<uint64_t>(static_cast<uint64_t>(300'000 / std::max(ns, 0.1)), kProbe, 1'000'000);
}

template <typename T, typename S, typename R>
Costs measure(const Options& o, T&& t, S&& s, R&& r) {
  const int samples = o.quick ? 5 : 30 + 10 * o.repeats;
  const uint64_t ot = ops_per_sample(t), os = ops_per_sample(s), orw = ops_per_sample(r);
  Costs c;
  for (int i = 0; i < samples; ++i) {  // interleaved: the three see the same load
    c.threads = std::min(c.threads, sample_ns(ot, t));
    c.seqlock = std::min(c.seqlock, sample_ns(os, s));
    c.raw = std::min(c.raw, sample_ns(orw, r));
  }
  return c;
}

void add_row(Report& rep, const char* verb, uint32_t bytes, const Costs& c) {
  Row& row = rep.add("threads backend: one verb, 1 thread (vs seqlock baseline and raw access)",
                     format("%s %u B", verb, bytes), c.threads, "ns/verb");
  row.detail = format("seqlock %.1f ns (%.2fx), raw %.1f ns (%.2fx)", c.seqlock,
                      c.threads / c.seqlock, c.raw, c.threads / c.raw);
  row.fields = {{"bytes", bytes},       {"threads_ns", c.threads},
                {"seqlock_ns", c.seqlock}, {"raw_ns", c.raw},
                {"ratio_to_seqlock", c.threads / c.seqlock}, {"ratio_to_raw", c.threads / c.raw}};
}

}  // namespace

void threads_cost(const Options& o, Report& rep) {
  ClusterConfig cfg;
  cfg.backend = "threads";
  cfg.memory_node_bytes = 1 << 16;
  ThreadsBackend backend(cfg);
  const RemoteAddr addr = backend.allocate(0, 256);
  Rng rng(1);
  SeqlockBaseline base(1 << 16);
  const uint64_t base_off = 4096;
  alignas(64) std::byte buf[256] = {};

  for (uint32_t bytes : {8u, 64u, 256u}) {
    WorkRequest rd{.opcode = Opcode::kRead, .length = bytes, .remote = addr, .local = buf};
    Costs c = measure(
        o,
        [&] {
          backend.execute_now(rd, rng);
          benchmark::DoNotOptimize(buf);
        },
        [&] {
          base.read(base_off, bytes, buf);
          benchmark::DoNotOptimize(buf);
        },
        [&] {
          raw_read(0, bytes, buf);
          benchmark::DoNotOptimize(buf);
        });
    add_row(rep, "READ", bytes, c);
  }
  for (uint32_t bytes : {8u, 64u, 256u}) {
    WorkRequest wr{.opcode = Opcode::kWrite, .length = bytes, .remote = addr, .local = buf};
    Costs c = measure(
        o, [&] { backend.execute_now(wr, rng); }, [&] { base.write(base_off, bytes, buf); },
        [&] { raw_write(0, bytes, buf); });
    add_row(rep, "WRITE", bytes, c);
  }
  WorkRequest cas{.opcode = Opcode::kCas, .length = 8, .remote = addr, .compare = 0, .operand = 0};
  uint64_t old = 0;
  Costs c = measure(
      o,
      [&] {
        backend.execute_now(cas, rng);
        benchmark::DoNotOptimize(cas.old_value);
      },
      [&] {
        base.cas(base_off, 0, 0, &old);
        benchmark::DoNotOptimize(old);
      },
      [&] { benchmark::DoNotOptimize(raw_cas(0, 0, 0)); });
  add_row(rep, "CAS", 8, c);
}

}  // namespace lw::bench
