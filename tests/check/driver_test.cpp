// The public check driver: swarm plans, failures inside one seed becoming
// findings, liveness, replay, ablation and minimisation.
#include "latchwork/check/driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>

namespace lw::check {
namespace {

Options small(uint64_t seeds) {
  Options o;
  o.shape = {1, 1, 2, 0, 10};
  o.seeds = seeds;
  return o;
}

// A workload made of lambdas, for tests that need one behaviour each.
struct Lambda : Workload {
  std::function<void(SeedRun&)> on_setup = [](SeedRun&) {};
  std::function<Task<void>(SeedRun&, Worker&)> on_run;
  std::function<std::string(SeedRun&)> on_held = [](SeedRun&) { return std::string(); };
  void setup(SeedRun& r) override { on_setup(r); }
  Task<void> run(SeedRun& r, Worker& w) override { return on_run(r, w); }
  std::string still_held(SeedRun& r) override { return on_held(r); }
};

TEST(CheckDriver, PlansAreDeterministicAndStayWithinTheirBounds) {
  Options o;
  std::map<std::string, int> on;
  for (uint64_t s = 1; s <= 400; ++s) {
    SeedPlan p = plan_for(o, s), q = plan_for(o, s);
    EXPECT_EQ(p.describe(), q.describe());
    EXPECT_GE(p.semantics.read_spread_ns, 200u);
    EXPECT_LE(p.semantics.read_spread_ns, o.max_read_spread_ns);
    EXPECT_GE(p.semantics.write_line_gap_ns, 20u);
    EXPECT_LE(p.semantics.write_line_gap_ns, o.max_write_line_gap_ns);
    EXPECT_GE(p.semantics.atomic_window_ns, 100u);
    EXPECT_LE(p.semantics.atomic_window_ns, o.max_atomic_window_ns);
    EXPECT_LE(p.jitter_ns, o.max_jitter_ns);
    for (const Semantics::Switch& sw : Semantics::switches()) on[sw.name] += p.semantics.*(sw.field);
  }
  // Each of spec's switches is drawn on in about 3 of 4 seeds, never always;
  // one spec leaves off (failed_cas_writes_back) never.
  for (const Semantics::Switch& sw : Semantics::switches()) {
    if (!(Semantics::spec().*(sw.field))) {
      EXPECT_EQ(on[sw.name], 0) << sw.name;
      continue;
    }
    EXPECT_GT(on[sw.name], 250) << sw.name;
    EXPECT_LT(on[sw.name], 350) << sw.name;
  }
}

TEST(CheckDriver, TheSwarmNeverTurnsOnWhatTheBaseHasOff) {
  Options o;
  o.cluster.set_profile("sequential");
  for (uint64_t s = 1; s <= 100; ++s) EXPECT_FALSE(plan_for(o, s).semantics.any_relaxation());
  o.cluster.set_profile("spec");
  o.swarm = false;
  EXPECT_EQ(plan_for(o, 7).semantics, o.cluster.semantics);
}

TEST(CheckDriver, OptionsRejectBadInput) {
  Options o;
  EXPECT_EQ(o.validate(), "");
  o.seeds = 0;
  EXPECT_NE(o.validate(), "");
  o = Options{};
  o.cluster.backend = "threads";
  EXPECT_NE(o.validate().find("simulator"), std::string::npos);
  o = Options{};
  o.shape.coroutines_per_thread = 0;
  EXPECT_NE(o.validate(), "");
  o = Options{};
  o.max_read_spread_ns = 10;
  EXPECT_NE(o.validate(), "");
}

// An LW_CHECK failing inside a worker ends that seed only.
TEST(CheckDriver, AViolatedInvariantIsAFindingOfItsSeedAndTheSweepGoesOn) {
  auto factory = [] {
    auto w = std::make_unique<Lambda>();
    w->on_run = [](SeedRun& r, Worker& wk) -> Task<void> {
      co_await wk.sleep(100);
      LW_CHECK_MSG(r.seed() % 2 == 1, "even seeds are broken");
      r.op_done(wk);
    };
    return w;
  };
  Options o = small(10);
  o.explain = false;
  Report rep = run(factory, o);
  EXPECT_EQ(rep.seeds_run, 10u);
  EXPECT_EQ(rep.failing_seeds, 5u);
  EXPECT_EQ(rep.first_failing_seed, 2u);
  ASSERT_FALSE(rep.findings.empty());
  EXPECT_EQ(rep.findings[0].kind, kind::kInvariant);
  EXPECT_NE(rep.findings[0].detail.find("even seeds are broken"), std::string::npos);
  // A library run: the finding names its seed, plan and a replay call, not
  // the simulator's base profile and a command line.
  const Finding& f = rep.findings[0];
  EXPECT_EQ(f.detail.find("profile="), std::string::npos) << f.detail;
  EXPECT_EQ(f.detail.find("--seed"), std::string::npos) << f.detail;
  EXPECT_EQ(f.seed, 2u);
  EXPECT_EQ(f.plan.describe(), plan_for(o, 2).describe());
  EXPECT_EQ(f.replay, "lw::check::run_seed(factory, options, 2)");
}

// One noisy seed fails a hundred times: the report keeps a few of its
// failures, counts them all by kind, and explain_limit still explains that
// many failing seeds.
TEST(CheckDriver, AFindingsCapPerSeedAndCountsPerKindOverTheSweep) {
  auto factory = [] {
    auto w = std::make_unique<Lambda>();
    w->on_run = [](SeedRun& r, Worker& wk) -> Task<void> {
      co_await wk.sleep(100);
      if (wk.placement().coroutine == 0 && (r.seed() == 1 || r.seed() % 3 == 0))
        for (int i = 0; i < (r.seed() == 1 ? 100 : 1); ++i) r.fail("mine", "seed " + std::to_string(r.seed()));
      r.op_done(wk);
    };
    return w;
  };
  Options o = small(12);
  o.swarm = false;
  o.ablation_seeds = 1;
  o.max_ablation_seeds = 1;
  o.race_seeds = 2;
  Report rep = run(factory, o);
  EXPECT_EQ(rep.failing_seeds, 5u);  // 1, 3, 6, 9, 12
  EXPECT_EQ(rep.kinds.at("mine"), 104u);
  EXPECT_EQ(rep.findings_total, 104u);
  size_t of_seed_1 = 0, explained = 0;
  std::set<uint64_t> explained_seeds;
  for (const Finding& f : rep.findings) {
    of_seed_1 += f.seed == 1;
    if (f.explained) explained_seeds.insert(f.seed);
  }
  explained = explained_seeds.size();
  EXPECT_EQ(of_seed_1, o.max_findings_per_seed);
  EXPECT_EQ(explained, o.explain_limit);
  EXPECT_EQ(rep.explained_seeds, o.explain_limit);
  EXPECT_EQ(rep.findings.size(), o.max_findings_per_seed + 4u);
  EXPECT_NE(rep.summary().find("mine 104"), std::string::npos) << rep.summary();
}

TEST(CheckDriver, AnExplanationWithOneSufficientRelaxationNamesItAlone) {
  Finding f;
  f.explained = true;
  f.sufficient = {"reads_unordered"};
  EXPECT_EQ(f.explanation(), "reads_unordered");
  f.sufficient.push_back("read_overtaken");
  EXPECT_EQ(f.explanation(), "any one of reads_unordered or read_overtaken");
  f.sufficient.clear();
  f.timing_race = true;
  EXPECT_NE(f.explanation().find("timing-dependent protocol race"), std::string::npos);
}

// Memory-node threads run the workload too: workers() counts them, and
// worker_index numbers them after the compute workers, below workers().
TEST(CheckDriver, SeedRunCountsMemoryNodeThreads) {
  std::vector<uint32_t> seen;
  uint32_t workers = 0, compute = 0;
  auto factory = [&] {
    auto w = std::make_unique<Lambda>();
    w->on_setup = [&](SeedRun& r) {
      workers = r.workers();
      compute = r.compute_workers();
    };
    w->on_run = [&](SeedRun& r, Worker& wk) -> Task<void> {
      seen.push_back(r.worker_index(wk));
      co_await wk.sleep(10);
      r.op_done(wk);
    };
    return w;
  };
  Options o = small(1);
  o.shape = {1, 2, 2, 2, 1};
  SeedResult r = run_seed(factory, o, 1);
  EXPECT_FALSE(r.failed());
  EXPECT_EQ(compute, 4u);
  EXPECT_EQ(workers, 4u + o.cluster.memory_nodes * 2);
  EXPECT_EQ(o.shape.workers(o.cluster.memory_nodes), workers);
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), workers);
  for (uint32_t i = 0; i < workers; ++i) EXPECT_EQ(seen[i], i);
}

