// HOCL (Sherman §4.3, Fig. 6): mutual exclusion of non-atomic counters in
// remote memory under the spec profile over seeds and on real threads; the
// GLT's placement (device-memory lanes or host words, and the fallback);
// handovers happen only when switched on and never more than max_handover
// in a row; masked lane CAS leaves neighbour lanes alone; a waiter that gives
// up leaves the queue working.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/base/assert.h"
#include "latchwork/locks/hocl.h"
#include "latchwork/runtime/smart.h"
#include "latchwork/sim/sim_backend.h"
#include "verbs/node_memory.h"

namespace lw::locks {
namespace {

// A simulator that claims fewer capabilities (a Soft-RoCE stand-in).
class LimitedSim final : public Backend {
 public:
  LimitedSim(const ClusterConfig& c, bool device_memory, bool masked) : sim_(c), dm_(device_memory), masked_(masked) {}
  std::string_view name() const override { return "limited-sim"; }
  const ClusterConfig& config() const override { return sim_.config(); }
  Capabilities capabilities() const override {
    Capabilities c = sim_.capabilities();
    c.device_memory = dm_;
    c.masked_atomics = masked_;
    return c;
  }
  RemoteAddr allocate(NodeId n, uint64_t bytes, uint64_t align) override { return sim_.allocate(n, bytes, align); }
  RemoteAddr allocate_device_memory(NodeId n, uint64_t bytes) override {
    return dm_ ? sim_.allocate_device_memory(n, bytes) : RemoteAddr{};
  }
  void host_write(RemoteAddr d, const void* s, uint64_t b) override { sim_.host_write(d, s, b); }
  void host_read(RemoteAddr s, void* d, uint64_t b) override { sim_.host_read(s, d, b); }
  void spawn(Placement p, WorkerMain m) override { sim_.spawn(p, std::move(m)); }
  RunStats run() override { return sim_.run(); }

 private:
  SimBackend sim_;
  bool dm_, masked_;
};

ClusterConfig cluster(const char* backend, uint32_t cns, uint32_t threads, uint32_t coros, uint32_t mns,
                      uint64_t seed) {
  ClusterConfig c;
  c.backend = backend;
  c.seed = seed;
  c.compute_nodes = cns;
  c.threads_per_node = threads;
  c.coroutines_per_thread = coros;
  c.memory_nodes = mns;
  c.memory_node_bytes = 4 << 20;
  EXPECT_EQ(c.set_profile("spec"), "");
  return c;
}

HoclConfig small(bool on_chip, bool hierarchical, bool handover) {
  HoclConfig h;
  h.locks_per_node = 64;
  h.on_chip = on_chip;
  h.hierarchical = hierarchical;
  h.handover = handover;
  return h;
}

struct CounterRun {
  std::string error;
  uint64_t expected = 0;  // successful lock() calls
  uint64_t counted = 0;   // sum of the counters after the run
  uint64_t failures = 0;
  uint64_t handed = 0;          // grants with handed_over
  uint32_t max_handed_run = 0;  // longest run of consecutive handed grants of one lock
  uint64_t glt_taken = 0;       // GLT locks still taken after the run
  bool on_chip = false;
  std::string fallback;
  HoclStats stats;
  RunStats run;
};

// Every compute coroutine does `ops` increments of a random counter among
// `keys` (spread over the memory nodes) under its HOCL lock: READ, then the
// WRITE of the new value combined with the release (or unlock() every
// other time).
CounterRun run_counters(Backend& b, const HoclConfig& hc, uint32_t keys, uint32_t ops) {
  CounterRun out;
  const ClusterConfig& c = b.config();
  Result<Hocl> hr = Hocl::create(b, hc);
  if (!hr.ok()) {
    out.error = "create: " + std::string(to_string(hr.status));
    return out;
  }
  const Hocl h = hr.value;
  out.on_chip = h.on_chip();
  out.fallback = h.fallback();
  std::vector<RemoteAddr> ctr;
  std::vector<uint64_t> lock_of;  // key -> (node, index) as one number
  for (uint32_t k = 0; k < keys; ++k) {
    ctr.push_back(b.allocate(static_cast<NodeId>(k % c.memory_nodes), 64, 64));
    lock_of.push_back(uint64_t{ctr.back().node()} << 32 | h.index_of(ctr.back()));
  }
  smart::Runtime rt(c);
  std::mutex mu;  // the test's own bookkeeping (threads backend)
  std::map<uint64_t, uint32_t> run_len;
  b.spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    for (uint32_t i = 0; i < ops; ++i) {
      const uint32_t k = static_cast<uint32_t>(w.rng().below(keys));
      Result<Hocl::Grant> g = co_await h.lock(ctx, ctr[k]);
      if (!g.ok()) {
        std::lock_guard<std::mutex> l(mu);
        ++out.failures;
        continue;
      }
      {
        std::lock_guard<std::mutex> l(mu);
        ++out.expected;
        uint32_t& r = run_len[lock_of[k]];
        r = g.value.handed_over ? r + 1 : 0;
        out.max_handed_run = std::max(out.max_handed_run, r);
        if (g.value.handed_over) ++out.handed;
      }
      uint64_t v = 0;
      EXPECT_EQ(co_await ctx.read(&v, ctr[k], 8), Status::kOk);
      co_await w.sleep(w.rng().below(200));  // widen the critical section
      ++v;
      if (i % 2 == 0) {
        Batch wb;
        wb.write(ctr[k], &v, 8);  // v lives until the batch completed
        h.release_global(g.value, wb);
        EXPECT_EQ(co_await ctx.execute(wb), Status::kOk);
        h.release_local(w, g.value);
      } else {
        EXPECT_EQ(co_await ctx.write(ctr[k], &v, 8), Status::kOk);
        EXPECT_EQ(co_await h.unlock(ctx, g.value), Status::kOk);
      }
    }
  });
  out.run = b.run();
  for (RemoteAddr a : ctr) out.counted += b.host_load(a);
  for (NodeId n = 0; n < c.memory_nodes; ++n)
    for (uint32_t i = 0; i < hc.locks_per_node; ++i)
      if (b.host_load(h.word_addr(n, i)) & h.lane_mask(i)) ++out.glt_taken;
  out.stats = h.stats();
  return out;
}

