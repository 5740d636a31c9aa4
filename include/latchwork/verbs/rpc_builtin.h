// The handlers every backend registers at start-up and `latchwork memnode`
// serves, in a fixed order so that their ids agree across processes.
#pragma once

#include <cstdint>
#include <vector>

#include "latchwork/verbs/rpc.h"

namespace lw {

// Hands out a chunk of the node's host memory (Sherman §4.2.4: compute nodes
// take 8 MB chunks by RPC and carve them locally).
// Request: {uint64 bytes, uint64 align}; reply: {uint64 RemoteAddr bits}
// (0 when the node is full). kBadLength for a malformed request.
inline constexpr HandlerId kAllocChunkHandler = 0;
// Returns the request as the reply (tests, calibration, latency probes).
inline constexpr HandlerId kEchoHandler = 1;
// Does nothing and replies with nothing (one-way messages, RPC rate probes).
inline constexpr HandlerId kNullHandler = 2;
// Adds to a word of the node's memory with a CPU atomic (counters served by
// RPC; not atomic with NIC atomics on the same word).
// Request: {uint64 offset, uint64 add}; reply: {uint64 value before}.
// kBadLength for a malformed request; the access's status otherwise.
inline constexpr HandlerId kFetchAddHandler = 3;
inline constexpr HandlerId kBuiltinRpcHandlers = 4;

// The CPU time of a call's dispatch on its serving core, beyond receiving it
// (RpcConfig::recv_cpu_ns) and posting its reply (reply_cpu_ns): the echo
// handler's cost, which does nothing else. Fitted with those two to DrTM+H
// §3.1's 79 M SEND/RECV calls per second per machine (repro drtmh-fig3b).
// Handlers that do work add it through RpcServer (its accesses, compute()).
inline constexpr Nanos kRpcDispatchCpuNs = 200;

// The built-ins in id order.
const std::vector<RpcHandler>& builtin_rpc_handlers();

}  // namespace lw
