// Record images, designs and the store's layout.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <set>

#include "latchwork/backends.h"
#include "latchwork/txn/design.h"
#include "latchwork/txn/record.h"
#include "latchwork/txn/store.h"
#include "latchwork/txn/txn.h"
#include "txn/bank.h"

namespace lw::txn {
namespace {

TEST(TxnRecord, RoundTripAndTornDetection) {
  for (uint32_t bytes : {8u, 48u, 49u, 200u, kMaxPayloadBytes}) {
    std::vector<std::byte> payload(bytes), out(bytes);
    for (uint32_t i = 0; i < bytes; ++i) payload[i] = static_cast<std::byte>(i * 7 + 1);
    std::vector<std::byte> img(record_bytes(bytes));
    encode_record(img, 42, payload);
    RecordView v = decode_record(img, out);
    EXPECT_EQ(v.lock, 0u);
    EXPECT_EQ(v.version, 42u);
    EXPECT_TRUE(v.consistent);
    EXPECT_EQ(out, payload);
    if (record_lines(bytes) > 1) {
      const uint64_t other = 43;
      std::memcpy(img.data() + kRecordLine, &other, 8);  // line 1 from another commit
      EXPECT_FALSE(decode_record(img, out).consistent) << bytes;
    }
  }
}

TEST(TxnDesign, PresetsValidAndParse) {
  for (const std::string& n : design_names()) {
    DesignConfig d;
    ASSERT_TRUE(design_preset(n, &d)) << n;
    EXPECT_EQ(d.validate(), "") << n;
    EXPECT_FALSE(d.describe().empty());
  }
  DesignConfig d;
  EXPECT_FALSE(design_preset("nope", &d));
  ASSERT_TRUE(design_preset("drtmh", &d));
  EXPECT_EQ(d.phases.execute, Primitive::kHybrid);
  EXPECT_EQ(apply_phase_flag("E=two", &d), "");
  EXPECT_EQ(d.phases.execute, Primitive::kTwoSided);
  EXPECT_EQ(apply_phase_flag("VL=two", &d), "");
  EXPECT_EQ(d.phases.lock, Primitive::kTwoSided);
  EXPECT_EQ(d.phases.validate, Primitive::kOneSided);
  EXPECT_NE(apply_phase_flag("C=hybrid", &d), "");
  EXPECT_NE(apply_phase_flag("X=one", &d), "");
  Broken b;
  ASSERT_TRUE(parse_broken("no-write-recheck", &b));
  EXPECT_EQ(b, Broken::kNoWriteRecheck);
  DesignConfig f;
  ASSERT_TRUE(design_preset("farm", &f));
  EXPECT_FALSE(f.location_cache);
  EXPECT_EQ(f.phases.lock, Primitive::kTwoSided);
}

TEST(TxnEngine, HandlerNamesUnique) {
  ClusterConfig c;
  c.memory_nodes = 1;
  std::string err;
  auto b = make_backend(c, &err);
  ASSERT_TRUE(b) << err;
  testing::Bank bank(4);
  StoreLoader l;
  bank.load(l);
  StoreOptions o;
  o.replicas = 1;
  auto s = Store::build(*b, bank.tables(), [&](TableId t, uint64_t k, uint32_t n) { return bank.home(t, k, n); }, l, o,
                        &err);
  ASSERT_TRUE(s) << err;
  std::set<std::string> names;
  for (const RpcHandler& h : Engine::handlers(*s)) {
    EXPECT_TRUE(names.insert(h.name).second) << h.name;
    EXPECT_EQ(h.name.rfind("txn.", 0), 0u);
    EXPECT_GT(h.cpu_ns, 0u);
  }
}

class TxnStore : public ::testing::Test {
 protected:
  void build(uint32_t nodes, uint32_t payload, uint64_t accounts, uint32_t replicas = 3) {
    ClusterConfig c;
    c.memory_nodes = nodes;
    c.memory_node_bytes = 16 << 20;
    std::string err;
    b_ = make_backend(c, &err);
    ASSERT_TRUE(b_) << err;
    bank_ = std::make_unique<testing::Bank>(accounts, payload);
    StoreLoader l;
    bank_->load(l);
    StoreOptions o;
    o.nodes = nodes;
    o.replicas = replicas;
    o.coordinators = 2;
    store_ = Store::build(*b_, bank_->tables(), [this](TableId t, uint64_t k, uint32_t n) { return bank_->home(t, k, n); },
                          l, o, &err);
    ASSERT_TRUE(store_) << err;
  }
  std::unique_ptr<Backend> b_;
  std::unique_ptr<testing::Bank> bank_;
  std::unique_ptr<Store> store_;
};

TEST_F(TxnStore, HostLookupAndReplicas) {
  build(3, 100, 500);
  EXPECT_EQ(store_->replicas(), 3u);
  EXPECT_EQ(store_->keys(0).size(), 500u);
  std::vector<std::byte> p(100);
  for (uint64_t k : {0ull, 1ull, 77ull, 499ull}) {
    EXPECT_EQ(store_->node_of(0, k, 0), k % 3);
    EXPECT_EQ(store_->node_of(0, k, 1), (k + 1) % 3);
    for (uint32_t r = 0; r < 3; ++r) {
      RecordView v;
      ASSERT_TRUE(store_->host_read(0, k, r, &v, p));
      EXPECT_EQ(v.version, 0u);
      EXPECT_TRUE(v.consistent);
      EXPECT_EQ(testing::Bank::decode(p), 1000);
      EXPECT_EQ(store_->address(0, k, r).node(), store_->node_of(0, k, r));
    }
    // The index finds the record's copy through its probe chain.
    const NodeId n = store_->node_of(0, k, 0);
    const TablePlacement& pl = store_->placement(n, 0);
    uint64_t found = 0;
    for (uint32_t probe = 0; probe < pl.max_probe && !found; ++probe) {
      std::array<std::byte, kBucketBytes> bucket;
      b_->host_read(pl.index + ((store_->bucket_of(0, k, pl.buckets) + probe) % pl.buckets) * kBucketBytes,
                    bucket.data(), kBucketBytes);
      found = Store::find_in_bucket(bucket, k);
    }
    EXPECT_EQ(RemoteAddr(n, found), store_->address(0, k, 0));
  }
  RecordView v;
  EXPECT_FALSE(store_->host_read(0, 100000, 0, &v, p));
  EXPECT_NE(store_->log_ring(0, 1), store_->log_ring(0, 0));
}

TEST_F(TxnStore, OneSidedLookupFromACoroutine) {
  build(2, 8, 64, 2);
  uint64_t checked = 0;
  b_->spawn({Placement::Kind::kCompute, 0, 0, 0}, [&](Worker& w) -> Task<void> {
    for (uint64_t k = 0; k < 64; ++k) {
      const NodeId n = store_->node_of(0, k, 0);
      const TablePlacement& pl = store_->placement(n, 0);
      std::array<std::byte, kBucketBytes> bucket;
      uint64_t off = 0;
      for (uint32_t probe = 0; probe < pl.max_probe && off == 0; ++probe) {
        const Status s = co_await w.read(
            bucket.data(), pl.index + ((store_->bucket_of(0, k, pl.buckets) + probe) % pl.buckets) * kBucketBytes,
            kBucketBytes);
        EXPECT_EQ(s, Status::kOk);
        off = Store::find_in_bucket(bucket, k);
      }
      std::array<std::byte, 64> img;
      EXPECT_EQ(co_await w.read(img.data(), RemoteAddr(n, off), 64), Status::kOk);
      std::array<std::byte, 8> p;
      const RecordView v = decode_record(img, p);
      EXPECT_TRUE(v.consistent);
      EXPECT_EQ(testing::Bank::decode(p), 1000);
      ++checked;
    }
  });
  b_->run();
  EXPECT_EQ(checked, 64u);
}

TEST(TxnStoreBuild, Failures) {
  ClusterConfig c;
  c.memory_nodes = 1;
  std::string err;
  auto b = make_backend(c, &err);
  ASSERT_TRUE(b) << err;
  StoreLoader l;
  std::array<std::byte, 8> p{};
  l.add(0, 5, p);
  l.add(0, 5, p);
  StoreOptions o;
  auto home = [](TableId, uint64_t, uint32_t) { return NodeId{0}; };
  EXPECT_FALSE(Store::build(*b, {{"t", 8}}, home, l, o, &err));
  EXPECT_NE(err.find("twice"), std::string::npos) << err;
  StoreLoader l2;
  std::array<std::byte, 16> p16{};
  l2.add(0, 1, p16);
  EXPECT_FALSE(Store::build(*b, {{"t", 8}}, home, l2, o, &err));
  // Index slots store key + 1: the largest key would read as a free slot.
  StoreLoader l3;
  l3.add(0, ~uint64_t{0}, p);
  EXPECT_FALSE(Store::build(*b, {{"t", 8}}, home, l3, o, &err));
  EXPECT_NE(err.find("reserved"), std::string::npos) << err;
  o.max_probe = 0;
  EXPECT_NE(o.validate(), "");
}

}  // namespace
}  // namespace lw::txn
