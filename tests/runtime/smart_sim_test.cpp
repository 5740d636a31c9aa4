// The SMART runtime on the simulator: the credit bound observed in the
// simulator's own record of every work request, the epoch's choice of C_max,
// and each technique moving throughput the way the paper says on the
// calibrated NIC model (SMART Fig. 13b, §4.3).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "latchwork/base/zipf.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/sim/sim_backend.h"
#include "latchwork/sim/verb_trace.h"

namespace lw {
namespace {

// READ batches of `batch` 8-byte words from a private region per worker
// until `end_ns`; counts the completed requests.
struct ReadLoad {
  uint32_t batch = 1;
  Nanos end_ns = 0;
  uint64_t* completed = nullptr;  // requests posted from warm_ns and completed by end_ns
  Nanos warm_ns = 0;
};

Task<void> read_loop(smart::Context& ctx, RemoteAddr base, ReadLoad load) {
  Worker& w = ctx.worker();
  std::vector<uint64_t> buf(load.batch);
  for (int i = 0; i < 1'000'000 && w.now() < load.end_ns; ++i) {
    Batch b;
    for (uint32_t k = 0; k < load.batch; ++k) b.read(&buf[k], base + 64 * k, 8);
    const Nanos start = w.now();
    EXPECT_EQ(co_await ctx.execute(b), Status::kOk);
    if (start >= load.warm_ns && w.now() <= load.end_ns) *load.completed += load.batch;
  }
}

struct ReadRun {
  uint64_t completed = 0;
  std::vector<smart::ThreadSummary> summaries;
  std::map<std::string, double> counters;
};

ReadRun run_reads(const ClusterConfig& c, uint32_t batch, Nanos end_ns, VerbTrace* trace = nullptr,
                  Nanos warm_ns = 0) {
  SimBackend sim(c);
  if (trace) sim.set_verb_trace(trace);
  smart::Runtime rt(sim.config());
  const uint64_t per_worker = 64 * 16;
  const RemoteAddr base = sim.allocate(0, per_worker * c.total_workers(), 4096);
  ReadRun r;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    const Placement& p = w.placement();
    const uint64_t index = (uint64_t{p.node} * c.threads_per_node + p.thread) * c.coroutines_per_thread + p.coroutine;
    smart::Context ctx(rt, w);
    co_await read_loop(ctx, base + index * per_worker, ReadLoad{batch, end_ns, &r.completed, warm_ns});
  });
  const RunStats s = sim.run();
  EXPECT_TRUE(s.stalled.empty()) << s.stalled;
  r.summaries = rt.summaries();
  r.counters = s.counters;
  return r;
}

// The most requests of one thread in flight at once, from the simulator's
// record (posted .. completed of each request).
std::map<uint32_t, uint32_t> max_in_flight_per_thread(const VerbTrace& t) {
  std::map<uint32_t, std::vector<std::pair<Nanos, int>>> events;
  for (const VerbRecord& r : t.records()) {
    EXPECT_NE(r.completed, VerbRecord::kNever);
    events[r.who.thread].push_back({r.posted, +1});
    events[r.who.thread].push_back({r.completed, -1});
  }
  std::map<uint32_t, uint32_t> out;
  for (auto& [thread, ev] : events) {
    std::sort(ev.begin(), ev.end());  // at equal times completions (-1) first
    int cur = 0, best = 0;
    for (const auto& [t, d] : ev) best = std::max(best, cur += d);
    out[thread] = static_cast<uint32_t>(best);
  }
  return out;
}

ClusterConfig small_cluster(uint32_t threads, uint32_t coroutines) {
  ClusterConfig c;
  c.threads_per_node = threads;
  c.coroutines_per_thread = coroutines;
  c.queue_depth = 1024;
  c.memory_node_bytes = 64ull << 20;
  c.seed = 5;
  return c;
}

