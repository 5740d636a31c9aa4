// Two-sided RPC on the compute side of the verbs backend: requests go out as
// SENDs on the thread's QP to the memory node (copied through the staging
// ring like WRITE sources), replies land in RECVs posted per QP and resume
// the coroutine waiting on that call. Wire format and flow control:
// rpc_wire.h.
#include <cstring>

#include "latchwork/base/assert.h"
#include "verbs_impl.h"

namespace lw::rdma {

bool Engine::wait_for_credit(NodeId node) {
  SendQueue& q = queues_[node];
  if (q.rpc_used < kRpcSlots) return true;
  ++stats_.room_waits;
  uint32_t idle_rounds = 0;
  const uint64_t deadline = monotonic_ms() + backend_->cfg.verbs.op_timeout_ms + kRpcDeadlineSlackMs;
  // Credits come back with replies, or in the node's credit messages.
  while (q.failed == Status::kOk && q.rpc_used >= kRpcSlots) {
    if (progress() == 0) idle(&idle_rounds);
    check_deadlines();
    if (monotonic_ms() > deadline)
      fail_queue(node, Status::kTransport, "no RPC credit came back within the operation timeout");
  }
  return q.failed == Status::kOk;
}

Status Engine::post_rpc(RpcCall* call, Coroutine* waiter, bool* done) {
  if (call->node >= queues_.size()) return Status::kWrongNode;
  if (call->handler >= backend_->rpc_handlers) return Status::kUnsupported;
  if (call->request.size() > kMaxRpcBytes || call->reply.size() > kMaxRpcBytes) return Status::kBadLength;
  const NodeId node = call->node;
  SendQueue& q = queues_[node];
  if (q.failed != Status::kOk || !wait_for_credit(node) || !wait_for_room(node, 1))
    return Status::kTransport;
  const uint32_t len = static_cast<uint32_t>(sizeof(RpcHeader) + call->request.size());
  uint64_t staged = 0;
  if (!take_staging(len, &staged)) return Status::kTransport;

  RpcHeader h;
  h.handler = call->handler;
  h.kind = call->one_way ? RpcKind::kOneWay : RpcKind::kRequest;
  h.length = static_cast<uint32_t>(call->request.size());
  h.reply_cap = static_cast<uint16_t>(call->reply.size());
  h.node = node;
  RpcPending* p = nullptr;
  if (!call->one_way) {
    for (uint32_t i = 0; i < kRpcSlots && !p; ++i)
      if (q.pending[i].id == 0) p = &q.pending[i];
    // A free slot exists: calls awaiting replies hold credits, and one is free.
    LW_CHECK_MSG(p != nullptr, "an RPC credit without a free pending slot");
    const uint32_t slot = static_cast<uint32_t>(p - q.pending.data());
    // Low byte: the slot; above it a generation, so a stale reply never matches.
    q.rpc_generation = (q.rpc_generation + 1) & 0xffffff;
    h.call_id = ((q.rpc_generation == 0 ? 1 : q.rpc_generation) << 8) | slot;
  }
  std::memcpy(staging_.at(staged), &h, sizeof h);
  if (!call->request.empty())
    std::memcpy(staging_.at(staged) + sizeof h, call->request.data(), call->request.size());

  Entry& e = q.at(q.head);
  e = Entry{};
  e.staging = staged;
  e.has_staging = true;
  // Signaled: its completion is the RC ACK (the one-way message's passive
  // acknowledgement) and frees the staging span.
  e.signaled = true;
  e.rpc_send = true;
  e.posted_ms = monotonic_ms();
  ibv_sge sge{staging_.addr(staged), len, staging_.lkey()};
  ibv_send_wr s{};
  s.wr_id = make_wr_id(node, q.head);
  s.sg_list = &sge;
  s.num_sge = 1;
  s.opcode = IBV_WR_SEND;
  s.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(q.qp, &s, &bad); rc != 0) {
    e = Entry{};
    staging_.give_back(staged);
    fail_queue(node, Status::kTransport, std::string("ibv_post_send (RPC) failed: ") + std::strerror(rc));
    return Status::kTransport;
  }
  ++q.head;
  q.last_signaled = q.head;
  q.unsignaled_run = 0;
  ++stats_.doorbells;
  ++q.rpc_used;
  if (call->one_way) {
    ++q.rpc_one_way;
  } else {
    *p = RpcPending{h.call_id, call, waiter, done, e.posted_ms};
  }
  return Status::kOk;
}

