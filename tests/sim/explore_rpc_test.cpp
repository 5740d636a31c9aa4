// RPC under the exhaustive explorer (explore_rpc.cpp): a handler runs in one
// step between other workers' verbs, its allocation pointer is state, and
// its stores race NIC atomics as CPU stores do. Verdicts and outcome sets only.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <set>
#include <string>

#include "latchwork/sim/explore.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw {
namespace {

constexpr Placement compute(uint32_t node) { return {Placement::Kind::kCompute, node, 0, 0}; }

// One kAllocChunkHandler call for `bytes`: the block, or null.
Task<RemoteAddr> alloc(Worker& w, NodeId node, uint64_t bytes) {
  const uint64_t req[2] = {bytes, kCacheLine};
  std::byte reply[8];
  const Result<uint32_t> r = co_await w.call(node, kAllocChunkHandler, std::as_bytes(std::span(req)), reply);
  if (!r.ok() || r.value != 8) co_return RemoteAddr();
  uint64_t raw;
  std::memcpy(&raw, reply, 8);
  co_return RemoteAddr::from_raw(raw);
}

// Two workers allocate a block each by RPC and WRITE their id into it, one
// before its call, one after: the blocks are distinct, both orders of the
// two allocations are reached, and every write survives.
TEST(ExploreRpc, AllocationsByRpcInterleaveWithVerbsAndNeverOverlap) {
  struct State {
    RemoteAddr shared;
    std::array<RemoteAddr, 2> got;
  } st;
  std::set<uint32_t> lower;  // which worker got the lower block, per final state
  explore::Spec s;
  s.workers = {compute(0), compute(1)};
  s.setup = [&](Backend& b) {
    st.shared = b.allocate(0, 64);
    st.got = {};
  };
  s.program = [&](Worker& w, uint32_t i) -> Task<void> {
    const uint64_t id = i + 1;
    if (i == 1) LW_CHECK(ok(co_await w.write(st.shared, &id, 8)));
    st.got[i] = co_await alloc(w, 0, 64);
    LW_CHECK(!st.got[i].is_null());
    LW_CHECK(ok(co_await w.write(st.got[i], &id, 8)));
    if (i == 0) LW_CHECK(ok(co_await w.write(st.shared, &id, 8)));
  };
  s.final_check = [&](Backend& b) -> std::string {
    if (st.got[0] == st.got[1]) return "both workers got block " + st.got[0].to_string();
    for (uint32_t i = 0; i < 2; ++i)
      if (b.host_load(st.got[i]) != i + 1) return "a block lost its owner's write";
    lower.insert(st.got[0].offset() < st.got[1].offset() ? 0 : 1);
    return "";
  };
  const explore::Result r = explore::run(s);
  EXPECT_TRUE(r.complete) << r.violation << r.bound;
  EXPECT_EQ(r.violation, "");
  EXPECT_EQ(lower, (std::set<uint32_t>{0, 1}));
}

// A handler that allocates a line only while a word is zero, replying
// nothing: whether it allocated shows in no memory word and no reply, only
// in the node's allocation pointer, which a later allocation then reveals.
// Were the pointer not state, the two orders of the handler and the WRITE
// would merge and one of the two later addresses would never be seen.
TEST(ExploreRpc, AllocationPointerIsPartOfTheState) {
  struct State {
    RemoteAddr flag;
    HandlerId maybe = 0;
    RemoteAddr later;
  } st;
  std::set<uint64_t> seen;
  explore::Spec s;
  s.semantics = Semantics::sequential();
  s.workers = {compute(0), compute(1)};
  s.setup = [&](Backend& b) {
    st.flag = b.allocate(0, 64);
    const uint64_t flag_off = st.flag.offset();
    const Result<HandlerId> h = b.register_handler(
        {"alloc-while-zero",
         [flag_off](RpcServer& srv, std::span<const std::byte>, std::span<std::byte>, uint32_t* bytes) {
           *bytes = 0;
           if (srv.load(flag_off).value == 0) (void)srv.allocate(64, kCacheLine);
           return Status::kOk;
         }});
    LW_CHECK(h.ok());
    st.maybe = h.value;
    st.later = {};
  };
  s.program = [&](Worker& w, uint32_t i) -> Task<void> {
    if (i == 1) {
      const uint64_t one = 1;
      LW_CHECK(ok(co_await w.write(st.flag, &one, 8)));
      co_return;
    }
    std::byte none[1];
    LW_CHECK(ok((co_await w.call(0, st.maybe, {}, std::span(none, 0))).status));
    st.later = co_await alloc(w, 0, 64);
  };
  s.final_check = [&](Backend&) {
    seen.insert(st.later.raw());
    return std::string();
  };
  const explore::Result r = explore::run(s);
  EXPECT_TRUE(r.complete) << r.violation << r.bound;
  EXPECT_EQ(seen.size(), 2u);
}

// A NIC FAA (+1) and an RPC handler's CPU FAA (+10) on one word: the
// handler's add is lost inside the NIC atomic only under atomic_loses_cpu
// (as a memory-node thread's would be); otherwise it waits for the write-back.
std::set<uint64_t> faa_outcomes(bool loses_cpu) {
  RemoteAddr x;
  std::set<uint64_t> out;
  explore::Spec s;
  s.semantics = Semantics::spec();
  s.semantics.atomic_loses_cpu = loses_cpu;
  s.workers = {compute(0), compute(1)};
  s.setup = [&](Backend& b) { x = b.allocate(0, 64); };
  s.program = [&](Worker& w, uint32_t i) -> Task<void> {
    if (i == 0) {
      LW_CHECK(ok((co_await w.faa(x, 1)).status));
      co_return;
    }
    const uint64_t req[2] = {x.offset(), 10};
    std::byte reply[8];
    LW_CHECK(ok((co_await w.call(0, kFetchAddHandler, std::as_bytes(std::span(req)), reply)).status));
  };
  s.final_check = [&](Backend& b) {
    out.insert(b.host_load(x));
    return std::string();
  };
  const explore::Result r = explore::run(s);
  EXPECT_TRUE(r.complete) << r.violation << r.bound;
  return out;
}

TEST(ExploreRpc, HandlerStoresRaceNicAtomicsAsCpuStoresDo) {
  EXPECT_EQ(faa_outcomes(true), (std::set<uint64_t>{1, 11}));
  EXPECT_EQ(faa_outcomes(false), (std::set<uint64_t>{11}));
}

// One-way messages from one queue pair are served in posting order, and a
// later call behind them: two stores by message, then a load by call.
TEST(ExploreRpc, OneWayMessagesOfOneQueuePairAreServedInOrder) {
  RemoteAddr x;
  HandlerId set = 0;
  std::set<uint64_t> loaded, final_value;
  explore::Spec s;
  s.workers = {compute(0)};
  s.setup = [&](Backend& b) {
    x = b.allocate(0, 64);
    const uint64_t off = x.offset();
    const Result<HandlerId> h = b.register_handler(
        {"set", [off](RpcServer& srv, std::span<const std::byte> req, std::span<std::byte>, uint32_t* bytes) {
           uint64_t v;
           std::memcpy(&v, req.data(), 8);
           *bytes = 0;
           return srv.store(off, v);
         }});
    LW_CHECK(h.ok());
    set = h.value;
  };
  s.program = [&](Worker& w, uint32_t) -> Task<void> {
    const uint64_t one = 1, two = 2;
    LW_CHECK(ok(w.send(0, set, std::as_bytes(std::span(&one, 1)))));
    LW_CHECK(ok(w.send(0, set, std::as_bytes(std::span(&two, 1)))));
    const uint64_t req[2] = {x.offset(), 0};
    std::byte reply[8];
    LW_CHECK(ok((co_await w.call(0, kFetchAddHandler, std::as_bytes(std::span(req)), reply)).status));
    uint64_t v;
    std::memcpy(&v, reply, 8);
    loaded.insert(v);
  };
  s.final_check = [&](Backend& b) {
    final_value.insert(b.host_load(x));
    return std::string();
  };
  const explore::Result r = explore::run(s);
  EXPECT_TRUE(r.complete) << r.violation << r.bound;
  EXPECT_EQ(loaded, (std::set<uint64_t>{2}));
  EXPECT_EQ(final_value, (std::set<uint64_t>{2}));
}

}  // namespace
}  // namespace lw