void expect_exclusive(const CounterRun& r, const std::string& what) {
  ASSERT_EQ(r.error, "") << what;
  EXPECT_EQ(r.run.budget_exhausted, "") << what;
  EXPECT_EQ(r.run.stalled, "") << what;
  EXPECT_EQ(r.failures, 0u) << what;
  EXPECT_GT(r.expected, 0u) << what;
  EXPECT_EQ(r.counted, r.expected) << what;  // no lost update: mutual exclusion
  EXPECT_EQ(r.stats.acquisitions, r.expected) << what;
  EXPECT_EQ(r.stats.handovers, r.handed) << what;
  EXPECT_EQ(r.glt_taken, 0u) << what;  // every lock released
}

struct Mode {
  const char* name;
  bool on_chip, hierarchical, handover;
};

class HoclModes : public ::testing::TestWithParam<Mode> {};

TEST_P(HoclModes, CountersExactUnderSpecOverSeeds) {
  const Mode m = GetParam();
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    // 2 compute nodes x 2 threads x 4 coroutines on 3 counters over 2 memory nodes.
    SimBackend sim(cluster("sim", 2, 2, 4, 2, seed));
    HoclConfig hc = small(m.on_chip, m.hierarchical, m.handover);
    hc.backoff = seed % 2 == 0;
    CounterRun r = run_counters(sim, hc, 3, 25);
    const std::string what = std::string(m.name) + " seed " + std::to_string(seed);
    expect_exclusive(r, what);
    EXPECT_EQ(r.on_chip, m.on_chip) << what;
    EXPECT_EQ(r.fallback, "") << what;
    EXPECT_GT(r.stats.global_cas_failed + r.stats.local_waits, 0u) << what << ": not contended";
    if (m.hierarchical && m.handover) {
      EXPECT_GT(r.stats.handovers, 0u) << what;
      EXPECT_LE(r.max_handed_run, 4u) << what;
    } else {
      EXPECT_EQ(r.stats.handovers, 0u) << what;
    }
    if (m.hierarchical) {
      EXPECT_GT(r.stats.local_waits, 0u) << what;
    } else {
      EXPECT_EQ(r.stats.local_waits, 0u) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, HoclModes,
                         ::testing::Values(Mode{"hocl", true, true, true}, Mode{"on-chip-no-handover", true, true, false},
                                           Mode{"on-chip-flat", true, false, false},
                                           Mode{"host-hierarchical", false, true, true},
                                           Mode{"fg-plus", false, false, false}),
                         [](const auto& i) {
                           std::string s = i.param.name;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

TEST(Hocl, NeverMoreThanMaxHandoverInARow) {
  for (uint32_t max : {1u, 2u, 3u}) {
    // One compute node, 8 coroutines, one counter: the queue is always full.
    SimBackend sim(cluster("sim", 1, 2, 4, 1, 7));
    HoclConfig hc = small(true, true, true);
    hc.max_handover = max;
    CounterRun r = run_counters(sim, hc, 1, 20);
    expect_exclusive(r, "max " + std::to_string(max));
    EXPECT_EQ(r.max_handed_run, max) << "reaches but never passes the bound";
    // Each release to the GLT is followed by at most `max` handovers.
    EXPECT_LE(r.stats.handovers, max * (r.expected - r.stats.handovers) + max);
  }
}

TEST(Hocl, OnChipLocksAreDeviceMemoryLanes) {
  SimBackend sim(cluster("sim", 1, 1, 1, 2, 1));
  Result<Hocl> h = Hocl::create(sim, small(true, true, true));
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h.value.on_chip());
  EXPECT_EQ(h.value.fallback(), "");
  for (NodeId n = 0; n < 2; ++n) {
    EXPECT_GE(h.value.word_addr(n, 0).offset(), NodeMemory::kDeviceBase);
    EXPECT_EQ(h.value.word_addr(n, 0).node(), n);
  }
  EXPECT_EQ(h.value.word_addr(0, 5), h.value.word_addr(0, 4));  // four locks per word
  EXPECT_EQ(h.value.word_addr(0, 8), h.value.word_addr(0, 4) + 8);
  EXPECT_EQ(h.value.lane_mask(4), 0xFFFFull);
  EXPECT_EQ(h.value.lane_mask(7), 0xFFFFull << 48);
  // 131,072 locks fit the default 256 KB of device memory exactly.
  SimBackend big(cluster("sim", 1, 1, 1, 1, 1));
  Result<Hocl> full = Hocl::create(big, HoclConfig{});
  ASSERT_TRUE(full.ok());
  EXPECT_TRUE(full.value.on_chip()) << full.value.fallback();
}

TEST(Hocl, FallsBackToHostWordsWithoutDeviceMemory) {
  {
    LimitedSim soft(cluster("sim", 2, 1, 4, 1, 3), /*device_memory=*/false, /*masked=*/false);
    CounterRun r = run_counters(soft, small(true, true, true), 2, 20);
    expect_exclusive(r, "no device memory");
    EXPECT_FALSE(r.on_chip);
    EXPECT_NE(r.fallback.find("no device memory"), std::string::npos) << r.fallback;
    EXPECT_NE(r.fallback.find("host memory"), std::string::npos) << r.fallback;
  }
  {
    LimitedSim nomask(cluster("sim", 1, 1, 1, 1, 3), true, /*masked=*/false);
    Result<Hocl> h = Hocl::create(nomask, small(true, true, true));
    ASSERT_TRUE(h.ok());
    EXPECT_FALSE(h.value.on_chip());
    EXPECT_NE(h.value.fallback().find("masked atomics"), std::string::npos);
    EXPECT_LT(h.value.word_addr(0, 1).offset(), NodeMemory::kDeviceBase);
    EXPECT_EQ(h.value.word_addr(0, 1), h.value.word_addr(0, 0) + 8);  // one word per lock
    EXPECT_EQ(h.value.lane_mask(1), ~uint64_t{0});
  }
  {
    ClusterConfig c = cluster("sim", 1, 1, 1, 1, 3);
    c.device_memory_bytes = 0;  // the sim's switch for no device memory
    SimBackend sim(c);
    Result<Hocl> h = Hocl::create(sim, small(true, true, true));
    ASSERT_TRUE(h.ok());
    EXPECT_FALSE(h.value.on_chip());
    EXPECT_NE(h.value.fallback().find("device memory"), std::string::npos);
  }
  {
    SimBackend sim(cluster("sim", 1, 1, 1, 1, 3));
    Result<Hocl> off = Hocl::create(sim, small(false, true, true));
    ASSERT_TRUE(off.ok());
    EXPECT_FALSE(off.value.on_chip());
    EXPECT_EQ(off.value.fallback(), "") << "host memory was asked for";
    HoclConfig shared = small(true, true, true);
    shared.shared_name = "t";
    Result<Hocl> sh = Hocl::create(sim, shared);
    ASSERT_TRUE(sh.ok());
    EXPECT_FALSE(sh.value.on_chip());
    EXPECT_NE(sh.value.fallback().find("shared"), std::string::npos);
  }
}

// A guarded address on node 0 whose lock is `index`.
RemoteAddr guarded_for(Backend& b, const Hocl& h, uint32_t index) {
  const RemoteAddr base = b.allocate(0, 64 * 4096, 64);
  for (uint64_t i = 0; i < 4096; ++i)
    if (h.index_of(base + 64 * i) == index) return base + 64 * i;
  ADD_FAILURE() << "no address hashes to lock " << index;
  return base;
}

TEST(Hocl, MaskedLaneCasLeavesNeighbourLanesAlone) {
  SimBackend sim(cluster("sim", 1, 1, 1, 1, 5));
  HoclConfig hc = small(true, false, false);  // flat: every lock() is a masked CAS
  hc.max_spins = 3;
  Result<Hocl> hr = Hocl::create(sim, hc);
  ASSERT_TRUE(hr.ok() && hr.value.on_chip());
  const Hocl h = hr.value;
  // Word 1 holds locks 4..7: lanes 0, 2 and 3 are taken (by holder id 1).
  const uint64_t others = 0x0001'0001'0000'0001ull;
  sim.host_store(h.word_addr(0, 5), others);
  const RemoteAddr mine = guarded_for(sim, h, 5);
  const RemoteAddr taken = guarded_for(sim, h, 6);
  smart::Runtime rt(sim.config());
  uint64_t held_word = 0;
  Status taken_status = Status::kOk;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    Result<Hocl::Grant> g = co_await h.lock(ctx, mine);
    EXPECT_TRUE(g.ok());
    EXPECT_EQ(co_await ctx.read(&held_word, h.word_addr(0, 5), 8), Status::kOk);
    EXPECT_EQ(co_await h.unlock(ctx, g.value), Status::kOk);
    Result<Hocl::Grant> t = co_await h.lock(ctx, taken);  // lane 2 is someone else's
    taken_status = t.status;
  });
  RunStats rs = sim.run();
  EXPECT_EQ(rs.stalled, "");
  EXPECT_EQ(held_word, others | uint64_t{1} << 16);  // holder id 1 in lane 1 only
  EXPECT_EQ(sim.host_load(h.word_addr(0, 5)), others);  // the 2-byte release cleared lane 1 only
  EXPECT_EQ(taken_status, Status::kRetryExhausted);
  EXPECT_EQ(h.stats().gave_up, 1u);
  EXPECT_EQ(h.stats().global_cas, 1u + 3u + 1u);  // one, then max_spins + 1 attempts
}

