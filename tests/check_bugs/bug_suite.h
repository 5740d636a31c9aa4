// Issue 12 "Must show": small buggy programs written as a user of the library
// would, each next to a correct twin that fixes exactly the bug. Each test
// asserts, through the public check driver with default Options (only the
// shape chosen per program):
//   (i)   the buggy program is found within 1,000 seeds,
//   (ii)  its finding's ablation explanation is the relaxation set stated in
//         the program's comment (or "protocol bug": it fails under sequential;
//         or "timing race": it fails under sequential only with wider jitter),
//   (iii) the twin is clean over 1,000 seeds.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "latchwork/check/driver.h"
#include "latchwork/check/explore_workload.h"

namespace lw::check::bugs {

inline constexpr uint64_t kFirstSeed = 1;
inline constexpr uint64_t kSeeds = 1000;

// A value unique to one write: worker in the high half, its operation in the low.
inline uint64_t unique_value(uint32_t worker, uint32_t op) {
  return (uint64_t{worker} + 1) << 32 | (uint64_t{op} + 1);
}

// Payloads whose every word is one value; whole() tells whether a read one is.
inline void fill(void* p, size_t bytes, uint64_t v) {
  for (size_t at = 0; at + 8 <= bytes; at += 8) std::memcpy(static_cast<char*>(p) + at, &v, 8);
}
inline bool whole(const void* p, size_t bytes, uint64_t* v) {
  std::memcpy(v, p, 8);
  for (size_t at = 8; at + 8 <= bytes; at += 8) {
    uint64_t x;
    std::memcpy(&x, static_cast<const char*>(p) + at, 8);
    if (x != *v) return false;
  }
  return true;
}

// The value an awaited atomic or CPU access returned (its old value).
inline uint64_t value_of(const Result<uint64_t>& r) { return r.value; }

// Register history records (SeedRun::registers(); every key starts at 0).
inline void record_read(SeedRun& run, const Worker& w, uint64_t key, Nanos start, const void* payload,
                        size_t bytes) {
  HistoryOp op;
  op.kind = HistoryOp::Kind::kRead;
  op.key = key;
  op.start = start;
  op.end = w.now();
  op.whole = whole(payload, bytes, &op.value);
  op.who = w.placement();
  run.registers().record(op);
}
inline void record_write(SeedRun& run, const Worker& w, uint64_t key, Nanos start, uint64_t value,
                         bool ok = true) {
  HistoryOp op;
  op.kind = HistoryOp::Kind::kWrite;
  op.key = key;
  op.start = start;
  op.end = w.now();
  op.value = value;
  op.ok = ok;
  op.who = w.placement();
  run.registers().record(op);
}

// An exclusive latch word: CAS(0 -> holder) with backoff, at most
// `attempts` tries. Where the latch is not the bug, programs take it this way.
inline Task<bool> lock(Worker& w, RemoteAddr latch, uint64_t holder, uint32_t attempts = 2000) {
  Nanos backoff = 200;
  for (uint32_t i = 0; i < attempts; ++i) {
    Result<uint64_t> r = co_await w.cas(latch, 0, holder);
    if (r.ok() && r.value == 0) co_return true;
    co_await w.sleep(backoff + w.rng().below(backoff));
    backoff = std::min<Nanos>(backoff * 2, 4000);
  }
  co_return false;
}

// --- the three assertions ----------------------------------------------------

inline Options options(const Shape& shape) {
  Options o;  // default cluster (sim, spec profile) and swarm
  o.shape = shape;
  o.first_seed = kFirstSeed;
  o.seeds = kSeeds;
  o.stop_at_first = true;
  return o;
}

template <typename W>
WorkloadFactory factory() {
  return [] { return std::make_unique<W>(); };
}

// The expected explanation of a finding.
struct Expect {
  std::vector<std::string> necessary;  // relaxations whose removal alone makes it vanish
  bool protocol_bug = false;           // it happens under `sequential`
  bool timing_race = false;            // ... only with wider jitter
  static Expect protocol() { return {{}, true, false}; }
  static Expect race() { return {{}, false, true}; }
  static Expect needs(std::vector<std::string> r) { return {std::move(r), false, false}; }
};

// "torn_read" (HistoryViolation) and "torn-read" (driver) name one kind.
inline std::string norm(std::string k) {
  std::replace(k.begin(), k.end(), '_', '-');
  return k;
}

inline std::string join(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " + ") + x;
  return s.empty() ? "(none)" : s;
}