// A per-worker region sized by workers() and indexed by worker_index() has
// a slot for every memory-node thread too, on each memory node.
TEST(CheckDriver, APerWorkerRegionSizedByWorkersHoldsTheMemoryNodeThreads) {
  std::vector<uint32_t> slots;
  auto factory = [&] {
    auto w = std::make_unique<Lambda>();
    w->on_setup = [&](SeedRun& r) { slots.assign(r.workers(), 0); };
    w->on_run = [&](SeedRun& r, Worker& wk) -> Task<void> {
      ++slots.at(r.worker_index(wk));  // past the region: an exception finding
      co_await wk.sleep(10);
      r.op_done(wk);
    };
    return w;
  };
  Options o = small(1);
  o.cluster.memory_nodes = 2;
  o.shape = {1, 1, 2, 2, 1};
  SeedResult r = run_seed(factory, o, 1);
  EXPECT_FALSE(r.failed()) << (r.findings.empty() ? "" : r.findings[0].summary());
  EXPECT_EQ(slots.size(), 2u + 2 * 2);
  for (uint32_t i = 0; i < slots.size(); ++i) EXPECT_EQ(slots[i], 1u) << i;
}

TEST(CheckDriver, AnExceptionFromAWorkerIsAFinding) {
  auto factory = [] {
    auto w = std::make_unique<Lambda>();
    w->on_run = [](SeedRun&, Worker& wk) -> Task<void> {
      co_await wk.sleep(10);
      if (wk.placement().coroutine == 1) throw std::runtime_error("worker 1 threw");
    };
    return w;
  };
  SeedResult r = run_seed(factory, small(1), 3);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, kind::kException);
  EXPECT_NE(r.findings[0].detail.find("worker 1 threw"), std::string::npos);
}

