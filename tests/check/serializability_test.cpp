// The serializability model on synthetic histories: each violation kind is
// found (and printed as documented), correct histories pass.
#include "latchwork/check/serializability.h"

#include <gtest/gtest.h>

#include "check/model_test_util.h"

namespace lw::check {
namespace {

using model_test::violations;

struct TxnBuilder {
  txn::CommitRecord r;
  TxnBuilder(uint32_t coordinator, uint32_t seq, Nanos start, Nanos end) {
    r.id = (uint64_t{coordinator} << 32) | seq;
    r.coordinator = coordinator;
    r.who = model_test::worker(coordinator, 0);
    r.start = start;
    r.end = end;
  }
  TxnBuilder& read(uint16_t t, uint64_t k, uint64_t v) {
    r.reads.push_back({t, k, v});
    return *this;
  }
  // A write of version v (no read).
  TxnBuilder& write(uint16_t t, uint64_t k, uint64_t v, uint64_t hash = 0) {
    r.writes.push_back({t, k, v, hash ? hash : v * 1000 + k});
    return *this;
  }
  // A read-modify-write: reads v - 1, installs v.
  TxnBuilder& rmw(uint16_t t, uint64_t k, uint64_t v, uint64_t hash = 0) { return read(t, k, v - 1).write(t, k, v, hash); }
};

size_t count(const std::vector<ModelViolation>& v, const std::string& kind) {
  size_t n = 0;
  for (const ModelViolation& x : v) n += x.kind == kind;
  return n;
}

const ModelViolation* find(const std::vector<ModelViolation>& v, const std::string& kind) {
  for (const ModelViolation& x : v)
    if (x.kind == kind) return &x;
  return nullptr;
}

TEST(Serializability, SerialHistoryPasses) {
  SerializabilityModel m;
  m.set_table_names({"bank.savings", "bank.checking"});
  // T0: x 0->1; T1 reads x@1, y 0->1; T2 reads both.
  m.committed(TxnBuilder(0, 1, 0, 10).rmw(0, 7, 1).r);
  m.committed(TxnBuilder(1, 1, 20, 30).read(0, 7, 1).rmw(1, 7, 1).r);
  m.committed(TxnBuilder(2, 1, 40, 50).read(0, 7, 1).read(1, 7, 1).r);
  m.final_state(0, 7, 1, 1000 + 7);
  m.final_state(1, 7, 1, 1000 + 7);
  m.final_state(1, 8, 0, 12345);  // never written: stays as loaded
  EXPECT_EQ(m.size(), 3u);
  EXPECT_TRUE(violations(m).empty()) << model_test::first(violations(m));
}

TEST(Serializability, ConcurrentButSerializablePasses) {
  // Overlapping intervals, reads of old versions that serialize first.
  SerializabilityModel m;
  m.committed(TxnBuilder(0, 1, 0, 100).rmw(0, 1, 1).r);
  m.committed(TxnBuilder(1, 1, 0, 100).read(0, 1, 0).read(0, 2, 0).r);  // before T0
  m.committed(TxnBuilder(2, 1, 0, 100).read(0, 1, 1).rmw(0, 2, 1).r);   // after T0 and T1
  EXPECT_TRUE(violations(m).empty()) << model_test::first(violations(m));
}

TEST(Serializability, WriteSkewCycleFoundAndPrinted) {
  SerializabilityModel m;
  m.set_table_names({"smallbank.savings", "smallbank.checking"});
  // Both read savings 17 @0 and checking 17 @0; T0 writes savings, T1 checking.
  m.committed(TxnBuilder(3, 1, 1234, 5678).read(1, 17, 0).rmw(0, 17, 1).r);
  m.committed(TxnBuilder(4, 9, 1300, 5600).read(0, 17, 0).rmw(1, 17, 1).r);
  const auto v = violations(m);
  ASSERT_EQ(count(v, "cycle"), 1u);
  const std::string& d = find(v, "cycle")->detail;
  EXPECT_NE(d.find("a cycle of 2 transactions"), std::string::npos) << d;
  EXPECT_NE(d.find("T0 (coordinator 3 txn 1, compute 3/0/0, [1234, 5678] ns)"), std::string::npos) << d;
  EXPECT_NE(d.find("-rw(smallbank.checking key 17: read v0, next v1)-> T1"), std::string::npos) << d;
  EXPECT_NE(d.find("-rw(smallbank.savings key 17: read v0, next v1)-> T0"), std::string::npos) << d;
  EXPECT_EQ(count(v, "lost-update"), 0u);
}

TEST(Serializability, LongerCycleIsShortestInItsComponent) {
  // T0 -ww-> T1 -wr-> T2 -rw-> T0 on three records, plus a reader after all.
  SerializabilityModel m;
  m.committed(TxnBuilder(0, 1, 0, 10).rmw(0, 1, 1).rmw(0, 3, 1).r);  // x@1, w@1
  m.committed(TxnBuilder(1, 1, 0, 10).rmw(0, 1, 2).rmw(0, 2, 1).r);  // x@2, y@1
  m.committed(TxnBuilder(2, 1, 0, 10).read(0, 2, 1).read(0, 3, 0).r);  // reads y@1 and w@0
  m.committed(TxnBuilder(3, 1, 20, 30).read(0, 3, 1).read(0, 1, 2).r);
  const auto v = violations(m);
  ASSERT_EQ(count(v, "cycle"), 1u) << model_test::first(v);
  const std::string& d = find(v, "cycle")->detail;
  EXPECT_NE(d.find("a cycle of 3 transactions (SCC of 3)"), std::string::npos) << d;
  EXPECT_NE(d.find("-ww("), std::string::npos) << d;
  EXPECT_NE(d.find("-wr("), std::string::npos) << d;
  EXPECT_NE(d.find("-rw("), std::string::npos) << d;
}

TEST(Serializability, LostUpdateFound) {
  // Both read x@4 and both installed x@5: one update vanished.
  SerializabilityModel n;
  n.committed(TxnBuilder(0, 1, 0, 10).rmw(0, 9, 1).r);
  n.committed(TxnBuilder(1, 1, 20, 40).rmw(0, 9, 2, 111).r);
  n.committed(TxnBuilder(2, 1, 25, 45).rmw(0, 9, 2, 222).r);
  n.final_state(0, 9, 2, 222);
  const auto v = violations(n);
  ASSERT_EQ(count(v, "lost-update"), 1u);
  EXPECT_NE(find(v, "lost-update")->detail.find("version 2 installed twice"), std::string::npos);
}

TEST(Serializability, VersionGapFound) {
  SerializabilityModel m;
  m.committed(TxnBuilder(0, 1, 0, 10).rmw(0, 9, 1).r);
  m.committed(TxnBuilder(1, 1, 20, 40).read(0, 9, 2).write(0, 9, 3).r);
  const auto v = violations(m);
  EXPECT_EQ(count(v, "version-gap"), 1u);
  EXPECT_EQ(count(v, "aborted-read"), 1u);  // version 2 has no writer either
}

TEST(Serializability, AbortedReadFound) {
  SerializabilityModel m;
  m.set_table_names({"tatp.subscriber"});
  m.committed(TxnBuilder(0, 1, 0, 10).rmw(0, 5, 1).r);
  m.committed(TxnBuilder(1, 1, 20, 40).read(0, 5, 2).r);  // v2 was never committed
  const auto v = violations(m);
  ASSERT_EQ(count(v, "aborted-read"), 1u);
  EXPECT_NE(find(v, "aborted-read")->detail.find("tatp.subscriber key 5: T1"), std::string::npos)
      << find(v, "aborted-read")->detail;
}

TEST(Serializability, FinalStateMismatchFound) {
  SerializabilityModel m;
  m.committed(TxnBuilder(0, 1, 0, 10).rmw(0, 1, 1, 77).r);
  m.final_state(0, 1, 1, 78);  // same version, another value: an aborted write's trace
  m.final_state(0, 2, 1, 5);   // written though no commit wrote it
  m.final_state(0, 3, 0, 5);   // fine
  const auto v = violations(m);
  EXPECT_EQ(count(v, "final-state"), 2u);
}

TEST(Serializability, FinalStateBehindLastWriteFound) {
  SerializabilityModel m;
  m.committed(TxnBuilder(0, 1, 0, 10).rmw(0, 1, 1).r);
  m.committed(TxnBuilder(0, 2, 20, 30).rmw(0, 1, 2).r);
  m.final_state(0, 1, 1, 1001);
  EXPECT_EQ(count(violations(m), "final-state"), 1u);
}

TEST(Serializability, LongChainWithoutCyclesPasses) {
  // 5,000 transactions each incrementing one record and reading the last:
  // a chain deep enough to overflow a recursive Tarjan.
  SerializabilityModel m;
  constexpr uint64_t kN = 5000;
  for (uint64_t i = 1; i <= kN; ++i)
    m.committed(TxnBuilder(static_cast<uint32_t>(i % 7), static_cast<uint32_t>(i), i * 10, i * 10 + 5)
                    .rmw(0, 1, i)
                    .read(1, 2, i / 2)
                    .rmw(1, 3, i)
                    .r);
  // Record 2 is written by a separate serial writer in between: reads of
  // 2@(i/2) need writers; give them, ordered before their readers.
  for (uint64_t v = 1; v <= kN / 2; ++v) m.committed(TxnBuilder(9, static_cast<uint32_t>(v), 0, 1).rmw(1, 2, v).r);
  m.final_state(0, 1, kN, kN * 1000 + 1);
  const auto v = violations(m);
  EXPECT_EQ(count(v, "cycle"), 0u) << model_test::first(v);
}

TEST(Serializability, ChainPassesAndReversedReadMakesCycle) {
  // A pure chain passes; one read of an old version by a late writer of
  // another record closes a cycle through the chain.
  SerializabilityModel m;
  for (uint64_t i = 1; i <= 200; ++i) m.committed(TxnBuilder(0, static_cast<uint32_t>(i), i, i).rmw(0, 1, i).r);
  EXPECT_TRUE(violations(m).empty());
  // T200: reads y@0 and writes x@201 after x@200 (ww from T199); T201
  // writes y@1 and read x@5 (rw to T5's successor, then ww chain to T200).
  m.committed(TxnBuilder(1, 1, 0, 0).read(0, 2, 0).rmw(0, 1, 201).r);
  m.committed(TxnBuilder(2, 1, 0, 0).read(0, 1, 5).rmw(0, 2, 1).r);
  const auto v = violations(m);
  ASSERT_EQ(count(v, "cycle"), 1u);
}

TEST(Serializability, ViolationsAreCapped) {
  SerializabilityModel m;
  for (uint32_t i = 0; i < 50; ++i) m.committed(TxnBuilder(i, 1, 0, 1).read(0, i, 3).r);
  const auto v = violations(m);
  EXPECT_EQ(count(v, "aborted-read"), SerializabilityModel::kMaxPerKind + 1);  // the last says "42 more"
}

}  // namespace
}  // namespace lw::check