// Holder A keeps the lock; B queues and gives up; C queues behind B and
// must still get the lock (B's abandoned ticket is skipped).
void abandoned_ticket_is_skipped(bool handover) {
  ClusterConfig c = cluster("sim", 1, 1, 3, 1, 9);
  SimBackend sim(c);
  HoclConfig hc = small(true, true, handover);
  hc.local_poll_ns = 1000;
  hc.max_spins = 10;  // a waiter gives up after ~10 us
  Result<Hocl> hr = Hocl::create(sim, hc);
  ASSERT_TRUE(hr.ok());
  const Hocl h = hr.value;
  const RemoteAddr guarded = sim.allocate(0, 64, 64);
  smart::Runtime rt(sim.config());
  Status st[3] = {Status::kFlushed, Status::kFlushed, Status::kFlushed};
  bool c_handed = false;
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    smart::Context ctx(rt, w);
    const uint32_t who = w.placement().coroutine;
    const Nanos start[3] = {0, 20'000, 29'000};
    co_await w.sleep(start[who] + 1);
    Result<Hocl::Grant> g = co_await h.lock(ctx, guarded);
    st[who] = g.status;
    if (!g.ok()) co_return;
    if (who == 0 && w.now() < 33'000) co_await w.sleep(33'000 - w.now());  // B gives up meanwhile
    if (who == 2) c_handed = g.value.handed_over;
    EXPECT_EQ(co_await h.unlock(ctx, g.value), Status::kOk);
  });
  RunStats rs = sim.run();
  EXPECT_EQ(rs.stalled, "");
  EXPECT_EQ(st[0], Status::kOk);
  EXPECT_EQ(st[1], Status::kRetryExhausted);
  EXPECT_EQ(st[2], Status::kOk);
  EXPECT_EQ(c_handed, handover);
  EXPECT_EQ(h.stats().gave_up, 1u);
  EXPECT_EQ(h.stats().handovers, handover ? 1u : 0u);
  EXPECT_EQ(sim.host_load(h.word_addr(0, h.index_of(guarded))) & h.lane_mask(h.index_of(guarded)), 0u);
}