TEST(SmartThrottleSim, NeverMoreThanCMaxRequestsInFlightPerThread) {
  ClusterConfig c = small_cluster(2, 8);
  c.smart.throttling = true;
  c.smart.candidate_credits = {6};
  VerbTrace trace(1 << 20);
  const ReadRun on = run_reads(c, 2, 400'000, &trace);
  ASSERT_EQ(trace.dropped(), 0u);
  ASSERT_GT(trace.records().size(), 1000u);
  for (const auto& [thread, most] : max_in_flight_per_thread(trace)) {
    EXPECT_LE(most, 6u) << "thread " << thread;
    EXPECT_GE(most, 5u) << "thread " << thread;  // the credits are used
  }
  for (const smart::ThreadSummary& s : on.summaries) {
    EXPECT_LE(s.max_in_flight, 6u);
    EXPECT_GT(s.credit_waits, 0u);
    EXPECT_EQ(s.credits_limit, 6u);
  }
  // The same load unthrottled has 16 in flight per thread.
  c.smart.throttling = false;
  VerbTrace off_trace(1 << 20);
  run_reads(c, 2, 400'000, &off_trace);
  for (const auto& [thread, most] : max_in_flight_per_thread(off_trace)) EXPECT_EQ(most, 16u);
}

TEST(SmartThrottleSim, BatchLargerThanCMaxPostsAlone) {
  ClusterConfig c = small_cluster(1, 4);
  c.smart.throttling = true;
  c.smart.candidate_credits = {4};
  VerbTrace trace(1 << 20);
  run_reads(c, 6, 50'000, &trace);
  for (const auto& [thread, most] : max_in_flight_per_thread(trace)) EXPECT_EQ(most, 6u);
}

// Context::execute_all under the throttle. Four coroutines each await 2 x 2 READs with C_max = 6: a round takes what
// is free, so a second coroutine's first batch joins the first's two (6 in
// flight), its second batch waits for a round of its own, and nobody
// deadlocks holding a part of the credits. Every READ gets its data.
TEST(SmartThrottleSim, ExecuteAllTakesCreditsInRoundsWithinCmax) {
  ClusterConfig c = small_cluster(1, 4);
  c.memory_nodes = 2;
  c.smart.throttling = true;
  c.smart.candidate_credits = {6};
  SimBackend sim(c);
  VerbTrace trace(1 << 16);
  sim.set_verb_trace(&trace);
  smart::Runtime rt(sim.config());
  const RemoteAddr a0 = sim.allocate(0, 4096), a1 = sim.allocate(1, 4096);
  for (uint64_t i = 0; i < 4; ++i) {
    sim.host_store(a0 + 8 * i, 100 + i);
    sim.host_store(a1 + 8 * i, 200 + i);
  }
  uint64_t awaits = 0;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    for (int round = 0; round < 25; ++round) {
      uint64_t v[4] = {};
      Batch b0, b1;
      b0.read(&v[0], a0, 8);
      b0.read(&v[1], a0 + 8, 8);
      b1.read(&v[2], a1, 8);
      b1.read(&v[3], a1 + 8, 8);
      Batch* both[] = {&b0, &b1};
      EXPECT_EQ(co_await ctx.execute_all(both), Status::kOk);
      EXPECT_EQ(v[0], 100u);
      EXPECT_EQ(v[1], 101u);
      EXPECT_EQ(v[2], 200u);
      EXPECT_EQ(v[3], 201u);
      ++awaits;
    }
  });
  const RunStats s = sim.run();
  EXPECT_TRUE(s.stalled.empty()) << s.stalled;
  EXPECT_EQ(awaits, 4u * 25);
  ASSERT_EQ(trace.dropped(), 0u);
  for (const auto& [thread, most] : max_in_flight_per_thread(trace)) EXPECT_EQ(most, 6u) << "thread " << thread;
  EXPECT_GT(rt.summaries()[0].credit_waits, 0u);
}

TEST(SmartThrottleSim, EpochChoosesTheBestCandidate) {
  // One thread of 8 coroutines posting single READs is latency-bound: 8
  // credits give about 8x the throughput of 1, whichever is measured first.
  for (const std::vector<uint32_t>& cand : {std::vector<uint32_t>{1, 8}, std::vector<uint32_t>{8, 1}}) {
    ClusterConfig c = small_cluster(1, 8);
    c.smart.throttling = true;
    c.smart.candidate_credits = cand;
    c.smart.delta_ns = 20'000;
    c.smart.stable_deltas = 5;
    const ReadRun r = run_reads(c, 1, 400'000);
    ASSERT_EQ(r.summaries.size(), 1u);
    EXPECT_EQ(r.summaries[0].credits_limit, 8u) << "candidates " << cand[0] << "," << cand[1];
    EXPECT_GE(r.summaries[0].epochs, 3u);
  }
}

}  // namespace
}  // namespace lw