void Engine::on_rpc_recv(const ibv_wc& wc) {
  const uint32_t slot = static_cast<uint32_t>(wc.wr_id & 0xffffffffu);
  LW_CHECK(slot < rpc_buffers_.count());
  const NodeId node = slot / kRpcSlots;
  SendQueue& q = queues_[node];
  // After a failure the QP's calls are settled; late messages mean nothing.
  if (q.failed != Status::kOk) return;
  if (wc.status != IBV_WC_SUCCESS) {
    fail_queue(node, Status::kTransport, describe_wc_status(wc.status) + " on an RPC RECV");
    return;
  }
  RpcHeader h;
  const std::byte* msg = rpc_buffers_.at(slot);
  if (wc.byte_len < sizeof h) {
    fail_queue(node, Status::kTransport, "a malformed RPC message (" + std::to_string(wc.byte_len) + " bytes)");
    return;
  }
  std::memcpy(&h, msg, sizeof h);
  RpcPending* p = nullptr;
  if (h.kind == RpcKind::kReply) {
    const uint32_t at = h.call_id & 0xff;
    if (at < kRpcSlots && h.call_id != 0 && q.pending[at].id == h.call_id) p = &q.pending[at];
    if (!p) {
      fail_queue(node, Status::kTransport, "an RPC reply to no call in flight");
      return;
    }
    RpcCall* c = p->call;
    const Status st = static_cast<Status>(h.status);
    if (st != Status::kOk) {
      c->status = st;
      c->reply_bytes = 0;
    } else if (h.length > c->reply.size() || sizeof h + h.length > wc.byte_len) {
      c->status = Status::kBadLength;
      c->reply_bytes = 0;
    } else {
      if (h.length) std::memcpy(c->reply.data(), msg + sizeof h, h.length);
      c->status = Status::kOk;
      c->reply_bytes = h.length;
    }
  } else if (h.kind != RpcKind::kCredit) {
    fail_queue(node, Status::kTransport, "an RPC message of unknown kind");
    return;
  }
  // The buffer is consumed: post it again before the credit is reused, so
  // the node's next message always finds a RECV.
  if (int rc = rpc_buffers_.post_recv(q.qp, slot, kRecvWrFlag | slot); rc != 0) {
    fail_queue(node, Status::kTransport, std::string("ibv_post_recv: ") + std::strerror(rc));
    return;
  }
  const uint32_t returned = std::min<uint32_t>(h.credits, q.rpc_one_way);
  q.rpc_one_way -= returned;
  q.rpc_used -= returned;
  if (p) {
    LW_CHECK(q.rpc_used > 0);
    --q.rpc_used;
    if (p->waiter) submission_done(p->waiter);
    if (p->done) *p->done = true;
    *p = RpcPending{};
  }
}

void Engine::fail_rpcs(NodeId node, Status s) {
  SendQueue& q = queues_[node];
  for (RpcPending& p : q.pending) {
    if (p.id == 0) continue;
    p.call->status = s;
    p.call->reply_bytes = 0;
    if (p.waiter) submission_done(p.waiter);
    if (p.done) *p.done = true;
    p = RpcPending{};
  }
  q.rpc_used = 0;
  q.rpc_one_way = 0;
}

void Engine::check_rpc_deadlines(uint64_t now) {
  const uint64_t limit = backend_->cfg.verbs.op_timeout_ms;
  for (NodeId n = 0; n < queues_.size(); ++n) {
    SendQueue& q = queues_[n];
    if (q.rpc_used == 0 || q.failed != Status::kOk) continue;
    for (const RpcPending& p : q.pending) {
      if (p.id != 0 && now - p.posted_ms > limit) {
        fail_queue(n, Status::kTransport,
                   "no RPC reply within " + std::to_string(limit) + " ms (is the memory node alive?)");
        break;
      }
    }
  }
}

Status Engine::call_blocking(RpcCall* call) {
  bool done = false;
  if (Status s = post_rpc(call, nullptr, &done); s != Status::kOk) return s;
  uint32_t idle_rounds = 0;
  const uint64_t deadline = monotonic_ms() + backend_->cfg.verbs.op_timeout_ms + kRpcDeadlineSlackMs;
  while (!done) {
    if (progress() == 0) idle(&idle_rounds);
    check_deadlines();
    // check_deadlines() fails the call after op_timeout_ms; this is a backstop.
    LW_CHECK_MSG(monotonic_ms() <= deadline + 1000, "a blocking RPC outlived its deadline");
  }
  return call->status;
}

bool Coroutine::rpc(RpcCall* call, std::coroutine_handle<> waiter) {
  LW_CHECK(awaiting == 0);
  const Status s = engine->post_rpc(call, waiter ? this : nullptr, nullptr);
  call->status = s;
  if (!waiter || s != Status::kOk) return false;  // one-way, or completed at once
  resume_point = waiter;
  awaiting = 1;  // the reply (or fail_rpcs) counts it down
  return true;
}

bool Coroutine::rpc_all(RpcCall* const* calls, uint32_t k, std::coroutine_handle<> waiter) {
  // A sent call is completed once, by its reply or by fail_rpcs.
  return await_all(k, waiter, [&](uint32_t i) {
    LW_CHECK_MSG(!calls[i]->one_way, "call_all awaits replies");
    calls[i]->reply_bytes = 0;
    calls[i]->status = engine->post_rpc(calls[i], this, nullptr);
    return calls[i]->status == Status::kOk;
  });
}

}  // namespace lw::rdma
