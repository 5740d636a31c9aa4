// What a finding may be blamed on: only relaxations that touched the bytes
// of its history, never ones that acted elsewhere in the same run.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "latchwork/check/driver.h"

namespace lw::check {
namespace {

// Worker 0 rewrites a four-line record, worker 1 READs it (torn when its
// lines are fetched apart) once workers 2 and 3 race FAAs and WRITEs on a
// word of their own, whose WRITEs the FAAs' windows lose all along.
struct TornBesideLostWrites : Workload {
  RemoteAddr rec, noise;
  void setup(SeedRun& r) override {
    rec = r.backend().allocate(0, 256, 64);
    noise = r.backend().allocate(0, 64, 64);
  }
  Task<void> run(SeedRun& r, Worker& w) override {
    std::array<uint64_t, 32> buf{};
    const uint32_t me = r.worker_index(w);
    if (me < 2) co_await w.sleep(20'000);  // the noise is in full swing by then
    for (uint32_t i = 0; i < r.ops_per_worker(); ++i) {
      HistoryOp op;
      op.who = w.placement();
      op.start = w.now();
      if (me == 0) {
        op.kind = HistoryOp::Kind::kWrite;
        op.value = i + 1;
        buf.fill(op.value);
        (void)co_await w.write(rec, buf.data(), sizeof buf);
      } else if (me == 1) {
        op.kind = HistoryOp::Kind::kRead;
        (void)co_await w.read(buf.data(), rec, sizeof buf);
        op.whole = std::all_of(buf.begin(), buf.end(), [&](uint64_t v) { return v == buf[0]; });
        op.value = buf[0];
      } else {
        (void)co_await w.faa(noise, 1);
        const uint64_t v = i;
        (void)co_await w.write(noise, &v, 8);
        r.op_done(w);
        continue;
      }
      op.end = w.now();
      r.registers().record(op);
      r.op_done(w);
    }
  }
};

TEST(FindingBlame, ATornReadIsBlamedOnlyOnRelaxationsOnItsBytes) {
  auto factory = [] { return std::make_unique<TornBesideLostWrites>(); };
  Options o;
  o.shape = {1, 4, 1, 0, 40};
  o.seeds = 20;
  o.swarm = false;
  o.explain_limit = 1;
  ASSERT_EQ(o.cluster.set_profile("sequential"), "");
  o.cluster.semantics.read_lines_unordered = true;
  o.cluster.semantics.atomic_loses_write = true;
  o.cluster.semantics.read_spread_ns = 3'000;
  o.cluster.semantics.atomic_window_ns = 3'000;
  const Report rep = run(factory, o);
  ASSERT_GE(rep.findings.size(), 20u) << rep.summary();
  const Finding& f = rep.findings.front();
  // The runs lost writes beside the READs, during them too ...
  EXPECT_NE(trace(factory, o, f).find("atomic_loses_write"), std::string::npos);
  // ... but none on their bytes: neither a cause nor blamable.
  for (const Finding& x : rep.findings) {
    ASSERT_EQ(x.kind, "torn-read") << x.summary();
    EXPECT_TRUE(x.addressed);
    EXPECT_EQ(x.touched, std::vector<std::string>{"read_lines_unordered"}) << x.summary();
    for (const std::string& c : x.causes) EXPECT_EQ(c.rfind("read_lines_unordered", 0), 0u) << c;
  }
  ASSERT_TRUE(f.explained);
  EXPECT_EQ(f.necessary, std::vector<std::string>{"read_lines_unordered"}) << f.summary();
  EXPECT_FALSE(f.timing_race || f.protocol_bug) << f.summary();
}

}  // namespace
}  // namespace lw::check