// Waits for a flag nobody sets (a lost wake-up).
struct Waiter : Workload {
  RemoteAddr flag;
  void setup(SeedRun& r) override { flag = r.backend().allocate(0, 8, 8); }
  Task<void> run(SeedRun& r, Worker& w) override {
    if (w.placement().coroutine == 1) {
      r.op_done(w);
      co_return;
    }
    uint64_t v = 0;
    for (;;) {  // spins on the flag: the test's point is that nothing sets it
      (void)co_await w.read(&v, flag, 8);
      if (v != 0) break;
    }
    r.op_done(w);
  }
};

// A lost wake-up: one worker waits for a flag nobody sets. The watchdog
// ends the run in virtual time and names the waiter and what it last read.
TEST(CheckDriver, AHangIsAFindingNamingTheBlockedWorker) {
  Options o = small(1);
  o.watchdog_ns = 1'000'000;
  SeedResult r = run_seed([] { return std::make_unique<Waiter>(); }, o, 1);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, kind::kHang);
  ASSERT_EQ(r.findings[0].blocked.size(), 1u);
  EXPECT_NE(r.findings[0].blocked[0].find("READ"), std::string::npos) << r.findings[0].blocked[0];
}

// Several waiters on one word are one entry, with the word's last write:
// the root of a lost wake-up.
struct LateSetter : Workload {
  RemoteAddr flag;
  void setup(SeedRun& r) override { flag = r.backend().allocate(0, 8, 8); }
  Task<void> run(SeedRun& r, Worker& w) override {
    if (r.worker_index(w) == 0) {  // sets the flag, then clears it again: the wake-up is lost
      const uint64_t one = 1, zero = 0;
      (void)co_await w.write(flag, &one, 8);
      (void)co_await w.write(flag, &zero, 8);
      r.op_done(w);
      co_return;
    }
    co_await w.sleep(50'000);
    uint64_t v = 0;
    for (;;) {
      (void)co_await w.read(&v, flag, 8);
      if (v != 0) break;
      co_await w.sleep(1000);
    }
    r.op_done(w);
  }
};

TEST(CheckDriver, AHangReportGroupsItsWaitersAndNamesTheLastWriteOfTheirWord) {
  Options o = small(1);
  o.shape = {1, 1, 3, 0, 1};
  o.watchdog_ns = 1'000'000;
  SeedResult r = run_seed([] { return std::make_unique<LateSetter>(); }, o, 1);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, kind::kHang);
  ASSERT_EQ(r.findings[0].blocked.size(), 1u);
  const std::string& b = r.findings[0].blocked[0];
  EXPECT_EQ(b.rfind("2 worker(s) wait on 8 B at", 0), 0u) << b;
  EXPECT_NE(b.find("last write: @"), std::string::npos) << b;
  EXPECT_NE(b.find("WRITE"), std::string::npos) << b;
  EXPECT_NE(b.find("wrote 0x0"), std::string::npos) << b;
  EXPECT_NE(b.find("compute 0 thread 0 coroutine 0"), std::string::npos) << b;
}

