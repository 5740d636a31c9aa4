// Registered message buffers for RPC SEND/RECV: `count` slots of
// kRpcSlotBytes each in one memory region.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "rpc_wire.h"

namespace lw::rdma {

class RpcBuffers {
 public:
  RpcBuffers() = default;
  ~RpcBuffers();
  RpcBuffers(const RpcBuffers&) = delete;
  RpcBuffers& operator=(const RpcBuffers&) = delete;

  std::string init(ibv_pd* pd, uint32_t count);

  uint32_t count() const { return count_; }
  std::byte* at(uint32_t slot) const { return base_ + uint64_t{slot} * kRpcSlotBytes; }
  // Posts slot `slot` as a RECV on `qp`; returns ibv_post_recv's result.
  int post_recv(ibv_qp* qp, uint32_t slot, uint64_t wr_id) const;
  ibv_sge sge(uint32_t slot, uint32_t bytes) const;

 private:
  std::byte* base_ = nullptr;
  uint64_t mapped_ = 0;
  ibv_mr* mr_ = nullptr;
  uint32_t count_ = 0;
};

}  // namespace lw::rdma
