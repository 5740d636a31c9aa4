#include "rpc_server.h"

#include <poll.h>
#include <sched.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "latchwork/base/assert.h"

namespace lw::rdma {

namespace {

// A handler's view of the node: CPU accesses to the registered memory.
// Atomics are std::atomic_ref on the region, atomic among handlers (every
// session's thread) but not with NIC atomics (IBV_ATOMIC_HCA), as the
// RpcServer contract says.
class RegionServer final : public RpcServer {
 public:
  RegionServer(Region& r, NodeId node) : r_(r), node_(node) {}
  NodeId node() const override { return node_; }
  Result<uint64_t> load(uint64_t off) override {
    if (Status s = check(off, 8, true); s != Status::kOk) return {s, 0};
    return {Status::kOk, word(off).load()};
  }
  Status store(uint64_t off, uint64_t v) override {
    if (Status s = check(off, 8, true); s != Status::kOk) return s;
    word(off).store(v);
    return Status::kOk;
  }
  Result<uint64_t> cas(uint64_t off, uint64_t expected, uint64_t desired) override {
    if (Status s = check(off, 8, true); s != Status::kOk) return {s, 0};
    word(off).compare_exchange_strong(expected, desired);
    return {Status::kOk, expected};  // the value before, on success or not
  }
  Result<uint64_t> faa(uint64_t off, uint64_t add) override {
    if (Status s = check(off, 8, true); s != Status::kOk) return {s, 0};
    return {Status::kOk, word(off).fetch_add(add)};
  }
  Status read(uint64_t off, void* dst, uint64_t bytes) override {
    if (Status s = check(off, bytes, false); s != Status::kOk) return s;
    std::memcpy(dst, at(off), bytes);
    return Status::kOk;
  }
  Status write(uint64_t off, const void* src, uint64_t bytes) override {
    if (Status s = check(off, bytes, false); s != Status::kOk) return s;
    std::memcpy(at(off), src, bytes);
    return Status::kOk;
  }
  RemoteAddr allocate(uint64_t bytes, uint64_t align) override {
    if (bytes == 0 || align == 0 || (align & (align - 1)) != 0) return {};
    const uint64_t off = r_.bump(bytes, align, false);
    return off ? RemoteAddr(node_, off) : RemoteAddr();
  }
  void charge_cpu(Nanos) override {}  // real CPU time passes by itself

 private:
  Status check(uint64_t off, uint64_t len, bool atomic) const {
    // Host memory only: device memory is not CPU-addressable here.
    return NodeMemory::check_access(r_.bytes, 0, off, len, atomic);
  }
  std::byte* at(uint64_t off) const { return static_cast<std::byte*>(r_.base) + off; }
  std::atomic_ref<uint64_t> word(uint64_t off) const {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(at(off)));
  }

  Region& r_;
  NodeId node_;
};

constexpr uint64_t kQpShift = 16;  // wr_id: QP index << 16 | buffer slot
constexpr uint32_t kSlotsPerQp = kRpcSlots + RpcServerLoop::kSendSlots;

}  // namespace

RpcServerLoop::~RpcServerLoop() {
  stop();
  for (auto& q : qps_)
    if (q->qp) ibv_destroy_qp(q->qp);
  qps_.clear();  // deregisters the buffers
  if (cq_) ibv_destroy_cq(cq_);
  if (channel_) ibv_destroy_comp_channel(channel_);
}

std::string RpcServerLoop::init(uint32_t max_qps) {
  channel_ = ibv_create_comp_channel(dev_.context());
  if (!channel_) return std::string("ibv_create_comp_channel: ") + std::strerror(errno);
  // Each QP completes at most kRpcSlots RECVs (the requester's credits) and
  // kSendSlots SENDs before the loop polls again.
  const uint64_t want = uint64_t{max_qps} * kSlotsPerQp + 16;
  const int cqe = static_cast<int>(std::min<uint64_t>(want, static_cast<uint64_t>(dev_.attr().max_cqe)));
  cq_ = ibv_create_cq(dev_.context(), cqe, nullptr, channel_, 0);
  if (!cq_) return "ibv_create_cq(" + std::to_string(cqe) + ") failed";
  scratch_.resize(kMaxRpcBytes);
  return {};
}

std::string RpcServerLoop::create_qp(ibv_qp** out) {
  LW_CHECK_MSG(!thread_.joinable(), "RPC QPs are added before the loop starts");
  auto q = std::make_unique<Qp>();
  if (std::string e = dev_.create_qp(cq_, kSendSlots, &q->qp, kRpcSlots); !e.empty()) return e;
  if (std::string e = q->buffers.init(dev_.pd(), kSlotsPerQp); !e.empty()) {
    ibv_destroy_qp(q->qp);
    return e;
  }
  const uint64_t index = qps_.size();
  q->index = index;
  for (uint32_t s = 0; s < kRpcSlots; ++s)
    if (int rc = q->buffers.post_recv(q->qp, s, kRecvWrFlag | (index << kQpShift) | s); rc != 0) {
      ibv_destroy_qp(q->qp);
      return std::string("ibv_post_recv: ") + std::strerror(rc);
    }
  for (uint32_t s = 0; s < kSendSlots; ++s) q->free_send.push_back(kRpcSlots + s);
  *out = q->qp;
  qps_.push_back(std::move(q));
  return {};
}

