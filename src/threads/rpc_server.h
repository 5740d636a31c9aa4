// Two-sided RPC on the threads backend (verbs/rpc.h): each memory node has
// config().rpc.cores_per_node real server threads taking calls from a bounded
// FIFO; a served call's caller goes into its OS thread's reply inbox, which
// that thread's scheduler loop drains (blocking on it when nothing else can
// run, so waiting for replies burns no CPU).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "latchwork/config/cluster_config.h"
#include "latchwork/verbs/rpc.h"
#include "line_memory.h"

namespace lw::threads {

struct Coroutine;

// Callers whose replies arrived, for one OS thread. Bounded: each of the
// thread's coroutines awaits at most one call.
class ReplyInbox {
 public:
  explicit ReplyInbox(size_t capacity) : capacity_(capacity) {}
  void push(Coroutine* c);
  // Appends the arrived callers to `out`. With `wait_ns` > 0 and none
  // arrived, first waits for one at most that long.
  void drain(std::deque<Coroutine*>* out, uint64_t wait_ns);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Coroutine*> items_;
  size_t capacity_;
};

// One call handed to a server thread.
struct RpcJob {
  RpcCall* call = nullptr;  // the caller's; null for one-way messages
  Coroutine* caller = nullptr;
  ReplyInbox* inbox = nullptr;
  HandlerId handler = 0;
  std::vector<std::byte> request;  // copied at post
};

class RpcService {
 public:
  RpcService(const RpcConfig& cfg, std::vector<LineMemory*> nodes, const std::vector<RpcHandler>* handlers);
  ~RpcService();
  RpcService(const RpcService&) = delete;
  RpcService& operator=(const RpcService&) = delete;

  // Starts the server threads (run() begins).
  void start();
  // Queues a call for its node: kQueueFull when the node's FIFO is full.
  Status post(NodeId node, RpcJob&& job);
  // Serves every queued call, then ends the server threads (run() ends).
  void stop();

  uint64_t served() const;

 private:
  struct NodeQueue {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<RpcJob> jobs;  // <= cfg.queue_capacity
    bool stopping = false;
    uint64_t served = 0;
  };
  void serve(NodeId node, uint32_t core);

  RpcConfig cfg_;
  std::vector<LineMemory*> nodes_;
  const std::vector<RpcHandler>* handlers_;
  std::vector<std::unique_ptr<NodeQueue>> queues_;
  std::vector<std::thread> servers_;
};

}  // namespace lw::threads
