// The map model: correct concurrent histories (overlapping puts, erases and
// gets, operations that gave up) pass; each violation kind is caught and
// explained; a large random linearizable history passes until one bug is
// injected.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "latchwork/base/random.h"
#include "latchwork/check/history.h"
#include "latchwork/check/models.h"
#include "check/model_test_util.h"

namespace lw {
namespace {

using model_test::first;
using model_test::violations;
using model_test::worker;
constexpr std::nullopt_t kAbsent = std::nullopt;

TEST(MapModel, SequentialHistoryPasses) {
  MapModel m;
  m.get(1, kAbsent, 0, 5, worker(1));
  m.put(1, 10, 10, 20, worker(0));
  m.get(1, 10, 30, 40, worker(1));
  m.put(1, 11, 50, 60, worker(0));
  m.get(1, 11, 70, 80, worker(1));
  m.erase(1, 90, 100, worker(0));
  m.get(1, kAbsent, 110, 120, worker(1));
  m.put(1, 12, 130, 140, worker(0));
  m.put(2, 20, 0, 10, worker(2));
  m.final_contents({{1, 12}, {2, 20}});
  EXPECT_EQ(m.size(), 9u);
  EXPECT_STREQ(m.name(), "map");
  auto v = violations(m);
  EXPECT_TRUE(v.empty()) << first(v);
}

TEST(MapModel, ConcurrentOperationsMayTakeEitherOrder) {
  // A get overlapping a put and an erase may see the old value, the new one,
  // or absent; so may the final contents after overlapping writes.
  // (The final put may land before or after the erase, too.)
  for (std::optional<uint64_t> seen : {std::optional<uint64_t>(10), std::optional<uint64_t>(11), std::optional<uint64_t>()})
    for (bool kept : {true, false}) {
      MapModel m;
      m.put(1, 10, 0, 10, worker(0));
      m.put(1, 11, 20, 60, worker(1));
      m.erase(1, 30, 70, worker(2));
      m.get(1, seen, 40, 50, worker(3));
      if (kept) m.final_contents({{1, 11}});
      else m.final_contents({});
      auto v = violations(m);
      EXPECT_TRUE(v.empty()) << first(v);
    }
  // Absent while the first put is in flight; touching intervals are concurrent.
  MapModel m;
  m.put(1, 10, 0, 30, worker(0));
  m.get(1, kAbsent, 10, 20, worker(1));
  m.get(1, kAbsent, 30, 40, worker(2));
  m.final_contents({{1, 10}});
  auto v = violations(m);
  EXPECT_TRUE(v.empty()) << first(v);
}

TEST(MapModel, OperationsThatGaveUpMayOrMayNotHaveActed) {
  {  // A put that gave up: its value may be read, and it may be missing.
    MapModel m;
    m.put(1, 10, 0, 10, worker(0), /*ok=*/false);
    m.get(1, 10, 20, 30, worker(1));
    m.put(2, 20, 0, 10, worker(0), false);
    m.get(2, kAbsent, 20, 30, worker(1));
    m.final_contents({{1, 10}});
    auto v = violations(m);
    EXPECT_TRUE(v.empty()) << first(v);
  }
  {  // An erase that gave up may explain an absent get and final.
    MapModel m;
    m.put(1, 10, 0, 10, worker(0));
    m.erase(1, 20, 30, worker(0), false);
    m.get(1, kAbsent, 40, 50, worker(1));
    m.final_contents({});
    auto v = violations(m);
    EXPECT_TRUE(v.empty()) << first(v);
  }
  {  // ...but does not make the value stale.
    MapModel m;
    m.put(1, 10, 0, 10, worker(0));
    m.erase(1, 20, 30, worker(0), false);
    m.get(1, 10, 40, 50, worker(1));
    m.final_contents({{1, 10}});
    auto v = violations(m);
    EXPECT_TRUE(v.empty()) << first(v);
  }
}

TEST(MapModel, UnknownAndFutureValues) {
  MapModel m;
  m.put(1, 10, 0, 10, worker(0));
  m.get(1, 77, 20, 30, worker(1));
  m.get(1, 20, 20, 30, worker(2));  // put to key 2, not 1
  m.put(2, 20, 0, 10, worker(0));
  m.get(3, 30, 0, 10, worker(3));
  m.put(3, 30, 20, 30, worker(0));
  auto v = violations(m);
  ASSERT_EQ(v.size(), 3u) << first(v);
  EXPECT_EQ(v[0].kind, "unknown-value");
  EXPECT_EQ(v[0].detail,
            "key 1: get by compute 1/0/0 during [20, 30] ns returning 0x4d, a value no put of the "
            "key stored");
  EXPECT_EQ(v[1].kind, "unknown-value");
  EXPECT_EQ(v[2].kind, "future-read");
  EXPECT_EQ(v[2].key, 3u);
}

TEST(MapModel, StaleReadOfAnOverwrittenValue) {
  MapModel m;
  m.put(1, 10, 0, 10, worker(0));
  m.put(1, 11, 20, 30, worker(1));
  m.get(1, 10, 40, 50, worker(2));
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "stale-read");
  EXPECT_EQ(v[0].start, 40u);
  EXPECT_EQ(v[0].detail,
            "key 1: get by compute 2/0/0 during [40, 50] ns returning 0xa, the value of the put 0xa by "
            "compute 0/0/0 during [0, 10] ns, but the put 0xb by compute 1/0/0 during [20, 30] ns "
            "overwrote it before the get began");
}

TEST(MapModel, StaleReadWitnessedByAnotherGet) {
  // The overwriting put gave up, but a get saw its value: it took effect.
  MapModel m;
  m.put(1, 10, 0, 10, worker(0));
  m.put(1, 11, 20, 30, worker(1), false);
  m.get(1, 11, 35, 38, worker(3));
  m.get(1, 10, 40, 50, worker(2));
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "stale-read");
  EXPECT_NE(v[0].detail.find("its value was read by the get by compute 3/0/0"), std::string::npos)
      << v[0].detail;
}