TEST(Hocl, AbandonedTicketIsSkippedWithHandover) { abandoned_ticket_is_skipped(true); }
TEST(Hocl, AbandonedTicketIsSkippedWithoutHandover) { abandoned_ticket_is_skipped(false); }

TEST(Hocl, GivingUpUnderHeavyContentionKeepsCountsExact) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    SimBackend sim(cluster("sim", 2, 2, 8, 1, seed));
    HoclConfig hc = small(true, true, true);
    hc.max_spins = 4;  // most waiters give up
    hc.local_poll_ns = 50;
    CounterRun r = run_counters(sim, hc, 1, 15);
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.run.stalled, "");
    EXPECT_GT(r.failures, 0u);
    EXPECT_EQ(r.stats.gave_up, r.failures);
    EXPECT_GT(r.expected, 0u);
    EXPECT_EQ(r.counted, r.expected) << "seed " << seed;
    EXPECT_EQ(r.glt_taken, 0u);
  }
}

TEST(Hocl, SameSeedSameRun) {
  uint64_t hash[2] = {0, 0};
  HoclStats st[2];
  for (int i = 0; i < 2; ++i) {
    SimBackend sim(cluster("sim", 2, 1, 4, 2, 11));
    CounterRun r = run_counters(sim, small(true, true, true), 4, 10);
    expect_exclusive(r, "determinism");
    hash[i] = r.run.trace_hash;
    st[i] = r.stats;
  }
  EXPECT_EQ(hash[0], hash[1]);
  EXPECT_EQ(st[0].handovers, st[1].handovers);
  EXPECT_EQ(st[0].global_cas, st[1].global_cas);
}

