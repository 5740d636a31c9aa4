// The memory a memory node serves and its bookkeeping, shared by the
// control sessions (memnode.cpp) and the RPC handlers (rpc_server.cpp).
#pragma once

#include <infiniband/verbs.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/base/layout.h"
#include "verbs/node_memory.h"
#include "latchwork/verbs/rpc.h"

namespace lw::rdma {

struct Region {
  void* base = nullptr;
  uint64_t bytes = 0;
  bool huge = false;
  ibv_mr* mr = nullptr;
  ibv_dm* dm = nullptr;
  ibv_mr* dm_mr = nullptr;
  uint64_t dm_bytes = 0;
  // Random per server: a compute side whose process holds a region of this
  // instance (local_region.h) reaches the memory with its CPU too.
  uint64_t instance = 0;
  // The RPC handlers served, in id order: builtin_rpc_handlers(), then
  // MemnodeOptions::extra_handlers. Fixed before the node serves.
  std::vector<RpcHandler> handlers;

  std::mutex mu;
  std::condition_variable cv;
  uint64_t next = NodeMemory::kReservedBytes;
  uint64_t dm_next = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> shared;  // name -> (offset, bytes)
  struct Barrier {
    uint32_t parties = 0, arrived = 0;
    uint64_t generation = 0;
  };
  std::map<std::string, Barrier> barriers;

  // Bump allocation, host memory or device memory; 0 when full. Memory is
  // never handed out twice, so it comes zeroed (fresh anonymous mapping).
  uint64_t bump(uint64_t size, uint64_t align, bool device) {
    std::lock_guard<std::mutex> lock(mu);
    uint64_t& n = device ? dm_next : next;
    const uint64_t limit = device ? dm_bytes : bytes;
    const uint64_t at = align_up(n, align);
    if (at < n || at + size > limit || at + size < at) return 0;
    n = at + size;
    return device ? NodeMemory::kDeviceBase + at : at;
  }
};

}  // namespace lw::rdma