TEST(CheckDriver, StarvationIsAReportAndAStuckLatchIsAFailure) {
  for (bool held : {false, true}) {
    auto factory = [held] {
      auto w = std::make_unique<Lambda>();
      w->on_run = [](SeedRun& r, Worker& wk) -> Task<void> {
        co_await wk.sleep(10);
        r.gave_up(wk, "latch busy");
      };
      w->on_held = [held](SeedRun&) { return held ? std::string("the latch word is 1") : std::string(); };
      return w;
    };
    SeedResult r = run_seed(factory, small(1), 1);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].kind, held ? kind::kStuckLatch : kind::kStarvation);
    EXPECT_EQ(r.findings[0].failure, held);
    EXPECT_EQ(r.failed(), held);
  }
}

// A counter incremented by READ + WRITE loses updates with no relaxation at
// all: ablation calls it a protocol bug; minimisation shrinks it.
struct ReadWriteCounter : Workload {
  RemoteAddr word;
  void setup(SeedRun& r) override { word = r.backend().allocate(0, 8, 8); }
  Task<void> run(SeedRun& r, Worker& w) override {
    for (uint32_t i = 0; i < r.ops_per_worker(); ++i) {
      uint64_t v = 0;
      const Nanos start = w.now();
      (void)co_await w.read(&v, word, 8);
      ++v;
      (void)co_await w.write(word, &v, 8);
      r.counters().add(0, 1, start, w.now(), w.placement());
      r.op_done(w);
    }
  }
  void check(SeedRun& r) override { r.counters().final_value(0, r.backend().host_load(word)); }
};

TEST(CheckDriver, AProtocolBugIsExplainedAsSuchAndMinimised) {
  Options o = small(50);
  o.shape = {2, 1, 2, 0, 20};
  o.stop_at_first = true;
  o.minimise = true;
  Report rep = run([] { return std::make_unique<ReadWriteCounter>(); }, o);
  ASSERT_FALSE(rep.clean());
  const Finding& f = rep.findings.front();
  EXPECT_TRUE(f.explained);
  EXPECT_TRUE(f.protocol_bug) << f.summary();
  EXPECT_NE(f.explanation().find("protocol"), std::string::npos);
  EXPECT_LT(f.shape.compute_workers() * f.shape.ops_per_worker,
            o.shape.compute_workers() * o.shape.ops_per_worker);
  // The minimised finding replays: same seed, plan and shape, same hash.
  SeedResult again = run_seed([] { return std::make_unique<ReadWriteCounter>(); }, o, f.plan, f.shape);
  EXPECT_EQ(again.trace_hash, f.trace_hash);
  ASSERT_TRUE(again.failed());
}