namespace lw {
namespace {

// 96 threads x 4 coroutines x batches of 8 READs: 32 outstanding requests per
// thread, 3072 per NIC, thrash the NIC's WQE cache (SMART §3.2, Fig. 4a: 96
// x 32 reach half of 96 x 8). With throttling every thread keeps at most one
// batch (8) in flight whatever candidate the epoch measures.
ClusterConfig wqe_cluster(bool throttling) {
  ClusterConfig c = small_cluster(96, 4);
  c.nic.profile = "cx6-200g";
  c.smart.throttling = throttling;
  c.smart.delta_ns = 20'000;
  c.smart.stable_deltas = 20;
  return c;
}

TEST(SmartEffects, ThrottlingRaisesSmallReadThroughputUnderWqeThrashing) {
  const Nanos warm = 50'000, end = 300'000;
  const ReadRun off = run_reads(wqe_cluster(false), 8, end, nullptr, warm);
  const ReadRun on = run_reads(wqe_cluster(true), 8, end, nullptr, warm);
  const double mops_off = static_cast<double>(off.completed) / ((end - warm) / 1e3);
  const double mops_on = static_cast<double>(on.completed) / ((end - warm) / 1e3);
  std::printf("8 B READ, 96 threads x 32 outstanding: %.1f Mops unthrottled, %.1f Mops throttled "
              "(WQE cache misses %.0f vs %.0f)\n",
              mops_off, mops_on, off.counters.at("nic.wqe_cache_misses"),
              on.counters.at("nic.wqe_cache_misses"));
  EXPECT_GT(off.counters.at("nic.wqe_cache_misses"), 1000);
  EXPECT_EQ(on.counters.at("nic.wqe_cache_misses"), 0);
  // Fig. 4a: 96 x 32 give about half of 96 x 8; throttled to one batch of 8
  // per thread the NIC runs near its message rate (110 Mops).
  EXPECT_GT(mops_on, 1.6 * mops_off);
  EXPECT_GT(mops_on, 85);
  for (const smart::ThreadSummary& s : on.summaries) EXPECT_LE(s.max_in_flight, 8u);
}

TEST(SmartEffects, EpochPicksFewCreditsWhenManyThrashTheWqeCache) {
  // Batches of 4 from 8 coroutines: C_max 4 keeps 4 per thread in flight
  // (384 per NIC, enough for its message rate), 32 thrashes the cache.
  ClusterConfig c = small_cluster(96, 8);
  c.nic.profile = "cx6-200g";
  c.smart.throttling = true;
  c.smart.candidate_credits = {32, 4};
  // Each window must be long against the thrashing latency (3072 requests
  // at ~45 Mops: ~70 us), as Delta = 8 ms is on the real NIC.
  c.smart.delta_ns = 200'000;
  c.smart.stable_deltas = 2;
  const ReadRun r = run_reads(c, 4, 700'000);
  uint32_t chose_4 = 0;
  for (const smart::ThreadSummary& s : r.summaries) {
    EXPECT_GE(s.epochs, 1u);
    chose_4 += s.credits_limit == 4;
  }
  std::printf("%u of 96 threads chose C_max = 4\n", chose_4);
  // Every thread measures on its own: nearly all must find 4 better.
  EXPECT_GE(chose_4, 90u) << "of 96 threads";
}

}  // namespace
}  // namespace lw

namespace lw {
namespace {

// Read-modify-CAS increments of Zipf-hot counters (RACE's slot update,
// SMART §3.3): every coroutine runs operations until end_ns.
struct CasRun {
  uint64_t ops = 0;          // increments that began after warm-up and ended by end_ns
  uint64_t retries = 0;      // their failed CAS
  uint64_t all_ops = 0;      // every increment
  uint64_t counter_sum = 0;  // the counters at the end (must equal all_ops)
  std::vector<smart::ThreadSummary> summaries;
  double mops(Nanos warm, Nanos end) const { return static_cast<double>(ops) / ((end - warm) / 1e3); }
  double retries_per_op() const { return ops ? static_cast<double>(retries) / static_cast<double>(ops) : 0; }
};

CasRun run_cas(const ClusterConfig& c, uint64_t keys, double theta, Nanos warm, Nanos end) {
  SimBackend sim(c);
  smart::Runtime rt(sim.config());
  const RemoteAddr base = sim.allocate(0, keys * 64, 4096);
  std::vector<uint64_t> zero(keys * 8, 0);
  sim.host_write(base, zero.data(), keys * 64);
  const std::shared_ptr<const ZipfKeys> zipf = ZipfKeys::shared(keys, theta);
  CasRun r;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    for (int op = 0; op < 1'000'000 && w.now() < end; ++op) {
      const RemoteAddr a = base + 64 * zipf->sample(w.rng());
      const Nanos start = w.now();
      const uint64_t retries_before = w.counters().retries;
      co_await ctx.begin_op(0);
      bool done = false;
      for (int attempt = 0; attempt < 100'000 && !done; ++attempt) {
        uint64_t v = 0;
        EXPECT_EQ(co_await ctx.read(&v, a, 8), Status::kOk);
        const Result<uint64_t> x = co_await ctx.backoff_cas(a, v, v + 1);
        EXPECT_TRUE(x.ok());
        done = x.value == v;
      }
      EXPECT_TRUE(done);
      ctx.end_op(done);
      ++r.all_ops;
      if (start >= warm && w.now() <= end) {
        ++r.ops;
        r.retries += w.counters().retries - retries_before;
      }
    }
  });
  const RunStats s = sim.run();
  EXPECT_TRUE(s.stalled.empty()) << s.stalled;
  for (uint64_t k = 0; k < keys; ++k) {
    uint64_t v = 0;
    sim.host_read(base + 64 * k, &v, 8);
    r.counter_sum += v;
  }
  r.summaries = rt.summaries();
  return r;
}

ClusterConfig cas_cluster(bool backoff, bool dynamic_limit, bool coroutines) {
  ClusterConfig c = small_cluster(16, 8);
  c.nic.profile = "cx6-200g";
  c.smart.backoff = backoff;
  c.smart.dynamic_limit = dynamic_limit;
  c.smart.coroutine_throttling = coroutines;
  return c;
}

TEST(SmartEffects, BackoffCutsRetriesAndRaisesContendedCasThroughput) {
  // The paper's parameters (t0 = 1.6 us, t_M = 2^10 t0, 1 ms windows); the
  // dynamic limit starts at t0 and needs about 10 windows to reach t_M, so
  // throughput is measured from 20 ms on.
  const Nanos warm = 20'000'000, end = 30'000'000;
  const CasRun none = run_cas(cas_cluster(false, false, false), 64, 0.99, warm, end);
  const CasRun fixed = run_cas(cas_cluster(true, false, false), 64, 0.99, warm, end);
  const CasRun dynamic = run_cas(cas_cluster(true, true, false), 64, 0.99, warm, end);
  const CasRun coro = run_cas(cas_cluster(true, true, true), 64, 0.99, warm, end);
  struct Row { const char* name; const CasRun* r; };
  for (const Row& row : {Row{"no backoff", &none}, Row{"backoff (t_max = t_M)", &fixed},
                         Row{"backoff + dynamic limit", &dynamic},
                         Row{"+ coroutine throttling", &coro}}) {
    EXPECT_EQ(row.r->counter_sum, row.r->all_ops) << row.name;  // no lost increments
    std::printf("%-26s %.2f Mops, %.2f retries/op, thread 0: t_max %llu ns, c_max %u\n", row.name,
                row.r->mops(warm, end), row.r->retries_per_op(),
                static_cast<unsigned long long>(row.r->summaries[0].t_max_ns), row.r->summaries[0].c_max);
  }
  EXPECT_GT(none.retries_per_op(), 1.5);  // the workload is contended
  EXPECT_LT(fixed.retries_per_op(), 0.5 * none.retries_per_op());
  EXPECT_GT(fixed.mops(warm, end), 4 * none.mops(warm, end));
  EXPECT_LT(dynamic.retries_per_op(), 0.5 * none.retries_per_op());
  EXPECT_GT(dynamic.mops(warm, end), 4 * none.mops(warm, end));
  // Skewed updates drive t_max to t_M (SMART §4.3: "t_max = t_M = 1.6 ms").
  // Contended: every thread's limit climbs to t_M and stays near it (a
  // quieter window may halve it once before the next doubling).
  for (const smart::ThreadSummary& s : dynamic.summaries) {
    EXPECT_EQ(s.t_max_peak_ns, 1'638'400u);
    EXPECT_GE(s.t_max_ns, 1'638'400u / 4);
  }
  // Coroutine throttling shrinks c_max to its bound and cuts retries further.
  EXPECT_LT(coro.retries_per_op(), dynamic.retries_per_op());
  EXPECT_GT(coro.mops(warm, end), 4 * none.mops(warm, end));
  for (const smart::ThreadSummary& s : coro.summaries) EXPECT_LT(s.c_max_low, 8u);
}

TEST(SmartEffects, DynamicLimitStaysAtT0WithoutContention) {
  // Uniform over 65536 counters: conflicts are rare, t_max never leaves t0.
  const CasRun r = run_cas(cas_cluster(true, true, false), 65'536, 0.0, 0, 5'000'000);
  EXPECT_EQ(r.counter_sum, r.all_ops);
  EXPECT_LT(r.retries_per_op(), 0.05);
  for (const smart::ThreadSummary& s : r.summaries) {
    EXPECT_EQ(s.t_max_ns, 1'600u);
    EXPECT_GE(s.retry_windows, 3u);
  }
}

}  // namespace
}  // namespace lw

namespace lw {
namespace {

// With every switch off a Context posts exactly what the bare Worker would:
// the simulator's execution (its trace hash) is the same.
TEST(SmartThrottleSim, SwitchesOffPostLikeTheBareWorker) {
  ClusterConfig c = small_cluster(2, 4);
  c.nic.profile = "cx6-200g";
  auto run = [&](bool through_context) {
    SimBackend sim(c);
    smart::Runtime rt(sim.config());
    const RemoteAddr a = sim.allocate(0, 4096, 4096);
    sim.spawn_compute([&](Worker& w) -> Task<void> {
      smart::Context ctx(rt, w);
      for (int i = 0; i < 50; ++i) {
        uint64_t v = 0;
        Batch b;
        b.read(&v, a + 8 * (i % 8), 8);
        b.faa(a + 64, 1);
        if (through_context) {
          co_await ctx.begin_op(0);
          EXPECT_EQ(co_await ctx.execute(b), Status::kOk);
          EXPECT_EQ(co_await ctx.read(&v, a, 8), Status::kOk);
          const Result<uint64_t> r = co_await ctx.backoff_cas(a + 128, v, v + 1);
          EXPECT_TRUE(r.ok());
          ctx.end_op(true);
        } else {
          EXPECT_EQ(co_await w.execute(b), Status::kOk);
          EXPECT_EQ(co_await w.read(&v, a, 8), Status::kOk);
          const Result<uint64_t> r = co_await w.cas(a + 128, v, v + 1);
          EXPECT_TRUE(r.ok());
          if (r.value != v) w.note_retry();
        }
      }
    });
    return sim.run().trace_hash;
  };
  EXPECT_EQ(run(true), run(false));
}

}  // namespace
}  // namespace lw
