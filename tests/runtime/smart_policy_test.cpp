// The SMART runtime's policies on a scripted port (smart_fake_port.h):
// Eq. 1's sleeps, the dynamic backoff limit, the c_max gate, the credit
// waiting list. Exact, and independent of any timing model.
#include <gtest/gtest.h>

#include "latchwork/runtime/smart.h"
#include "smart_fake_port.h"

namespace lw {
namespace {

using test::FakeCoroutine;
using test::FakeEnv;

ClusterConfig cluster(uint32_t coroutines) {
  ClusterConfig c;
  c.coroutines_per_thread = coroutines;
  c.queue_depth = 1024;
  return c;
}

const RemoteAddr kWord(0, 4096);

// One operation whose CAS fails `failures` times before it succeeds.
Task<void> contended_op(smart::Context& ctx, FakeEnv& env, uint64_t failures) {
  co_await ctx.begin_op(0);
  env.force_cas_failures = failures;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const uint64_t v = env.mem[kWord.raw()];
    Result<uint64_t> r = co_await ctx.backoff_cas(kWord, v, v + 1);
    EXPECT_TRUE(r.ok());
    if (r.value == v) break;
  }
  ctx.end_op(true);
}

void run_op(smart::Context& ctx, FakeEnv& env, uint64_t failures) {
  Task<void> t = contended_op(ctx, env, failures);
  test::start(t);
  ASSERT_TRUE(t.done());
}

TEST(SmartBackoff, SleepsFollowEquationOne) {
  ClusterConfig c = cluster(1);
  c.smart.backoff = true;  // no dynamic limit: t_max = t_M = 2^4 t0
  c.smart.t0_ns = 1000;
  c.smart.max_backoff_shift = 4;
  smart::Runtime rt(c);
  FakeEnv env;
  FakeCoroutine co(&env, 0, /*seed=*/42);
  smart::Context ctx(rt, co.worker);
  run_op(ctx, env, 7);
  ASSERT_EQ(env.sleeps.size(), 7u);
  // The same draws the runtime makes from the worker's rng: Rand(t0) on [0, t0].
  Rng rng(42);
  for (uint32_t i = 0; i < 7; ++i) {
    const Nanos base = std::min<Nanos>(1000ull << i, 16'000);
    const Nanos rand = rng.below(1001);
    EXPECT_EQ(env.sleeps[i], base + rand) << "failure " << i;
    EXPECT_GE(env.sleeps[i], base);
    EXPECT_LE(env.sleeps[i], base + 1000);
  }
  EXPECT_EQ(co.worker.counters().retries, 7u);
  const smart::ThreadSummary s = rt.summaries().at(0);
  EXPECT_EQ(s.backoffs, 7u);
  EXPECT_EQ(s.retries, 7u);
  EXPECT_EQ(s.ops, 1u);
  EXPECT_EQ(s.t_max_ns, 16'000u);
  // The exponent restarts with the next operation.
  env.sleeps.clear();
  run_op(ctx, env, 1);
  ASSERT_EQ(env.sleeps.size(), 1u);
  EXPECT_LE(env.sleeps[0], 2000u);
  EXPECT_EQ(rt.stats().kind(0).retries.exact(7), 1u);
  EXPECT_EQ(rt.stats().kind(0).retries.exact(1), 1u);
}

TEST(SmartBackoff, OffCountsRetriesWithoutSleeping) {
  ClusterConfig c = cluster(1);
  smart::Runtime rt(c);
  FakeEnv env;
  FakeCoroutine co(&env, 0, 1);
  smart::Context ctx(rt, co.worker);
  run_op(ctx, env, 3);
  EXPECT_TRUE(env.sleeps.empty());
  EXPECT_EQ(co.worker.counters().retries, 3u);
  EXPECT_EQ(rt.summaries().at(0).retries, 3u);
}

// Operations ending in successive retry windows, each with `failures`
// retries. A window closes when the first operation after it ends.
void run_windows(smart::Context& ctx, FakeEnv& env, int windows, uint64_t failures,
                 Nanos window_ns, int ops = 4) {
  for (int w = 0; w < windows; ++w) {
    for (int k = 0; k < ops; ++k) run_op(ctx, env, failures);
    env.now += window_ns;  // the next op ends in the next window
  }
}

TEST(SmartBackoff, DynamicLimitRisesUnderContentionAndFallsWithout) {
  ClusterConfig c = cluster(1);
  c.smart.backoff = true;
  c.smart.dynamic_limit = true;
  c.smart.t0_ns = 100;
  c.smart.max_backoff_shift = 5;  // t_M = 3200
  c.smart.retry_window_ns = 1'000'000;
  smart::Runtime rt(c);
  FakeEnv env;
  FakeCoroutine co(&env, 0, 3);
  smart::Context ctx(rt, co.worker);
  EXPECT_EQ(rt.summaries()[0].t_max_ns, 100u);  // starts at t0
  // gamma = 1 > gamma_high: doubles per window, clamped at t_M.
  Nanos last = 100;
  for (int w = 0; w < 8; ++w) {
    run_windows(ctx, env, 1, 1, c.smart.retry_window_ns);
    run_op(ctx, env, 1);  // closes the window
    const Nanos t = rt.summaries()[0].t_max_ns;
    EXPECT_EQ(t, std::min<Nanos>(last * 2, 3200)) << "window " << w;
    last = t;
  }
  EXPECT_EQ(last, 3200u);
  // gamma in [gamma_low, gamma_high]: unchanged (1 retry in 4 ops = 0.25).
  for (int w = 0; w < 3; ++w) {
    run_op(ctx, env, 1);
    for (int k = 0; k < 3; ++k) run_op(ctx, env, 0);
    env.now += c.smart.retry_window_ns;
  }
  run_op(ctx, env, 0);
  EXPECT_EQ(rt.summaries()[0].t_max_ns, 3200u);
  // gamma = 0 < gamma_low: halves per window down to t0.
  last = 3200;
  for (int w = 0; w < 8; ++w) {
    run_windows(ctx, env, 1, 0, c.smart.retry_window_ns);
    run_op(ctx, env, 0);  // closes the window
    const Nanos t = rt.summaries()[0].t_max_ns;
    EXPECT_EQ(t, std::max<Nanos>(last / 2, 100)) << "window " << w;
    last = t;
  }
  EXPECT_EQ(last, 100u);
  EXPECT_EQ(rt.summaries()[0].t_max_peak_ns, 3200u);
}

TEST(SmartBackoff, WithoutDynamicLimitTMaxStaysAtLimit) {
  ClusterConfig c = cluster(1);
  c.smart.backoff = true;
  c.smart.t0_ns = 100;
  c.smart.max_backoff_shift = 5;
  smart::Runtime rt(c);
  FakeEnv env;
  FakeCoroutine co(&env, 0, 3);
  smart::Context ctx(rt, co.worker);
  run_windows(ctx, env, 5, 0, c.smart.retry_window_ns);
  EXPECT_EQ(rt.summaries()[0].t_max_ns, 3200u);
  run_windows(ctx, env, 5, 3, c.smart.retry_window_ns);
  EXPECT_EQ(rt.summaries()[0].t_max_ns, 3200u);
}

// Drives c_max to 1 with high retry rates; t_max stays until c_max is at 1.
TEST(SmartCoroutineThrottling, CMaxFollowsRetryRateAndTMaxOnlyAtBounds) {
  ClusterConfig c = cluster(8);
  c.smart.backoff = true;
  c.smart.dynamic_limit = true;
  c.smart.coroutine_throttling = true;
  c.smart.t0_ns = 100;
  c.smart.max_backoff_shift = 5;
  smart::Runtime rt(c);
  FakeEnv env;
  FakeCoroutine co(&env, 0, 3);
  smart::Context ctx(rt, co.worker);
  EXPECT_EQ(rt.summaries()[0].c_max, 8u);
  const uint32_t want_c[] = {4, 2, 1, 1, 1};
  const Nanos want_t[] = {100, 100, 100, 200, 400};
  for (int w = 0; w < 5; ++w) {
    run_windows(ctx, env, 1, 2, c.smart.retry_window_ns);
    run_op(ctx, env, 2);
    EXPECT_EQ(rt.summaries()[0].c_max, want_c[w]) << "window " << w;
    EXPECT_EQ(rt.summaries()[0].t_max_ns, want_t[w]) << "window " << w;
  }
  // Without retries: t_max waits until c_max is back at its upper bound.
  const uint32_t up_c[] = {2, 4, 8, 8, 8};
  const Nanos up_t[] = {400, 400, 400, 200, 100};
  for (int w = 0; w < 5; ++w) {
    run_windows(ctx, env, 1, 0, c.smart.retry_window_ns, 20);
    run_op(ctx, env, 0);  // closes the window
    EXPECT_EQ(rt.summaries()[0].c_max, up_c[w]) << "window " << w;
    EXPECT_EQ(rt.summaries()[0].t_max_ns, up_t[w]) << "window " << w;
  }
  EXPECT_EQ(rt.summaries()[0].c_max_low, 1u);
}

Task<void> gated_op(smart::Context& ctx, std::vector<int>& log, int id, bool* in_op) {
  co_await ctx.begin_op(1);
  log.push_back(id);
  *in_op = true;
}

TEST(SmartCoroutineThrottling, GateAdmitsAtMostCMaxInArrivalOrder) {
  ClusterConfig c = cluster(4);
  c.smart.coroutine_throttling = true;
  smart::Runtime rt(c);
  FakeEnv env;
  std::vector<std::unique_ptr<FakeCoroutine>> cos;
  std::vector<std::unique_ptr<smart::Context>> ctxs;
  for (uint32_t i = 0; i < 4; ++i) {
    cos.push_back(std::make_unique<FakeCoroutine>(&env, i, i + 1));
    ctxs.push_back(std::make_unique<smart::Context>(rt, cos.back()->worker));
  }
  // Two windows with retries: c_max 4 -> 2 -> 1.
  for (int w = 0; w < 3; ++w) {
    run_windows(*ctxs[0], env, 1, 3, c.smart.retry_window_ns);
  }
  ASSERT_EQ(rt.summaries()[0].c_max, 1u);
  std::vector<int> log;
  bool in_op[4] = {};
  std::vector<Task<void>> tasks;
  for (int i = 0; i < 4; ++i) tasks.push_back(gated_op(*ctxs[i], log, i, &in_op[i]));
  // Start 3, 1, 2: only the first enters, the others wait in arrival order.
  test::start(tasks[3]);
  test::start(tasks[1]);
  test::start(tasks[2]);
  test::drain(env);
  EXPECT_EQ(log, (std::vector<int>{3}));
  EXPECT_TRUE(cos[1]->port.parked());
  EXPECT_TRUE(cos[2]->port.parked());
  ctxs[3]->end_op(true);
  test::drain(env);
  EXPECT_EQ(log, (std::vector<int>{3, 1}));
  ctxs[1]->end_op(true);
  test::drain(env);
  EXPECT_EQ(log, (std::vector<int>{3, 1, 2}));
  ctxs[2]->end_op(true);
  test::drain(env);
  EXPECT_EQ(rt.summaries()[0].coroutine_waits, 2u);
  for (int i : {1, 2, 3}) EXPECT_TRUE(tasks[i].done());
  // Without coroutine throttling nobody waits.
  ClusterConfig off = cluster(4);
  smart::Runtime rt2(off);
  std::vector<int> log2;
  std::vector<std::unique_ptr<smart::Context>> ctxs2;
  std::vector<Task<void>> tasks2;
  bool in2[4] = {};
  for (int i = 0; i < 4; ++i) {
    ctxs2.push_back(std::make_unique<smart::Context>(rt2, cos[i]->worker));
    tasks2.push_back(gated_op(*ctxs2[i], log2, i, &in2[i]));
    test::start(tasks2[i]);
  }
  EXPECT_EQ(log2.size(), 4u);
  for (auto& ctx : ctxs2) ctx->end_op(true);
}

TEST(SmartOpStats, EndOpRecordsCounterDifferences) {
  ClusterConfig c = cluster(1);
  smart::Runtime rt(c);
  FakeEnv env;
  FakeCoroutine co(&env, 0, 9);
  smart::Context ctx(rt, co.worker);
  auto body = [&]() -> Task<void> {
    uint64_t buf = 0;
    EXPECT_EQ(co_await ctx.read(&buf, kWord, 8), Status::kOk);  // a verb before: not counted
    co_await ctx.begin_op(2);
    env.now += 500;
    Batch b;
    b.read(&buf, kWord, 8);
    b.write(kWord, &buf, 8);
    EXPECT_EQ(co_await ctx.execute(b), Status::kOk);
    EXPECT_TRUE((co_await ctx.cas(kWord, 0, 5)).ok());
    ctx.note_retry();
    ctx.end_op(false);
  };
  Task<void> t = body();
  test::start(t);
  ASSERT_TRUE(t.done());
  const OpStats all = rt.stats();
  const OpKindStats& k = all.kind(2);
  EXPECT_EQ(k.latency_ns.count(), 1u);
  EXPECT_EQ(k.latency_ns.max(), 500u);
  EXPECT_EQ(k.round_trips.max(), 2u);
  EXPECT_EQ(k.retries.max(), 1u);
  EXPECT_EQ(k.bytes_read.max(), 16u);     // READ 8 + CAS 8 back
  EXPECT_EQ(k.bytes_written.max(), 16u);  // WRITE 8 + CAS 8 out
  EXPECT_EQ(k.rpcs.max(), 0u);
  EXPECT_EQ(k.failed, 1u);
  EXPECT_EQ(rt.stats().kind(0).latency_ns.count(), 0u);
  EXPECT_EQ(rt.stats().total().latency_ns.count(), 1u);
}

TEST(SmartThrottle, WaitingListIsFifoAndBatchesAboveCMaxTakeAllCredits) {
  ClusterConfig c = cluster(4);
  c.smart.throttling = true;
  c.smart.candidate_credits = {4};
  smart::Runtime rt(c);
  FakeEnv env;
  // The fake completes requests at once, so credits are never short: the
  // accounting is checked by its invariant (credit + in flight = C_max)
  // and by the summary.
  FakeCoroutine co(&env, 0, 1);
  smart::Context ctx(rt, co.worker);
  auto body = [&]() -> Task<void> {
    uint64_t buf[8] = {};
    Batch b;
    for (int i = 0; i < 6; ++i) b.read(&buf[i], RemoteAddr(0, 4096 + 8 * i), 8);
    EXPECT_EQ(co_await ctx.execute(b), Status::kOk);  // 6 > C_max = 4
    Batch one;
    one.read(&buf[7], kWord, 8);
    EXPECT_EQ(co_await ctx.execute(one), Status::kOk);
  };
  Task<void> t = body();
  test::start(t);
  ASSERT_TRUE(t.done());
  const smart::ThreadSummary s = rt.summaries()[0];
  EXPECT_EQ(s.max_in_flight, 6u);  // the big batch alone
  EXPECT_EQ(s.completed_wrs, 7u);
  EXPECT_EQ(s.credits_limit, 4u);
  EXPECT_EQ(s.credit_waits, 0u);
}

}  // namespace
}  // namespace lw
