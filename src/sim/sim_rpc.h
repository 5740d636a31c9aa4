// Two-sided RPC in the simulator (verbs/rpc.h): the calls in flight and each
// memory node's polling cores. sim_rpc.cpp moves a call through its stages.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "latchwork/sim/timing_model.h"
#include "latchwork/verbs/rpc.h"

namespace lw::sim {

struct Coroutine;

// One call or one-way message in flight.
struct RpcMsg {
  enum class Stage : uint8_t { kToNode, kQueued, kServing, kToCaller };
  RpcCall* call = nullptr;   // the caller's, filled in at delivery; null: one-way
  Coroutine* caller = nullptr;
  WrRoute route;             // caller thread -> memory node (the timing model's view)
  HandlerId handler = 0;
  std::vector<std::byte> request;  // copied at post, as the NIC gathers it
  std::vector<std::byte> reply;    // what the handler wrote, delivered with the reply
  Status status = Status::kOk;
  uint32_t reply_bytes = 0;
  uint32_t core = 0;               // the polling core (or worker thread in the node) serving it
  Stage stage = Stage::kToNode;
  Nanos posted = 0, arrived = 0, started = 0;
};

// A memory node's polling cores and the bounded FIFO in front of them
// (RpcServers::kCores), or its calls booked on its worker threads (kWorkers).
struct RpcNode {
  std::vector<RpcMsg*> serving;  // per core: the call it serves, or null
  std::deque<RpcMsg*> queue;     // arrived, waiting for a core (<= queue_capacity)
  uint32_t on_workers = 0;       // kWorkers: arrived and not yet done (<= queue_capacity)
};

struct RpcState {
  std::vector<RpcHandler> handlers;  // by id
  std::vector<RpcNode> nodes;        // by memory node
  // Every message ever made is owned here; pool holds the free ones.
  std::vector<std::unique_ptr<RpcMsg>> store;
  std::vector<RpcMsg*> pool;
  // RunStats::counters ("rpc.*").
  uint64_t calls = 0, one_way = 0, served = 0, rejected = 0;
  Nanos queue_wait_ns_total = 0, queue_wait_ns_max = 0, core_busy_ns_total = 0;
};

}  // namespace lw::sim