// One 256-byte READ against one 256-byte WRITE: torn only if the READ's
// lines are fetched apart or the WRITE's lines land apart; either suffices.
struct SingleReadRecord : Workload {
  RemoteAddr rec;
  void setup(SeedRun& r) override { rec = r.backend().allocate(0, 256, 64); }
  Task<void> run(SeedRun& r, Worker& w) override {
    std::array<uint64_t, 32> buf{};
    const uint32_t me = r.worker_index(w);
    for (uint32_t i = 0; i < r.ops_per_worker(); ++i) {
      HistoryOp op;
      op.who = w.placement();
      op.start = w.now();
      if (me % 2 == 0) {
        op.kind = HistoryOp::Kind::kWrite;
        op.value = (uint64_t{me} + 1) << 32 | (i + 1);
        buf.fill(op.value);
        (void)co_await w.write(rec, buf.data(), sizeof buf);
      } else {
        op.kind = HistoryOp::Kind::kRead;
        (void)co_await w.read(buf.data(), rec, sizeof buf);
        op.whole = std::all_of(buf.begin(), buf.end(), [&](uint64_t v) { return v == buf[0]; });
        op.value = buf[0];
      }
      op.end = w.now();
      r.registers().record(op);
      r.op_done(w);
    }
  }
};

TEST(CheckDriver, AblationNamesEachRelaxationThatSufficesWhenNoneIsNecessary) {
  Options o = small(200);
  o.shape = {2, 1, 1, 0, 30};
  o.stop_at_first = true;
  Report rep = run([] { return std::make_unique<SingleReadRecord>(); }, o);
  ASSERT_FALSE(rep.clean());
  const Finding& f = rep.findings.front();
  EXPECT_EQ(f.kind, "torn-read");
  EXPECT_FALSE(f.protocol_bug) << f.summary();
  // Whichever of the two the seed drew on, each is named only if it alone
  // reproduces the tear.
  std::set<std::string> expect;
  for (const char* n : {"read_lines_unordered", "write_lines_staggered"})
    for (const Semantics::Switch& sw : Semantics::switches())
      if (sw.name == std::string(n) && f.plan.semantics.*(sw.field)) expect.insert(n);
  // A relaxation that never acted in the failing run is never named, so
  // with both on, those named are a non-empty part of the two.
  if (expect.size() == 1) {
    EXPECT_EQ(std::set<std::string>(f.necessary.begin(), f.necessary.end()), expect) << f.summary();
  } else {
    const std::vector<std::string>& named = f.necessary.empty() ? f.sufficient : f.necessary;
    EXPECT_FALSE(named.empty()) << f.summary();
    for (const std::string& n : named) EXPECT_TRUE(expect.count(n)) << f.summary();
  }
  EXPECT_FALSE(f.timing_race) << f.summary();
}

