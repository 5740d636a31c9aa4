// Two-sided RPC on real threads: many OS threads x coroutines call echo and
// a counter handler on server threads; every count must come out exact.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstring>

#include "latchwork/threads/threads_backend.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw {
namespace {

RpcHandler counter(uint64_t offset) {
  return {"count", [offset](RpcServer& s, std::span<const std::byte> req, std::span<std::byte> reply, uint32_t* n) {
            uint64_t add = 0;
            if (req.size() != 8 || reply.size() < 8) return Status::kBadLength;
            std::memcpy(&add, req.data(), 8);
            Result<uint64_t> old = s.faa(offset, add);
            if (!old.ok()) return old.status;
            std::memcpy(reply.data(), &old.value, 8);
            *n = 8;
            return Status::kOk;
          },
          100};
}

TEST(ThreadsRpc, ManyThreadsAndCoroutinesCountExactly) {
  ClusterConfig c;
  c.backend = "threads";
  c.compute_nodes = 2;
  c.threads_per_node = 4;
  c.coroutines_per_thread = 4;
  c.memory_nodes = 2;
  c.rpc.cores_per_node = 2;
  c.rpc.queue_capacity = 64;  // >= the callers: no call is turned away
  ThreadsBackend b(c);
  EXPECT_TRUE(b.capabilities().rpc);
  RemoteAddr words[2] = {b.allocate(0, 8, 8), b.allocate(1, 8, 8)};
  Result<HandlerId> id = b.register_handler(counter(words[0].offset()));
  ASSERT_EQ(id.status, Status::kOk);
  ASSERT_EQ(words[0].offset(), words[1].offset());  // the handler uses one offset on both nodes
  constexpr int kCalls = 300;
  std::atomic<uint64_t> echo_ok{0}, count_ok{0}, sum_old{0};
  b.spawn_compute([&](Worker& w) -> Task<void> {
    for (int i = 0; i < kCalls; ++i) {
      const NodeId node = static_cast<NodeId>(i % 2);
      std::array<std::byte, 24> req, reply{};
      for (auto& x : req) x = static_cast<std::byte>(w.rng().below(256));
      Result<uint32_t> r = co_await w.call(node, kEchoHandler, req, reply);
      if (r.ok() && r.value == req.size() && reply == req) echo_ok.fetch_add(1);
      const uint64_t one = 1;
      std::array<std::byte, 8> old{};
      r = co_await w.call(node, id.value, std::as_bytes(std::span(&one, 1)), old);
      if (r.ok() && r.value == 8) count_ok.fetch_add(1);
    }
  });
  RunStats st = b.run();
  const uint64_t workers = 2 * 4 * 4;
  EXPECT_EQ(echo_ok.load(), workers * kCalls);
  EXPECT_EQ(count_ok.load(), workers * kCalls);
  EXPECT_EQ(b.host_load(words[0]) + b.host_load(words[1]), workers * kCalls);
  EXPECT_EQ(b.host_load(words[0]), workers * kCalls / 2);
  EXPECT_EQ(st.counters.at("rpc.served"), 2.0 * workers * kCalls);
}

TEST(ThreadsRpc, OneWayMessagesAreServedBeforeRunEnds) {
  ClusterConfig c;
  c.backend = "threads";
  c.threads_per_node = 3;
  c.coroutines_per_thread = 2;
  c.rpc.cores_per_node = 1;
  c.rpc.queue_capacity = 1 << 16;
  ThreadsBackend b(c);
  RemoteAddr word = b.allocate(0, 8, 8);
  const HandlerId id = b.register_handler(counter(word.offset())).value;
  b.spawn_compute([&](Worker& w) -> Task<void> {
    const uint64_t two = 2;
    for (int i = 0; i < 500; ++i) EXPECT_EQ(w.send(0, id, std::as_bytes(std::span(&two, 1))), Status::kOk);
    co_return;
  });
  b.run();
  EXPECT_EQ(b.host_load(word), 3u * 2 * 500 * 2);
}

TEST(ThreadsRpc, QueueFullAndErrors) {
  ClusterConfig c;
  c.backend = "threads";
  c.rpc.cores_per_node = 1;
  c.rpc.queue_capacity = 1;
  ThreadsBackend b(c);
  // A handler that holds its core until told to go on, so the queue fills.
  std::atomic<bool> go{false};
  const HandlerId slow = b.register_handler({"slow", [&](RpcServer&, std::span<const std::byte>, std::span<std::byte>, uint32_t* n) {
                                               for (int i = 0; i < 10'000'000 && !go.load(); ++i) std::this_thread::yield();
                                               *n = 0;
                                               return Status::kOk;
                                             }, 1}).value;
  EXPECT_EQ(b.register_handler({"slow", nullptr, 1}).status, Status::kBadLength);
  std::vector<Status> s;
  b.spawn_compute([&](Worker& w) -> Task<void> {
    std::array<std::byte, 8> req{}, small{};
    std::array<std::byte, 4> tiny{};
    s.push_back(w.send(0, slow, req));  // taken by the core, which then waits
    // The core may not have taken it yet: send until one is turned away.
    Status full = Status::kOk;
    for (int i = 0; i < 1000 && full == Status::kOk; ++i) full = w.send(0, slow, req);
    s.push_back(full);
    go = true;
    s.push_back((co_await w.call(0, 40, req, small)).status);  // refused before queueing
    // The queue drains now: retry (bounded) while it is still full.
    Status st = Status::kQueueFull;
    for (int i = 0; i < 100'000 && st == Status::kQueueFull; ++i) {
      st = (co_await w.call(0, kEchoHandler, req, tiny)).status;
      if (st == Status::kQueueFull) co_await w.sleep(10'000);
    }
    s.push_back(st);
    st = (co_await w.call(0, kEchoHandler, req, small)).status;  // the queue is empty by now
    s.push_back(st);
  });
  b.run();
  EXPECT_EQ(s, (std::vector<Status>{Status::kOk, Status::kQueueFull, Status::kUnsupported,
                                    Status::kBadLength, Status::kOk}));
}

}  // namespace
}  // namespace lw
