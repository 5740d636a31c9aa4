// Simulator speed (simulated verbs per wall-second on one core) and the cost of
// threads-backend verbs against the raw atomic operation on the same memory.
//
//   ./build/bench/sim_speed_bench
//
// Benchmarks, not tests: nothing here asserts a time.
#include <benchmark/benchmark.h>

#include <atomic>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/threads/threads_backend.h"

namespace lw {
namespace {

// 32 coroutines (4 threads x 8) each issue 8-byte READs, WRITEs, CASes and FAAs.
void BM_SimVerbs(benchmark::State& state, const char* profile) {
  uint64_t verbs = 0;
  for (auto _ : state) {
    ClusterConfig c;
    c.set_profile(profile);
    c.threads_per_node = 4;
    c.coroutines_per_thread = 8;
    SimBackend sim(c);
    RemoteAddr base = sim.allocate(0, 64 * 1024);
    sim.spawn_compute([base](Worker& w) -> Task<void> {
      const RemoteAddr mine = base + 64 * (w.placement().thread * 8 + w.placement().coroutine);
      uint64_t v = 0;
      for (int i = 0; i < 2500; ++i) {
        (void)co_await w.read(&v, mine, 8);
        (void)co_await w.write(mine, &v, 8);
        (void)co_await w.cas(mine, v, v + 1);
        (void)co_await w.faa(mine + 8, 1);
      }
    });
    verbs += sim.run().verbs;
  }
  state.counters["verbs_per_second"] =
      benchmark::Counter(static_cast<double>(verbs), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_SimVerbs, sequential, "sequential")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimVerbs, connectx, "connectx")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimVerbs, spec, "spec")->Unit(benchmark::kMillisecond);

struct ThreadsFixture {
  ThreadsFixture() : backend(config()), addr(backend.allocate(0, 64)), rng(1) {}
  static ClusterConfig config() {
    ClusterConfig c;
    c.backend = "threads";
    c.memory_node_bytes = 1 << 16;
    return c;
  }
  ThreadsBackend backend;
  RemoteAddr addr;
  Rng rng;
};

void BM_ThreadsRead8(benchmark::State& state) {
  ThreadsFixture f;
  uint64_t v = 0;
  WorkRequest wr{.opcode = Opcode::kRead, .length = 8, .remote = f.addr, .local = &v};
  for (auto _ : state) {
    f.backend.execute_now(wr, f.rng);
    benchmark::DoNotOptimize(v);
  }
}
void BM_ThreadsWrite8(benchmark::State& state) {
  ThreadsFixture f;
  uint64_t v = 5;
  WorkRequest wr{.opcode = Opcode::kWrite, .length = 8, .remote = f.addr, .local = &v};
  for (auto _ : state) f.backend.execute_now(wr, f.rng);
}
void BM_ThreadsCas8(benchmark::State& state) {
  ThreadsFixture f;
  WorkRequest wr{.opcode = Opcode::kCas, .length = 8, .remote = f.addr, .compare = 0, .operand = 0};
  for (auto _ : state) {
    f.backend.execute_now(wr, f.rng);
    benchmark::DoNotOptimize(wr.old_value);
  }
}
BENCHMARK(BM_ThreadsRead8);
BENCHMARK(BM_ThreadsWrite8);
BENCHMARK(BM_ThreadsCas8);

alignas(64) uint64_t raw_word = 0;
void BM_RawLoad8(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(std::atomic_ref<uint64_t>(raw_word).load(std::memory_order_acquire));
}
void BM_RawStore8(benchmark::State& state) {
  for (auto _ : state) {
    std::atomic_ref<uint64_t>(raw_word).store(5, std::memory_order_release);
    benchmark::ClobberMemory();
  }
}
void BM_RawCas8(benchmark::State& state) {
  for (auto _ : state) {
    uint64_t expected = 0;
    benchmark::DoNotOptimize(std::atomic_ref<uint64_t>(raw_word).compare_exchange_strong(expected, 0));
  }
}
BENCHMARK(BM_RawLoad8);
BENCHMARK(BM_RawStore8);
BENCHMARK(BM_RawCas8);

}  // namespace
}  // namespace lw

BENCHMARK_MAIN();