TEST(CheckDriver, OnlyKeptFailingSeedsRunAgainForTheirCauses) {
  auto factory = [] { return std::make_unique<SingleReadRecord>(); };
  Options o = small(60);
  o.shape = {2, 1, 1, 0, 30};
  o.explain = false;
  Report rep = run(factory, o);
  ASSERT_GT(rep.failing_seeds, 0u);
  // Exactly the seeds with a failure kept in the report ran twice; later
  // failing seeds (past the report's 64 failures) only once.
  std::set<uint64_t> kept;
  for (const Finding& x : rep.findings)
    if (x.failure) kept.insert(x.seed);
  EXPECT_EQ(rep.seeds_rerun_for_causes, kept.size());
  EXPECT_LT(rep.seeds_rerun_for_causes, rep.failing_seeds);
  for (const Finding& x : rep.findings) {
    if (x.failure) {
      EXPECT_FALSE(x.causes.empty()) << x.summary();
    }
  }
  // A kept failure carries what the log saw, as run_seed (always logged) gives it.
  const Finding& f = rep.findings.front();
  ASSERT_TRUE(f.failure);
  EXPECT_FALSE(f.causes.empty()) << f.summary();
  SeedResult alone = run_seed(factory, o, f.seed);
  ASSERT_TRUE(alone.failed());
  const auto first = std::find_if(alone.findings.begin(), alone.findings.end(),
                                  [](const Finding& x) { return x.failure; });
  ASSERT_NE(first, alone.findings.end());
  EXPECT_EQ(first->causes, f.causes);
  EXPECT_EQ(alone.trace_hash, f.trace_hash);
  // Without causes wanted, nothing runs twice and nothing is explained by the log.
  o.keep_causes = false;
  Report quiet = run(factory, o);
  EXPECT_EQ(quiet.seeds_rerun_for_causes, 0u);
  EXPECT_EQ(quiet.trace_hash, rep.trace_hash);
  EXPECT_EQ(quiet.failing_seeds, rep.failing_seeds);
  EXPECT_TRUE(quiet.findings.front().causes.empty());
}

// Worker 0 reads a 64-line block back to back (its lines fetched over up to
// 30 us: read_lines_unordered events); worker 1 records increments at
// instants in between, which the final values lose.
struct LostFinalsBesideReads : Workload {
  static constexpr uint64_t kKeys = 20;
  RemoteAddr block;
  void setup(SeedRun& r) override { block = r.backend().allocate(0, 4096, 64); }
  Task<void> run(SeedRun& r, Worker& w) override {
    if (r.worker_index(w) == 0) {
      std::vector<std::byte> buf(4096);
      for (int i = 0; i < 100; ++i) (void)co_await w.read(buf.data(), block, 4096);
    } else {
      for (uint64_t k = 0; k < kKeys; ++k) {
        co_await w.sleep(3'000);
        r.counters().add(k, 1, w.now(), w.now(), w.placement());
      }
    }
    r.op_done(w);
  }
  void check(SeedRun& r) override {
    for (uint64_t k = 0; k < kKeys; ++k) r.counters().final_value(k, 0);
  }
};

// A final value's violation belongs to no operation: its causes are the
// run's lost writes (none here), never worker 0's reads at that instant
// (worker 0 is a violation's default `who`).
TEST(CheckDriver, AFinalStateViolationNamesNoWorkersRelaxations) {
  auto factory = [] { return std::make_unique<LostFinalsBesideReads>(); };
  Options o = small(1);
  o.swarm = false;
  o.cluster.semantics.read_spread_ns = 30'000;
  SeedResult r = run_seed(factory, o, 1);
  ASSERT_EQ(r.findings.size(), LostFinalsBesideReads::kKeys);
  for (const Finding& f : r.findings) {
    EXPECT_EQ(f.kind, "lost-update");
    EXPECT_TRUE(f.causes.empty()) << f.causes.front();
  }
  // The run had such relaxations to name.
  EXPECT_NE(trace(factory, o, r.findings[0]).find("read_lines_unordered"), std::string::npos);
}

TEST(CheckDriver, ASeedReplaysExactly) {
  auto factory = [] { return std::make_unique<SingleReadRecord>(); };
  Options o = small(1);
  for (uint64_t s : {1, 2, 3}) {
    SeedResult a = run_seed(factory, o, s), b = run_seed(factory, o, s);
    EXPECT_EQ(a.trace_hash, b.trace_hash);
    EXPECT_EQ(a.findings.size(), b.findings.size());
    EXPECT_NE(a.trace_hash, 0u);
  }
  EXPECT_NE(run_seed(factory, o, 1).trace_hash, run_seed(factory, o, 2).trace_hash);
}

TEST(CheckDriver, TheTraceListsTheVerbsOfTheRun) {
  Options o = small(1);
  Finding f;
  f.seed = 5;
  f.plan = plan_for(o, 5);
  f.shape = o.shape;
  std::string t = trace([] { return std::make_unique<ReadWriteCounter>(); }, o, f);
  EXPECT_NE(t.find("READ"), std::string::npos);
  EXPECT_NE(t.find("WRITE"), std::string::npos);
}

// The trace's head counts every worker of the run, memory-node threads too.
TEST(CheckDriver, TheTraceCountsTheMemoryNodeThreads) {
  auto factory = [] {
    auto w = std::make_unique<Lambda>();
    w->on_run = [](SeedRun& r, Worker& wk) -> Task<void> {
      co_await wk.sleep(10);
      r.op_done(wk);
    };
    return w;
  };
  Options o = small(1);
  o.shape = {1, 1, 2, 1, 1};
  Finding f;
  f.seed = 1;
  f.plan = plan_for(o, 1);
  f.shape = o.shape;
  const std::string t = trace(factory, o, f);
  const std::string head = "), " + std::to_string(2 + o.cluster.memory_nodes) + " workers x 1 ops";
  EXPECT_NE(t.find(head), std::string::npos) << t.substr(0, t.find('\n'));
}

}  // namespace
}  // namespace lw::check