// (i) and (ii): found within kSeeds, explained as expected. `kinds`: the
// finding kinds that show this bug (the first failure must be one of them).
inline void expect_found(const WorkloadFactory& f, const Shape& shape, const Expect& e,
                         const std::vector<std::string>& kinds, const char* name) {
  const Options o = options(shape);
  ASSERT_EQ(o.validate(), "");
  const Report r = run(f, o);
  ASSERT_GT(r.failing_seeds, 0u) << name << ": not found in " << r.seeds_run << " seeds\n" << r.summary();
  const Finding* first = nullptr;
  for (const Finding& x : r.findings)
    if (x.failure && first == nullptr) first = &x;
  ASSERT_NE(first, nullptr) << r.summary();
  bool known = false;
  for (const std::string& k : kinds) known = known || norm(k) == norm(first->kind);
  EXPECT_TRUE(known) << name << ": unexpected finding " << first->summary();
  ASSERT_TRUE(first->explained) << first->summary();
  EXPECT_EQ(first->protocol_bug, e.protocol_bug) << name << ": " << first->summary();
  EXPECT_EQ(first->timing_race, e.timing_race) << name << ": " << first->summary();
  EXPECT_EQ(join(first->necessary), join(e.necessary)) << name << ": " << first->summary();
  const uint64_t to_first = r.first_failing_seed - o.first_seed + 1;
  std::printf("[bug-suite] %s: first hit seed %llu (%llu seeds, %.3f s), %s: %s\n", name,
              static_cast<unsigned long long>(r.first_failing_seed),
              static_cast<unsigned long long>(to_first), r.seconds_to_first_failure,
              first->kind.c_str(),
              first->protocol_bug  ? "protocol bug"
              : first->timing_race ? "timing-dependent protocol race"
                                   : join(first->necessary).c_str());
  std::printf("[bug-suite]   plan: %s; sufficient alone: %s%s%s\n", first->plan.describe().c_str(),
              join(first->sufficient).c_str(), first->explain_note.empty() ? "" : "; ",
              first->explain_note.c_str());
  for (const Finding& x : r.findings) std::printf("[bug-suite]   %s\n", x.summary().c_str());
  std::printf("[bug-suite]   touched (addressed=%d): %s\n", first->addressed ? 1 : 0, join(first->touched).c_str());
  for (const std::string& c : first->causes) std::printf("[bug-suite]   cause: %s\n", c.c_str());
}

// (iii): the twin is clean over kSeeds.
inline void expect_clean(const WorkloadFactory& f, const Shape& shape, const char* name) {
  const Options o = options(shape);
  ASSERT_EQ(o.validate(), "");
  const Report r = run(f, o);
  EXPECT_EQ(r.seeds_run, kSeeds) << name;
  EXPECT_GT(r.ops, 0u) << name;
  EXPECT_TRUE(r.clean()) << name << ": the twin failed\n" << r.summary();
  std::printf("[bug-suite] %s twin: %llu seeds clean=%d, %llu ops, %.3f s\n", name,
              static_cast<unsigned long long>(r.seeds_run), r.clean() ? 1 : 0,
              static_cast<unsigned long long>(r.ops), r.wall_seconds);
}

// --- exhaustive exploration (check/explore_workload.h) -------------------------
// At a small shape (2 workers, 1-2 operations) and program seeds 1..seeds:
// the buggy program is violated (by one of `kinds`), its twin proved.

inline WorkloadExploreOptions explore_options(const Shape& shape, uint64_t seeds) {
  WorkloadExploreOptions o;  // default cluster: spec profile, every relaxation a choice
  o.shape = shape;
  o.seeds = seeds;
  return o;
}

inline void expect_violated(const WorkloadFactory& f, const Shape& shape, uint64_t seeds,
                            const std::vector<std::string>& kinds, const char* name) {
  const WorkloadExploreOptions o = explore_options(shape, seeds);
  ASSERT_EQ(o.validate(), "");
  const WorkloadExploreResult r = explore_workload(f, o);
  std::printf("[explore] %s: %s (%.2f s)\n", name, r.verdict_line().c_str(), r.wall_seconds);
  ASSERT_TRUE(r.violated()) << name << ": " << r.summary();
  bool known = false;
  for (const std::string& k : kinds) known = known || norm(r.last.violation).find(norm(k)) != std::string::npos;
  EXPECT_TRUE(known) << name << ": unexpected violation\n" << r.summary();
  EXPECT_FALSE(r.last.trace.empty()) << name;
}

inline void expect_proved(const WorkloadFactory& f, const Shape& shape, uint64_t seeds, const char* name) {
  const WorkloadExploreOptions o = explore_options(shape, seeds);
  ASSERT_EQ(o.validate(), "");
  const WorkloadExploreResult r = explore_workload(f, o);
  std::printf("[explore] %s twin: %s (%.2f s)\n", name, r.verdict_line().c_str(), r.wall_seconds);
  EXPECT_TRUE(r.proved()) << name << ": " << r.summary();
  EXPECT_EQ(r.seeds_explored, seeds) << name;
  EXPECT_GT(r.terminal_states, 0u) << name;
}

}  // namespace lw::check::bugs
