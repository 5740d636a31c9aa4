// Late-bound RPC handlers (rdma/memnode.h): served from the start, they
// answer kUnsupported until a backend of this process binds code to their
// name, run that code while bound, and stop when their binder goes. Also:
// MemnodeOptions rejects extra handlers that would clash with the builtins.
#include <gtest/gtest.h>

#include "late_handlers.h"
#include "latchwork/rdma/memnode.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw {
namespace {

// A handler's view of a node that the handlers below never touch.
class NoServer final : public RpcServer {
 public:
  NodeId node() const override { return 0; }
  Result<uint64_t> load(uint64_t) override { return {Status::kOk, 0}; }
  Status store(uint64_t, uint64_t) override { return Status::kOk; }
  Result<uint64_t> cas(uint64_t, uint64_t, uint64_t) override { return {Status::kOk, 0}; }
  Result<uint64_t> faa(uint64_t, uint64_t) override { return {Status::kOk, 0}; }
  Status read(uint64_t, void*, uint64_t) override { return Status::kOk; }
  Status write(uint64_t, const void*, uint64_t) override { return Status::kOk; }
  RemoteAddr allocate(uint64_t, uint64_t) override { return {}; }
  void charge_cpu(Nanos) override {}
};

Status call(const RpcHandler& h, uint32_t* reply_bytes) {
  NoServer s;
  std::byte reply[8];
  *reply_bytes = 0;
  return h.fn(s, {}, reply, reply_bytes);
}

RpcHandler replying(const std::string& name, uint32_t bytes) {
  return {name, [bytes](RpcServer&, std::span<const std::byte>, std::span<std::byte>, uint32_t* n) {
            *n = bytes;
            return Status::kOk;
          }};
}

TEST(LateHandlers, UnsupportedUntilBoundThenRunTheBoundCodeUntilUnbound) {
  const std::vector<RpcHandler> served = late_bound_handlers({"test.a", "test.b"});
  ASSERT_EQ(served.size(), 2u);
  EXPECT_EQ(served[0].name, "test.a");
  uint32_t n = 0;
  EXPECT_EQ(call(served[0], &n), Status::kUnsupported);
  int owner = 0, other = 0;
  EXPECT_EQ(rdma::bind_late_handler(replying("test.a", 3), &owner), 1u);
  EXPECT_EQ(call(served[0], &n), Status::kOk);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(call(served[1], &n), Status::kUnsupported);  // only its own name
  EXPECT_EQ(rdma::bind_late_handler(replying("test.nobody", 1), &owner), 0u);
  rdma::unbind_late_handlers(&other);  // not its binder: still bound
  EXPECT_EQ(call(served[0], &n), Status::kOk);
  rdma::unbind_late_handlers(&owner);
  EXPECT_EQ(call(served[0], &n), Status::kUnsupported);
}

TEST(LateHandlers, MemnodeOptionsRejectClashingOrEmptyExtras) {
  MemnodeOptions o;
  EXPECT_EQ(o.validate(), "");
  o.extra_handlers = late_bound_handlers({"test.x", "test.y"});
  EXPECT_EQ(o.validate(), "");
  o.extra_handlers.push_back(builtin_rpc_handlers()[0]);
  EXPECT_NE(o.validate().find("served twice"), std::string::npos);
  o.extra_handlers = late_bound_handlers({"test.x", "test.x"});
  EXPECT_NE(o.validate().find("served twice"), std::string::npos);
  o.extra_handlers = {RpcHandler{}};
  EXPECT_NE(o.validate().find("no name"), std::string::npos);
  o.extra_handlers = late_bound_handlers(std::vector<std::string>(kMaxRpcHandlers, "test.many"));
  EXPECT_NE(o.validate().find("at most"), std::string::npos);
}

}  // namespace
}  // namespace lw