namespace lw::check {
namespace {

// Options::isolate: a crash ends its seed only, and so does a worker that
// loops without awaiting (no virtual time passes: only the wall-clock bound
// of the child can end it).
TEST(CheckDriverIsolation, ACrashIsAFindingOfItsSeedAndTheSweepGoesOn) {
  auto factory = [] {
    auto w = std::make_unique<Lambda>();
    w->on_run = [](SeedRun& r, Worker& wk) -> Task<void> {
      co_await wk.sleep(10);
      if (r.seed() == 2) std::abort();
      r.op_done(wk);
    };
    return w;
  };
  Options o = small(3);
  o.isolate = true;
  o.explain = false;
  Report rep = run(factory, o);
  EXPECT_EQ(rep.seeds_run, 3u);
  EXPECT_EQ(rep.failing_seeds, 1u);
  EXPECT_EQ(rep.first_failing_seed, 2u);
  ASSERT_EQ(rep.findings.size(), 1u);
  EXPECT_EQ(rep.findings[0].kind, kind::kCrash);
  EXPECT_NE(rep.findings[0].detail.find("signal"), std::string::npos) << rep.findings[0].detail;
}

TEST(CheckDriverIsolation, AWorkerThatNeverAwaitsIsKilledAtTheWallClockBound) {
  auto factory = [] {
    auto w = std::make_unique<Lambda>();
    w->on_run = [](SeedRun&, Worker& wk) -> Task<void> {
      co_await wk.sleep(10);
      volatile uint64_t spins = 0;
      for (;;) spins = spins + 1;  // never yields to the simulator
    };
    return w;
  };
  Options o = small(1);
  o.isolate = true;
  o.seed_wall_seconds = 1;
  SeedResult r = run_seed(factory, o, 1);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, kind::kCrash);
  EXPECT_NE(r.findings[0].detail.find("killed"), std::string::npos) << r.findings[0].detail;
}

// The same results in a child as in process: findings, ops and trace hash.
TEST(CheckDriverIsolation, AnIsolatedSeedReportsWhatAnInProcessOneDoes) {
  auto factory = [] { return std::make_unique<ReadWriteCounter>(); };
  Options o = small(1);
  o.shape = {2, 1, 2, 0, 20};
  Options iso = o;
  iso.isolate = true;
  for (uint64_t s : {1, 2}) {
    SeedResult a = run_seed(factory, o, s), b = run_seed(factory, iso, s);
    EXPECT_EQ(a.trace_hash, b.trace_hash);
    EXPECT_EQ(a.ops, b.ops);
    ASSERT_EQ(a.findings.size(), b.findings.size());
    for (size_t i = 0; i < a.findings.size(); ++i) {
      EXPECT_EQ(a.findings[i].kind, b.findings[i].kind);
      EXPECT_EQ(a.findings[i].detail, b.findings[i].detail);
    }
  }
}

}  // namespace
}  // namespace lw::check
