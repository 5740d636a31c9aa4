#include "rpc_buffers.h"

#include "rdma_device.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "latchwork/base/assert.h"

namespace lw::rdma {

RpcBuffers::~RpcBuffers() {
  if (mr_) ibv_dereg_mr(mr_);
  if (base_) ::munmap(base_, mapped_);
}

std::string RpcBuffers::init(ibv_pd* pd, uint32_t count) {
  LW_CHECK(count > 0 && base_ == nullptr);
  mapped_ = (uint64_t{count} * kRpcSlotBytes + 4095) & ~uint64_t{4095};
  void* p = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return "cannot map " + std::to_string(mapped_) + " bytes of RPC buffers";
  base_ = static_cast<std::byte*>(p);
  mr_ = ibv_reg_mr(pd, base_, mapped_, kLocalAccess);
  if (!mr_) return std::string("ibv_reg_mr (RPC buffers): ") + std::strerror(errno);
  count_ = count;
  return {};
}

ibv_sge RpcBuffers::sge(uint32_t slot, uint32_t bytes) const {
  LW_CHECK(slot < count_ && bytes <= kRpcSlotBytes);
  return {reinterpret_cast<uint64_t>(at(slot)), bytes, mr_->lkey};
}

int RpcBuffers::post_recv(ibv_qp* qp, uint32_t slot, uint64_t wr_id) const {
  ibv_sge s = sge(slot, kRpcSlotBytes);
  ibv_recv_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &s;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  return ibv_post_recv(qp, &wr, &bad);
}

}  // namespace lw::rdma