TEST(MapModel, PresentWhenCertainlyErased) {
  MapModel m;
  m.put(1, 10, 0, 10, worker(0));
  m.erase(1, 20, 30, worker(1));
  m.get(1, 10, 40, 50, worker(2));
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, "present-when-absent");
  EXPECT_NE(v[0].detail.find("erase by compute 1/0/0 during [20, 30] ns erased it"), std::string::npos)
      << v[0].detail;
}

TEST(MapModel, AbsentWhenCertainlyPresent) {
  MapModel m;
  m.put(1, 10, 10, 20, worker(0));
  m.erase(1, 0, 5, worker(1));      // ended before the put began: cannot intervene
  m.erase(1, 60, 70, worker(1));    // began after the get ended: cannot either
  m.get(1, kAbsent, 40, 50, worker(2));
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u) << first(v);
  EXPECT_EQ(v[0].kind, "absent-when-present");
  EXPECT_EQ(v[0].detail,
            "key 1: get by compute 2/0/0 during [40, 50] ns returning absent, but the put 0xa by "
            "compute 0/0/0 during [10, 20] ns took effect before the get began and no erase could "
            "follow it (the latest-ending erase begun in time: erase by compute 1/0/0 during [0, 5] ns)");
  // An erase overlapping the put may come after it.
  MapModel overlapping;
  overlapping.put(1, 10, 10, 20, worker(0));
  overlapping.erase(1, 0, 15, worker(1));
  overlapping.get(1, kAbsent, 40, 50, worker(2));
  v = violations(overlapping);
  EXPECT_TRUE(v.empty()) << first(v);
  // So may one that gave up.
  m.erase(1, 25, 30, worker(3), false);
  v = violations(m);
  EXPECT_TRUE(v.empty()) << first(v);
}

TEST(MapModel, FinalContents) {
  MapModel m;
  m.put(1, 10, 0, 10, worker(0));
  m.put(1, 11, 20, 30, worker(1));   // key 1 ends 0xa: the later put was lost
  m.put(2, 20, 0, 10, worker(0));
  m.erase(2, 20, 30, worker(1));     // key 2 ends 0x14: the erase was lost
  m.put(3, 30, 0, 10, worker(0));    // key 3 ends absent: the put was lost
  m.put(4, 40, 0, 10, worker(0));    // key 4 is listed twice
  m.final_contents({{1, 10}, {2, 20}, {4, 40}, {4, 40}, {5, 50}});  // key 5: never put
  auto v = violations(m);
  ASSERT_EQ(v.size(), 5u) << first(v);
  EXPECT_EQ(v[0].kind, "lost-update");
  EXPECT_EQ(v[0].detail,
            "key 1: final value 0xa (put 0xa by compute 0/0/0 during [0, 10] ns), but the put 0xb by "
            "compute 1/0/0 during [20, 30] ns took effect after it");
  EXPECT_EQ(v[1].kind, "lost-erase");
  EXPECT_EQ(v[2].kind, "lost-update");
  EXPECT_EQ(v[2].key, 3u);
  EXPECT_NE(v[2].detail.find("absent from the final contents"), std::string::npos) << v[2].detail;
  EXPECT_EQ(v[3].kind, "duplicate-key");
  EXPECT_EQ(v[4].kind, "unknown-value");
  EXPECT_EQ(v[4].key, 5u);
  for (const ModelViolation& x : v) EXPECT_TRUE(x.final_state) << x.detail;
}

// A linearizable map: each operation takes effect at a unique point;
// intervals extend randomly around it; some puts and erases give up (having
// taken effect or not).
struct RandomMap {
  struct Op { char kind; uint64_t key; std::optional<uint64_t> value; Nanos start, end; Placement who; bool ok; };
  std::vector<Op> ops;
  std::map<uint64_t, uint64_t> final;

