// The Txn API driven step by step from one coroutine: interleavings that
// must abort, locks released by abort(), versions installed.
#include <gtest/gtest.h>

#include "latchwork/backends.h"
#include "latchwork/txn/txn.h"
#include "txn/bank.h"

namespace lw::txn {
namespace {

struct Rig {
  std::unique_ptr<Backend> b;
  std::unique_ptr<testing::Bank> bank;
  std::unique_ptr<Store> store;
  std::unique_ptr<Engine> engine;

  explicit Rig(const std::string& design, uint32_t nodes = 3, const std::string& profile = "spec") {
    DesignConfig d;
    EXPECT_TRUE(design_preset(design, &d));
    ClusterConfig c;
    EXPECT_EQ(c.set_profile(profile), "");
    c.memory_nodes = nodes;
    c.memory_node_threads = 1;
    c.memory_node_bytes = 16 << 20;
    std::string err;
    b = make_backend(c, &err);
    EXPECT_TRUE(b) << err;
    bank = std::make_unique<testing::Bank>(8, 100);
    StoreLoader l;
    bank->load(l);
    StoreOptions o;
    o.nodes = nodes;
    o.coordinators = 4;
    store = Store::build(*b, bank->tables(), [this](TableId t, uint64_t k, uint32_t n) { return bank->home(t, k, n); },
                         l, o, &err);
    EXPECT_TRUE(store) << err;
    Engine::Options eo;
    eo.design = d;
    engine = Engine::create(*b, *store, eo, &err);
    EXPECT_TRUE(engine) << err;
  }
  Placement where() const {
    return engine->design().disaggregated ? Placement{Placement::Kind::kCompute, 0, 0, 0}
                                          : Placement{Placement::Kind::kMemory, 0, 0, 0};
  }
  int64_t balance(uint64_t key, uint32_t replica = 0, uint64_t* version = nullptr) const {
    std::vector<std::byte> p(100);
    RecordView v;
    EXPECT_TRUE(store->host_read(0, key, replica, &v, p));
    EXPECT_EQ(v.lock, 0u);
    if (version) *version = v.version;
    return testing::Bank::decode(p);
  }
};

// T1 reads an account, T2 commits a write of it, T1's commit must abort:
// in Validation (its write set's version changed), never losing T2's write.
TEST(TxnApi, StaleWriteAbortsInValidation) {
  for (const char* design : {"drtmh", "farm", "drtmr", "fasst", "ford", "smart-dtx"}) {
    Rig rig(design);
    TxnStatus first = TxnStatus::kOk, second = TxnStatus::kOk;
    Phase phase = Phase::kCount;
    rig.b->spawn(rig.where(), [&](Worker& w) -> Task<void> {
      Txn t1(*rig.engine, w, 0), t2(*rig.engine, w, 1);
      t1.begin(false);
      const RecordId a = t1.read_for_update(0, 4);
      EXPECT_EQ(co_await t1.fetch(), TxnStatus::kOk);
      if (rig.engine->design().lock_at_execution) {
        // FaSST-OCC and FORD locked the record in fetch(): T2 cannot read it.
        t2.begin(false);
        t2.read_for_update(0, 4);
        second = co_await t2.fetch();
        testing::Bank::encode(testing::Bank::decode(t1.value(a)) + 5, t1.update(a));
        first = co_await t1.commit();
      } else {
        t2.begin(false);
        const RecordId b = t2.read_for_update(0, 4);
        EXPECT_EQ(co_await t2.fetch(), TxnStatus::kOk);
        testing::Bank::encode(testing::Bank::decode(t2.value(b)) + 7, t2.update(b));
        second = co_await t2.commit();
        testing::Bank::encode(testing::Bank::decode(t1.value(a)) + 5, t1.update(a));
        first = co_await t1.commit();
        phase = t1.abort_phase();
      }
      EXPECT_EQ(co_await t1.drain(), Status::kOk);
      EXPECT_EQ(co_await t2.drain(), Status::kOk);
    });
    rig.b->run();
    uint64_t v = 0;
    if (rig.engine->design().lock_at_execution) {
      EXPECT_EQ(second, TxnStatus::kAborted) << design;
      EXPECT_EQ(first, TxnStatus::kOk) << design;
      EXPECT_EQ(rig.balance(4, 0, &v), 1005) << design;
    } else {
      EXPECT_EQ(second, TxnStatus::kOk) << design;
      EXPECT_EQ(first, TxnStatus::kAborted) << design;
      EXPECT_EQ(phase, Phase::kValidate) << design;
      EXPECT_EQ(rig.balance(4, 0, &v), 1007) << design;
    }
    EXPECT_EQ(v, 1u);
    for (uint32_t r = 1; r < rig.store->replicas(); ++r) {
      uint64_t vr = 0;
      EXPECT_EQ(rig.balance(4, r, &vr), rig.balance(4)) << design << " replica " << r;
      EXPECT_EQ(vr, 1u);
    }
  }
}

// A read-only transaction whose read set changed before its validation aborts.
TEST(TxnApi, ReadOnlyValidationSeesAChange) {
  for (const char* design : {"drtmh", "fasst", "ford"}) {
    Rig rig(design);
    TxnStatus ro = TxnStatus::kOk;
    rig.b->spawn(rig.where(), [&](Worker& w) -> Task<void> {
      Txn t1(*rig.engine, w, 0), t2(*rig.engine, w, 1);
      t1.begin(true);
      t1.read(0, 1);
      t1.read(0, 2);
      EXPECT_EQ(co_await t1.fetch(), TxnStatus::kOk);
      t2.begin(false);
      const RecordId b = t2.read_for_update(0, 2);
      EXPECT_EQ(co_await t2.fetch(), TxnStatus::kOk);
      testing::Bank::encode(1, t2.update(b));
      EXPECT_EQ(co_await t2.commit(), TxnStatus::kOk);
      ro = co_await t1.commit();
      EXPECT_EQ(co_await t2.drain(), Status::kOk);
    });
    rig.b->run();
    EXPECT_EQ(ro, TxnStatus::kAborted) << design;
  }
}

// abort() after a locking fetch() releases the locks; the record stays as it was.
TEST(TxnApi, UserAbortReleasesExecutionLocks) {
  for (const char* design : {"fasst", "ford"}) {
    Rig rig(design);
    rig.b->spawn(rig.where(), [&](Worker& w) -> Task<void> {
      Txn t(*rig.engine, w, 0);
      for (int round = 0; round < 3; ++round) {
        t.begin(false);
        const RecordId a = t.read_for_update(0, 3);
        t.read_for_update(0, 6);
        EXPECT_EQ(co_await t.fetch(), TxnStatus::kOk) << round;
        testing::Bank::encode(0, t.update(a));
        co_await t.abort();
        EXPECT_EQ(t.status(), TxnStatus::kOk);
      }
      EXPECT_EQ(co_await t.drain(), Status::kOk);
    });
    rig.b->run();
    uint64_t v = 1;
    EXPECT_EQ(rig.balance(3, 0, &v), 1000) << design;
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(rig.balance(6), 1000) << design;
  }
}

// An index whose probe chains would not fit max_probe gets more buckets.
TEST(TxnStoreBuild, IndexGrowsToFitMaxProbe) {
  ClusterConfig c;
  c.memory_nodes = 1;
  std::string err;
  auto b = make_backend(c, &err);
  ASSERT_TRUE(b) << err;
  StoreLoader l;
  std::array<std::byte, 8> p{};
  for (uint64_t k = 0; k < 4000; ++k) l.add(0, k * 7, p);
  StoreOptions o;
  o.max_probe = 1;
  o.index_load = 1.0;
  auto s = Store::build(*b, {{"t", 8}}, [](TableId, uint64_t, uint32_t) { return NodeId{0}; }, l, o, &err);
  ASSERT_TRUE(s) << err;
  const TablePlacement& pl = s->placement(0, 0);
  EXPECT_GT(pl.buckets, 1001u);
  for (uint64_t k = 0; k < 4000; k += 37) {
    std::array<std::byte, kBucketBytes> bucket;
    b->host_read(pl.index + s->bucket_of(0, k * 7, pl.buckets) * kBucketBytes, bucket.data(), kBucketBytes);
    EXPECT_EQ(RemoteAddr(0, Store::find_in_bucket(bucket, k * 7)), s->address(0, k * 7));
  }
}

}  // namespace
}  // namespace lw::txn