void RpcServerLoop::start() {
  if (qps_.empty() || thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void RpcServerLoop::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void RpcServerLoop::run() {
  uint32_t rounds = 0;
  while (!stop_.load(std::memory_order_relaxed) && !global_stop_.load(std::memory_order_relaxed)) {
    ibv_wc wc[16];
    const int got = ibv_poll_cq(cq_, 16, wc);
    if (got < 0) return;  // the device failed: the session's clients see timeouts
    for (int i = 0; i < got; ++i) on_completion(wc[i]);
    for (auto& q : qps_)
      if (!q->waiting.empty()) serve(*q);
    if (got > 0) rounds = 0;
    else wait_idle(&rounds);
  }
}

void RpcServerLoop::on_completion(const ibv_wc& wc) {
  const uint64_t index = (wc.wr_id & ~kRecvWrFlag) >> kQpShift;
  const uint32_t slot = static_cast<uint32_t>(wc.wr_id & ((1u << kQpShift) - 1));
  LW_CHECK(index < qps_.size() && slot < kSlotsPerQp);
  Qp& q = *qps_[index];
  if (wc.status != IBV_WC_SUCCESS) {
    q.dead = true;  // the compute process left (flush) or stopped answering
    q.waiting.clear();
    return;
  }
  if (wc.wr_id & kRecvWrFlag) q.waiting.emplace_back(slot, wc.byte_len);
  else q.free_send.push_back(slot);
}

void RpcServerLoop::serve(Qp& q) {
  // In order, each message needing a send slot (a reply, or perhaps a
  // credit message); a slot frees when an earlier SEND completes.
  while (!q.dead && !q.waiting.empty() && !q.free_send.empty()) {
    auto [slot, bytes] = q.waiting.front();
    q.waiting.pop_front();
    const uint32_t send_slot = q.free_send.back();
    q.free_send.pop_back();
    serve_one(q, slot, bytes, send_slot);
  }
}

void RpcServerLoop::serve_one(Qp& q, uint32_t slot, uint32_t bytes, uint32_t send_slot) {
  RpcHeader h;
  const std::byte* msg = q.buffers.at(slot);
  if (bytes < sizeof h) {
    q.dead = true;  // not our protocol: stop serving this QP
    return;
  }
  std::memcpy(&h, msg, sizeof h);
  if (h.kind != RpcKind::kRequest && h.kind != RpcKind::kOneWay) {
    q.dead = true;
    return;
  }
  const bool one_way = h.kind == RpcKind::kOneWay;
  std::byte* out = q.buffers.at(send_slot);
  const std::span<std::byte> reply = one_way ? std::span<std::byte>(scratch_)
                                             : std::span<std::byte>(out + sizeof(RpcHeader),
                                                                    std::min<uint32_t>(h.reply_cap, kMaxRpcBytes));
  uint32_t reply_bytes = 0;
  Status st = Status::kOk;
  const auto& table = region_.handlers;
  if (h.length > kMaxRpcBytes || sizeof h + h.length > bytes) st = Status::kBadLength;
  else if (h.handler >= table.size()) st = Status::kUnsupported;
  if (st == Status::kOk) {
    RegionServer server(region_, h.node);
    st = table[h.handler].fn(server, std::span<const std::byte>(msg + sizeof h, h.length), reply, &reply_bytes);
    if (st != Status::kOk || reply_bytes > reply.size()) reply_bytes = 0;
  }
  // The request is consumed: post its buffer again before answering, so the
  // requester's next message (sent once it sees this reply) finds a RECV.
  if (q.buffers.post_recv(q.qp, slot, kRecvWrFlag | (q.index << kQpShift) | slot) != 0) {
    q.dead = true;
    return;
  }
  RpcHeader r;
  if (one_way) {
    if (++q.one_way_unreturned < kRpcCreditBatch) {
      q.free_send.push_back(send_slot);
      return;
    }
    r.kind = RpcKind::kCredit;
  } else {
    r.kind = RpcKind::kReply;
    r.call_id = h.call_id;
    r.status = static_cast<uint8_t>(st);
    r.length = reply_bytes;
  }
  // Piggyback: every message returns the one-way credits consumed so far.
  r.credits = static_cast<uint16_t>(q.one_way_unreturned);
  q.one_way_unreturned = 0;
  std::memcpy(out, &r, sizeof r);
  if (!post_send(q, send_slot, static_cast<uint32_t>(sizeof r + r.length))) q.dead = true;
}

bool RpcServerLoop::post_send(Qp& q, uint32_t send_slot, uint32_t bytes) {
  ibv_sge sge = q.buffers.sge(send_slot, bytes);
  ibv_send_wr s{};
  s.wr_id = (q.index << kQpShift) | send_slot;
  s.sg_list = &sge;
  s.num_sge = 1;
  s.opcode = IBV_WR_SEND;
  s.send_flags = IBV_SEND_SIGNALED;  // its completion frees the send slot
  ibv_send_wr* bad = nullptr;
  return ibv_post_send(q.qp, &s, &bad) == 0;
}

void RpcServerLoop::wait_idle(uint32_t* rounds) {
  // Spin, then yield, then sleep on the completion channel: Soft-RoCE and
  // the compute processes share these CPUs, and idle sessions must not burn
  // them. The 50 ms bound lets the loop notice stop.
  ++*rounds;
  if (*rounds < 64) return;
  if (*rounds < 1000) {
    sched_yield();
    return;
  }
  if (ibv_req_notify_cq(cq_, 0) != 0) {
    ::poll(nullptr, 0, 1);
    return;
  }
  // A completion that arrived before the notification was armed raises no
  // event: look once more before sleeping.
  ibv_wc wc;
  const int got = ibv_poll_cq(cq_, 1, &wc);
  if (got > 0) {
    on_completion(wc);
    *rounds = 0;
    return;
  }
  pollfd p{channel_->fd, POLLIN, 0};
  if (::poll(&p, 1, 50) > 0) {
    ibv_cq* cq = nullptr;
    void* ctx = nullptr;
    if (ibv_get_cq_event(channel_, &cq, &ctx) == 0) ibv_ack_cq_events(cq, 1);
    *rounds = 0;
  }
}

}  // namespace lw::rdma
