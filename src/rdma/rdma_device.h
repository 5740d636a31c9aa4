// Thin owners of rdma-core objects and the RC queue-pair state machine
// (RESET -> INIT -> RTR -> RTS), shared by the memory node and the compute
// side. Upstream libibverbs only: no vendor experimental verbs.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <string>

#include "tcp_channel.h"

namespace lw::rdma {

// The address of one queue pair as the other side needs it.
struct QpEndpoint {
  uint32_t qpn = 0;
  uint32_t psn = 0;
  uint16_t lid = 0;
  ibv_gid gid{};
  uint32_t mtu = IBV_MTU_1024;  // enum ibv_mtu of the port

  json to_json() const;
  static std::string from_json(const json& j, QpEndpoint* out);
};

// An opened device with its protection domain and the port and GID in use.
class RdmaDevice {
 public:
  // `name` "" = the first device; gid_index -1 = choose one (RoCE v2 IPv4,
  // else the first non-zero GID; LID routing on InfiniBand).
  static std::string open(const std::string& name, uint32_t port, int gid_index,
                          std::unique_ptr<RdmaDevice>* out);
  ~RdmaDevice();
  RdmaDevice(const RdmaDevice&) = delete;
  RdmaDevice& operator=(const RdmaDevice&) = delete;

  ibv_context* context() const { return ctx_; }
  ibv_pd* pd() const { return pd_; }
  const std::string& name() const { return name_; }
  uint8_t port() const { return port_; }
  int gid_index() const { return gid_index_; }
  bool is_roce() const { return port_attr_.link_layer == IBV_LINK_LAYER_ETHERNET; }
  // Linux Soft-RoCE (rdma_rxe): its vendor id is 0xFFFFFF (RXE_VENDOR_ID).
  bool is_soft_roce() const { return attr_.vendor_id == 0xFFFFFF; }
  const ibv_device_attr& attr() const { return attr_; }
  // Bytes of on-chip device memory (0 when the device has none, as rxe).
  uint64_t device_memory_bytes() const { return max_dm_size_; }

  // This side's endpoint for a local QP.
  QpEndpoint endpoint(const ibv_qp* qp, uint32_t psn) const;

  // An RC QP with `depth` send WRs and `recv_depth` receive WRs, both queues
  // on `cq`, in `pd` (a parent domain with a thread domain; null: pd()).
  std::string create_qp(ibv_cq* cq, uint32_t depth, ibv_qp** out, uint32_t recv_depth = 1,
                        ibv_pd* pd = nullptr) const;
  // Moves `qp` to RTS towards `remote`. Retries bound how long a lost peer
  // takes to surface as IBV_WC_RETRY_EXC_ERR.
  std::string connect_qp(ibv_qp* qp, uint32_t local_psn, const QpEndpoint& remote) const;

 private:
  RdmaDevice() = default;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  std::string name_;
  uint8_t port_ = 1;
  int gid_index_ = 0;
  ibv_gid gid_{};
  ibv_port_attr port_attr_{};
  ibv_device_attr attr_{};
  uint64_t max_dm_size_ = 0;
};

// Local write only (send and receive buffers). An int, not the enum: rdma-core's
// ibv_reg_mr macro ANDs the flags with another enum type (clang: deprecated).
inline constexpr int kLocalAccess = IBV_ACCESS_LOCAL_WRITE;
// Atomic rights and local write for everything we register.
inline constexpr int kRemoteAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
                                     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;

// ibv_wc_status as text with its meaning for a user.
std::string describe_wc_status(ibv_wc_status s);

}  // namespace lw::rdma
