// The memory node's side of two-sided RPC (wire format: rpc_wire.h): one
// polling thread per compute process's session polls the CQ of that
// session's QPs, runs the node's handlers (Region::handlers: the builtins,
// then MemnodeOptions::extra_handlers) on the node's memory (CPU
// accesses with std::atomic_ref) and SENDs replies and credit messages.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "memnode_region.h"
#include "rdma_device.h"
#include "rpc_buffers.h"

namespace lw::rdma {

class RpcServerLoop {
 public:
  RpcServerLoop(RdmaDevice& dev, Region& region, const std::atomic<bool>& stop)
      : dev_(dev), region_(region), global_stop_(stop) {}
  ~RpcServerLoop();
  RpcServerLoop(const RpcServerLoop&) = delete;
  RpcServerLoop& operator=(const RpcServerLoop&) = delete;

  // A CQ (with a completion channel, so an idle loop sleeps) for `max_qps` QPs.
  std::string init(uint32_t max_qps);
  // A responder QP on this loop's CQ with its RECVs posted. Before start().
  std::string create_qp(ibv_qp** out);
  void start();
  // Stops the thread; the QPs may then be destroyed.
  void stop();
  // Responder send queue depth: replies and credit messages in flight.
  static constexpr uint32_t kSendSlots = 2 * kRpcSlots;

 private:
  struct Qp {
    ibv_qp* qp = nullptr;
    uint64_t index = 0;  // in qps_, part of every wr_id
    RpcBuffers buffers;  // kRpcSlots RECV slots, then kSendSlots SEND slots
    std::vector<uint32_t> free_send;
    std::deque<std::pair<uint32_t, uint32_t>> waiting;  // received (slot, bytes) in order
    uint32_t one_way_unreturned = 0;
    bool dead = false;
  };

  void run();
  void on_completion(const ibv_wc& wc);
  // Serves the QP's received messages in order while a send slot is free.
  void serve(Qp& q);
  void serve_one(Qp& q, uint32_t slot, uint32_t bytes, uint32_t send_slot);
  bool post_send(Qp& q, uint32_t send_slot, uint32_t bytes);
  void wait_idle(uint32_t* rounds);

  RdmaDevice& dev_;
  Region& region_;
  const std::atomic<bool>& global_stop_;
  std::atomic<bool> stop_{false};
  ibv_comp_channel* channel_ = nullptr;
  ibv_cq* cq_ = nullptr;
  std::vector<std::unique_ptr<Qp>> qps_;
  std::vector<std::byte> scratch_;  // replies of one-way messages, dropped
  std::thread thread_;
};

}  // namespace lw::rdma
