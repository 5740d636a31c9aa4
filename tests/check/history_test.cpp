// The history checker: correct histories pass, each violation kind is found
// and explained, and a large random linearizable history passes until one
// stale read is injected.
#include "latchwork/check/history.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "latchwork/base/random.h"

namespace lw {
namespace {

using K = HistoryViolation::Kind;

Placement worker(uint32_t node, uint32_t coroutine = 0) {
  return {Placement::Kind::kCompute, node, 0, coroutine};
}

HistoryOp write(uint64_t key, uint64_t v, Nanos s, Nanos e, bool ok = true, uint32_t who = 0) {
  HistoryOp op;
  op.kind = HistoryOp::Kind::kWrite;
  op.key = key;
  op.value = v;
  op.start = s;
  op.end = e;
  op.ok = ok;
  op.who = worker(who);
  return op;
}

HistoryOp read(uint64_t key, uint64_t v, Nanos s, Nanos e, uint32_t who = 1) {
  HistoryOp op;
  op.key = key;
  op.value = v;
  op.start = s;
  op.end = e;
  op.who = worker(who);
  return op;
}

std::vector<HistoryViolation> check(std::initializer_list<HistoryOp> ops, uint64_t initial = 0) {
  History h;
  for (const HistoryOp& op : ops) h.record(op);
  return h.check(initial);
}

TEST(History, SequentialHistoryPasses) {
  auto v = check({read(1, 0, 0, 10), write(1, 5, 20, 30), read(1, 5, 40, 50), write(1, 6, 60, 70),
                  read(1, 6, 80, 90), read(2, 0, 100, 110), write(2, 9, 120, 130)});
  EXPECT_TRUE(v.empty()) << v[0].detail;
}

TEST(History, TornRead) {
  HistoryOp r = read(3, 0, 10, 20);
  r.whole = false;
  auto v = check({write(3, 1, 0, 5), r});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, K::kTornRead);
  EXPECT_EQ(v[0].key, 3u);
  EXPECT_NE(v[0].detail.find("torn"), std::string::npos) << v[0].detail;
}

TEST(History, UnknownValue) {
  auto v = check({write(4, 1, 0, 5), read(4, 77, 10, 20)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, K::kUnknownValue);
  EXPECT_NE(v[0].detail.find("0x4d"), std::string::npos) << v[0].detail;
}

TEST(History, FutureRead) {
  auto v = check({read(5, 8, 10, 20), write(5, 8, 30, 40)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, K::kFutureRead);
  EXPECT_EQ(v[0].start, 10u);
  EXPECT_NE(v[0].detail.find("began after the read ended"), std::string::npos) << v[0].detail;
}

TEST(History, StaleReadNamesTheOverwritingWrite) {
  auto v = check({write(7, 0x100000003, 100, 300), write(7, 0x200000001, 500, 900),
                  read(7, 0x100000003, 1200, 3400, 2)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, K::kStaleRead);
  EXPECT_EQ(v[0].detail,
            "read of key 7 by compute 2/0/0 during [1200, 3400] ns returned value 0x100000003 "
            "written during [100, 300] ns by compute 0/0/0, but write 0x200000001 by compute 0/0/0 "
            "[500, 900] ns overwrote it before the read began");
}

TEST(History, InitialValueAfterACompletedWriteIsStale) {
  auto v = check({write(1, 5, 0, 10), read(1, 0, 20, 30)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, K::kStaleRead);
  EXPECT_NE(v[0].detail.find("initial value"), std::string::npos) << v[0].detail;
  // A write starting at time 0 counts too; and a custom initial value.
  v = check({write(1, 5, 0, 10), read(1, 42, 20, 30)}, 42);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, K::kStaleRead);
}

TEST(History, ReadOverlappingAWriteMayReturnEither) {
  EXPECT_TRUE(check({write(1, 5, 0, 10), write(1, 6, 20, 40), read(1, 5, 30, 50)}).empty());
  EXPECT_TRUE(check({write(1, 5, 0, 10), write(1, 6, 20, 40), read(1, 6, 30, 50)}).empty());
  // Overlapping writes: either order, so a read after both may see either.
  EXPECT_TRUE(check({write(1, 5, 0, 30), write(1, 6, 20, 40), read(1, 5, 50, 60)}).empty());
  EXPECT_TRUE(check({write(1, 5, 0, 30), write(1, 6, 20, 40), read(1, 6, 50, 60)}).empty());
  // The initial value while the first write is in flight.
  EXPECT_TRUE(check({write(1, 5, 0, 30), read(1, 0, 10, 20)}).empty());
}

TEST(History, WritesThatGaveUpMayOrMayNotHaveActed) {
  // Its value may be read...
  EXPECT_TRUE(check({write(1, 5, 0, 10, /*ok=*/false), read(1, 5, 20, 30)}).empty());
  // ...and it does not make older values stale.
  EXPECT_TRUE(check({write(1, 5, 0, 10), write(1, 6, 20, 30, false), read(1, 5, 40, 50)}).empty());
  // Unless a read saw it: then it took effect.
  auto v = check({write(1, 5, 0, 10), write(1, 6, 20, 30, false), read(1, 6, 40, 50, 2),
                  read(1, 5, 60, 70, 3)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, K::kStaleRead);
  EXPECT_EQ(v[0].start, 60u);
  EXPECT_NE(v[0].detail.find("its value was read by compute 2/0/0"), std::string::npos)
      << v[0].detail;
}

TEST(History, NewOldInversionBetweenReadsIsStale) {
  // w(6) overlaps the first read, which sees it; a later read sees 5 again.
  auto v = check({write(1, 5, 0, 10), write(1, 6, 20, 100), read(1, 6, 30, 40, 2),
                  read(1, 5, 50, 60, 3)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, K::kStaleRead);
}

TEST(History, OperationsThatGaveUpAreNotChecked) {
  HistoryOp r = read(1, 99, 0, 10);
  r.ok = false;
  r.whole = false;
  EXPECT_TRUE(check({r}).empty());
}

TEST(History, OverlappingHolds) {
  History h;
  h.hold({1, 0, 100, worker(0)});
  h.hold({1, 100, 200, worker(1)});  // touching is fine
  h.hold({1, 150, 250, worker(0)});  // overlaps worker 1's hold
  h.hold({2, 0, 1000, worker(0)});
  h.hold({2, 10, 20, worker(0)});    // the same worker (re-entrant record) is not a race
  h.hold({2, 30, 40, worker(1)});    // inside worker 0's long hold
  auto v = h.check();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].kind, K::kOverlappingHolds);
  EXPECT_EQ(v[0].key, 1u);
  EXPECT_EQ(v[0].start, 150u);
  EXPECT_EQ(v[0].detail,
            "exclusive latch of key 1 held by compute 0/0/0 during [150, 250] ns while "
            "compute 1/0/0 held it during [100, 200] ns");
  EXPECT_EQ(v[1].key, 2u);
  EXPECT_EQ(v[1].start, 30u);
}

TEST(History, RecordsFromManyThreads) {
  History h;
  std::vector<std::thread> ts;
  for (uint32_t t = 0; t < 4; ++t)
    ts.emplace_back([&h, t] {
      for (uint64_t i = 0; i < 1000; ++i) h.record(write(t, (uint64_t{t} << 32) | (i + 1), i * 10, i * 10 + 5));
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(h.size(), 4000u);
  EXPECT_TRUE(h.check().empty());
}

// A linearizable register per key: each operation takes effect at a random
// instant inside its interval (the linearization points are unique), reads
// return the latest write before their point.
std::vector<HistoryOp> random_history(uint64_t seed, size_t n, uint64_t keys) {
  Rng rng(seed);
  struct Point { Nanos at; HistoryOp op; };
  std::vector<Point> points;
  for (size_t i = 0; i < n; ++i) {
    HistoryOp op;
    op.key = rng.below(keys);
    op.kind = rng.below(3) == 0 ? HistoryOp::Kind::kWrite : HistoryOp::Kind::kRead;
    op.who = worker(static_cast<uint32_t>(rng.below(8)), static_cast<uint32_t>(rng.below(4)));
    const Nanos at = i * 100 + 50;  // unique points, in order
    op.start = at - rng.below(2000) % at;
    op.end = at + rng.below(2000);
    points.push_back({at, op});
  }
  std::vector<uint64_t> current(keys, 0);
  std::vector<HistoryOp> out;
  uint64_t next = 1;
  for (Point& p : points) {
    if (p.op.kind == HistoryOp::Kind::kWrite) {
      p.op.value = (p.op.key << 40) | next++;
      current[p.op.key] = p.op.value;
    } else {
      p.op.value = current[p.op.key];
    }
    out.push_back(p.op);
  }
  return out;
}

TEST(History, LargeRandomLinearizableHistoryPasses) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    auto ops = random_history(seed, 100000, 16);
    History h;
    for (const HistoryOp& op : ops) h.record(op);
    auto v = h.check();
    EXPECT_TRUE(v.empty()) << "seed " << seed << ": " << v.size() << " violations, first: "
                           << v[0].detail;
  }
}

TEST(History, InjectedStaleReadIsCaught) {
  auto ops = random_history(7, 100000, 16);
  // Find a key with two writes that do not overlap, then a read starting
  // after the second ended; make it return the first write's value.
  History h;
  size_t injected = ops.size();
  for (size_t i = 0; i < ops.size() && injected == ops.size(); ++i) {
    if (ops[i].kind != HistoryOp::Kind::kWrite) continue;
    for (size_t j = i + 1; j < ops.size() && j < i + 2000 && injected == ops.size(); ++j) {
      if (ops[j].kind != HistoryOp::Kind::kWrite || ops[j].key != ops[i].key ||
          ops[j].start <= ops[i].end)
        continue;
      for (size_t k = j + 1; k < ops.size() && k < j + 2000; ++k) {
        if (ops[k].kind == HistoryOp::Kind::kRead && ops[k].key == ops[i].key &&
            ops[k].start > ops[j].end) {
          ops[k].value = ops[i].value;
          injected = k;
          break;
        }
      }
    }
  }
  ASSERT_LT(injected, ops.size());
  for (const HistoryOp& op : ops) h.record(op);
  auto v = h.check();
  ASSERT_EQ(v.size(), 1u) << v[0].detail;
  EXPECT_EQ(v[0].kind, K::kStaleRead);
  EXPECT_EQ(v[0].start, ops[injected].start);
  EXPECT_EQ(v[0].key, ops[injected].key);
}

// As a HistoryModel ("register"): the same violations, hyphenated kinds,
// against set_initial()'s value; check(0) still compiles.
TEST(History, IsAHistoryModel) {
  History h;
  h.record(write(1, 5, 0, 10));
  h.record(read(1, 7, 20, 30));
  h.hold({2, 0, 100, worker(0)});
  h.hold({2, 50, 150, worker(1)});
  const HistoryModel& m = h;
  EXPECT_STREQ(m.name(), "register");
  EXPECT_EQ(m.size(), 2u);
  std::vector<ModelViolation> v;
  m.check(&v);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].kind, "unknown-value");
  EXPECT_EQ(v[0].key, 1u);
  EXPECT_EQ(v[0].detail, h.check(0)[0].detail);
  EXPECT_EQ(v[1].kind, "overlapping-holds");
  h.set_initial(7);
  v.clear();
  m.check(&v);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].kind, "stale-read");  // 7 is now the initial value, overwritten by 5
  EXPECT_EQ(h.check(7u).size(), 2u);
}

}  // namespace
}  // namespace lw
