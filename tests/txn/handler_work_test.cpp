// The transaction engine's RPC handlers say what work they do, so that the
// simulator prices it from the NIC profile's measured CPU table: each access
// to the node's memory, and compute() for hashing, bucket scans and record
// line checks. White-box: the handlers' wire format (src/txn/wire.h).
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <map>
#include <vector>

#include "latchwork/backends.h"
#include "latchwork/txn/store.h"
#include "latchwork/txn/txn.h"
#include "latchwork/verbs/rpc_builtin.h"
#include "txn/bank.h"
#include "wire.h"

namespace lw::txn {
namespace {

// An RpcServer over a backend's host memory that counts what a handler does.
class CountingServer final : public RpcServer {
 public:
  CountingServer(Backend& b, NodeId node) : b_(b), node_(node) {}
  NodeId node() const override { return node_; }
  Result<uint64_t> load(uint64_t off) override {
    ++accesses;
    return {Status::kOk, b_.host_load(RemoteAddr(node_, off))};
  }
  Status store(uint64_t off, uint64_t v) override {
    ++accesses;
    b_.host_store(RemoteAddr(node_, off), v);
    return Status::kOk;
  }
  Result<uint64_t> cas(uint64_t off, uint64_t expected, uint64_t desired) override {
    ++accesses;
    ++cases;
    const uint64_t old = b_.host_load(RemoteAddr(node_, off));
    if (old == expected) b_.host_store(RemoteAddr(node_, off), desired);
    return {Status::kOk, old};
  }
  Result<uint64_t> faa(uint64_t off, uint64_t add) override {
    ++accesses;
    const uint64_t old = b_.host_load(RemoteAddr(node_, off));
    b_.host_store(RemoteAddr(node_, off), old + add);
    return {Status::kOk, old};
  }
  Status read(uint64_t off, void* dst, uint64_t bytes) override {
    ++accesses;
    b_.host_read(RemoteAddr(node_, off), dst, bytes);
    return Status::kOk;
  }
  Status write(uint64_t off, const void* src, uint64_t bytes) override {
    ++accesses;
    b_.host_write(RemoteAddr(node_, off), src, bytes);
    return Status::kOk;
  }
  RemoteAddr allocate(uint64_t, uint64_t) override { return RemoteAddr(); }
  void charge_cpu(Nanos ns) override { charged += ns; }
  Nanos work_cost(CpuWork kind, uint64_t units) const override {
    work[kind] += units;
    return 0;
  }

  uint64_t accesses = 0, cases = 0;
  Nanos charged = 0;
  mutable std::map<CpuWork, uint64_t> work;

 private:
  Backend& b_;
  NodeId node_;
};

class TxnHandlerWork : public ::testing::Test {
 protected:
  void SetUp() override {
    ClusterConfig c;
    c.memory_nodes = 1;
    c.memory_node_bytes = 16 << 20;
    std::string err;
    b_ = make_backend(c, &err);
    ASSERT_TRUE(b_) << err;
    bank_ = std::make_unique<testing::Bank>(64, kPayload);
    StoreLoader l;
    bank_->load(l);
    StoreOptions o;
    o.nodes = 1;
    o.replicas = 1;
    store_ = Store::build(*b_, bank_->tables(), [this](TableId t, uint64_t k, uint32_t n) { return bank_->home(t, k, n); },
                          l, o, &err);
    ASSERT_TRUE(store_) << err;
    handlers_ = Engine::handlers(*store_);
  }
  // Runs handler `ix` on `req`; returns its status.
  Status serve(CountingServer& srv, uint32_t ix, const std::vector<std::byte>& req) {
    std::array<std::byte, kMaxRpcBytes> reply{};
    uint32_t n = 0;
    return handlers_.at(ix).fn(srv, req, reply, &n);
  }
  static constexpr uint32_t kPayload = 100;  // two 64-byte lines with the header
  std::unique_ptr<Backend> b_;
  std::unique_ptr<testing::Bank> bank_;
  std::unique_ptr<Store> store_;
  std::vector<RpcHandler> handlers_;
};

std::vector<std::byte> get_request(uint64_t key, bool lock) {
  wire::Header h;
  h.n = 1;
  wire::GetItem it;
  it.lock = lock ? 1 : 0;
  it.key = key;
  std::vector<std::byte> req(sizeof h + sizeof it);
  std::memcpy(req.data(), &h, sizeof h);
  std::memcpy(req.data() + sizeof h, &it, sizeof it);
  return req;
}

TEST_F(TxnHandlerWork, EveryHandlerCostsTheFittedDispatch) {
  for (const RpcHandler& h : handlers_) EXPECT_EQ(h.cpu_ns, kRpcDispatchCpuNs) << h.name;
}

// A get hashes its key once, scans each bucket it probes, checks the record's
// lines, and charges nothing by hand: the rest is its accesses.
TEST_F(TxnHandlerWork, GetDeclaresItsHashScanAndLineChecks) {
  const uint32_t lines = record_bytes(kPayload) / kRecordLine;
  ASSERT_EQ(lines, 2u);
  CountingServer plain(*b_, 0);
  ASSERT_EQ(serve(plain, wire::kGetIx, get_request(7, false)), Status::kOk);
  EXPECT_EQ(plain.work[CpuWork::kKeyHash], 1u);
  EXPECT_GE(plain.work[CpuWork::kKeyScan], uint64_t{kBucketSlots});
  EXPECT_EQ(plain.work[CpuWork::kKeyScan] % kBucketSlots, 0u);
  EXPECT_EQ(plain.work[CpuWork::kFarmLine], lines);
  EXPECT_EQ(plain.charged, 0);
  EXPECT_EQ(plain.cases, 0u);
  const uint64_t probes = plain.work[CpuWork::kKeyScan] / kBucketSlots;
  EXPECT_EQ(plain.accesses, probes + 1);  // the buckets and the record
  // Locking first adds one CPU CAS.
  CountingServer locking(*b_, 0);
  ASSERT_EQ(serve(locking, wire::kGetIx, get_request(9, true)), Status::kOk);
  EXPECT_EQ(locking.cases, 1u);
  EXPECT_EQ(locking.work[CpuWork::kFarmLine], lines);
}

// A commit stamps a version in every line of the new image and copies the
// payload into it before writing it and releasing the lock.
TEST_F(TxnHandlerWork, CommitDeclaresItsStampsAndCopy) {
  const uint64_t off = store_->address(0, 3, 0).offset();
  wire::Header h;
  h.n = 1;
  wire::CommitItem it;
  it.offset = off;
  it.version = 5;
  it.payload_bytes = kPayload;
  std::vector<std::byte> req(sizeof h + sizeof it + wire::pad8(kPayload));
  std::memcpy(req.data(), &h, sizeof h);
  std::memcpy(req.data() + sizeof h, &it, sizeof it);
  CountingServer srv(*b_, 0);
  ASSERT_EQ(serve(srv, wire::kCommitIx, req), Status::kOk);
  EXPECT_EQ(srv.work[CpuWork::kFarmLine], record_bytes(kPayload) / kRecordLine);
  EXPECT_EQ(srv.work[CpuWork::kCopyByte], kPayload);
  EXPECT_EQ(srv.accesses, 2u);  // the image, then the lock word
  EXPECT_EQ(srv.charged, 0);
}

}  // namespace
}  // namespace lw::txn