  RandomMap(uint64_t seed, size_t n, uint64_t keys) {
    Rng rng(seed);
    uint64_t next = 1;
    for (size_t i = 0; i < n; ++i) {
      Op o;
      o.key = rng.below(keys);
      const Nanos at = i * 100 + 50;
      o.start = at - rng.below(2000) % at;
      o.end = at + rng.below(2000);
      o.who = worker(static_cast<uint32_t>(rng.below(8)), static_cast<uint32_t>(rng.below(4)));
      o.ok = true;
      const uint64_t dice = rng.below(10);
      auto it = final.find(o.key);
      if (dice < 5) {
        o.kind = 'g';
        if (it != final.end()) o.value = it->second;
      } else {
        o.kind = dice < 8 ? 'p' : 'e';
        if (o.kind == 'p') o.value = next++;
        o.ok = !rng.chance(0.05);
        if (o.ok || rng.chance(0.5)) {  // took effect
          if (o.kind == 'p') final[o.key] = *o.value;
          else if (it != final.end()) final.erase(it);
        }
      }
      ops.push_back(o);
    }
  }
  void record(MapModel* m) const {
    for (const Op& o : ops) {
      if (o.kind == 'g') m->get(o.key, o.value, o.start, o.end, o.who);
      else if (o.kind == 'p') m->put(o.key, *o.value, o.start, o.end, o.who, o.ok);
      else m->erase(o.key, o.start, o.end, o.who, o.ok);
    }
    m->final_contents({final.begin(), final.end()});
  }
};

TEST(MapModel, LargeRandomLinearizableHistoryPasses) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    RandomMap h(seed, 100000, 16);
    MapModel m;
    h.record(&m);
    auto v = violations(m);
    EXPECT_TRUE(v.empty()) << "seed " << seed << ": " << v.size() << " violations, first: " << first(v);
  }
}

TEST(MapModel, InjectedOverwrittenValueIsCaught) {
  RandomMap h(21, 20000, 8);
  // A put p, a completed write w (put or erase) that began after p ended, and
  // a get that began after w ended: the get returns p's value.
  const auto& ops = h.ops;
  size_t injected = ops.size(), writer = 0, overwriter = 0;
  for (size_t i = 0; i < ops.size() && injected == ops.size(); ++i) {
    if (ops[i].kind != 'p' || !ops[i].ok) continue;  // (a put that gave up would gain a witness)
    for (size_t j = i + 1; j < ops.size() && j < i + 500 && injected == ops.size(); ++j) {
      if (ops[j].kind == 'g' || !ops[j].ok || ops[j].key != ops[i].key || ops[j].start <= ops[i].end) continue;
      for (size_t k = j + 1; k < ops.size() && k < j + 500; ++k)
        if (ops[k].kind == 'g' && ops[k].key == ops[i].key && ops[k].start > ops[j].end) {
          injected = k, writer = i, overwriter = j;
          break;
        }
    }
  }
  ASSERT_LT(injected, ops.size());
  h.ops[injected].value = ops[writer].value;
  MapModel m;
  h.record(&m);
  auto v = violations(m);
  ASSERT_EQ(v.size(), 1u) << first(v);
  EXPECT_EQ(v[0].kind, ops[overwriter].kind == 'p' ? "stale-read" : "present-when-absent") << v[0].detail;
  EXPECT_EQ(v[0].start, ops[injected].start);
}

TEST(MapModel, InjectedLostPutInTheFinalContentsIsCaught) {
  RandomMap h(22, 20000, 8);
  // The final contents keep an older value of a key whose last put completed
  // after the older put ended.
  const auto& ops = h.ops;
  bool injected = false;
  for (const auto& [key, value] : h.final) {
    const RandomMap::Op* last = nullptr;
    for (const auto& o : ops)
      if (o.kind == 'p' && o.value == value) last = &o;
    if (!last->ok) continue;
    for (const auto& o : ops)
      if (o.kind == 'p' && o.key == key && o.end < last->start) {
        h.final[key] = *o.value;
        injected = true;
        break;
      }
    if (injected) {
      MapModel m;
      h.record(&m);
      auto v = violations(m);
      ASSERT_EQ(v.size(), 1u) << first(v);
      EXPECT_EQ(v[0].kind, "lost-update") << v[0].detail;
      EXPECT_EQ(v[0].key, key);
      break;
    }
  }
  EXPECT_TRUE(injected);
}

TEST(MapModel, InjectedMissingKeyIsCaught) {
  // One completed put and no erase on key 0 of the random history; drop it
  // from the final contents and make a late get miss it too.
  RandomMap h(23, 5000, 8);
  std::erase_if(h.ops, [](const RandomMap::Op& o) { return o.key == 0; });
  RandomMap::Op put{'p', 0, 999999, 100, 200, worker(0), true};
  RandomMap::Op get{'g', 0, std::nullopt, 300, 400, worker(1), true};
  h.ops.push_back(put);
  h.ops.push_back(get);
  h.final.erase(0);
  MapModel m;
  h.record(&m);
  auto v = violations(m);
  ASSERT_EQ(v.size(), 2u) << first(v);
  EXPECT_EQ(v[0].kind, "absent-when-present");
  EXPECT_EQ(v[1].kind, "lost-update");
}

}  // namespace
}  // namespace lw