TEST(Hocl, ExclusiveOnRealThreads) {
  for (bool hierarchical : {true, false}) {
    std::string err;
    std::unique_ptr<Backend> b = make_backend(cluster("threads", 2, 2, 4, 2, 1), &err);
    ASSERT_TRUE(b) << err;
    CounterRun r = run_counters(*b, small(true, hierarchical, true), 3, 200);
    expect_exclusive(r, hierarchical ? "threads hocl" : "threads flat");
    EXPECT_TRUE(r.on_chip);
    if (!hierarchical) {
      EXPECT_EQ(r.stats.handovers, 0u);
    }
  }
}

TEST(Hocl, ReleasingALockNotHeldIsAnInvariantViolation) {
  SimBackend sim(cluster("sim", 1, 1, 1, 1, 1));
  Result<Hocl> h = Hocl::create(sim, small(true, true, true));
  ASSERT_TRUE(h.ok());
  ThrowOnInvariant scope;
  Hocl::Grant g;  // never granted: the local lock is free
  Batch b;
  EXPECT_THROW(h.value.release_global(g, b), InvariantViolation);
  EXPECT_TRUE(b.empty());
}

TEST(Hocl, ConfigValidation) {
  EXPECT_EQ(HoclConfig{}.validate(), "");
  HoclConfig c;
  c.locks_per_node = 0;
  EXPECT_NE(c.validate().find("locks_per_node"), std::string::npos);
  c = {};
  c.locks_per_node = HoclConfig::kMaxLocksPerNode + 1;
  EXPECT_NE(c.validate(), "");
  c = {};
  c.max_spins = 0;
  EXPECT_NE(c.validate().find("max_spins"), std::string::npos);
  c = {};
  c.local_poll_ns = 0;
  EXPECT_NE(c.validate().find("local_poll_ns"), std::string::npos);
  c = {};
  c.max_handover = 256;
  EXPECT_NE(c.validate().find("max_handover"), std::string::npos);
  c.max_handover = 0;  // handover off
  EXPECT_EQ(c.validate(), "");
  SimBackend sim(cluster("sim", 1, 1, 1, 1, 1));
  c.max_spins = 0;
  EXPECT_EQ(Hocl::create(sim, c).status, Status::kBadLength);
}

}  // namespace
}  // namespace lw::locks
