// The per-thread engine of the verbs backend: posting, passive completion of
// unsignaled requests, the bounce buffer, deadlines and the coroutine loop.
#include <sched.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "latchwork/base/assert.h"
#include "verbs_impl.h"

namespace lw::rdma {

namespace {

constexpr uint64_t kDeadlineCheckMs = 10;

Status status_of(ibv_wc_status s) {
  switch (s) {
    case IBV_WC_SUCCESS: return Status::kOk;
    case IBV_WC_REM_ACCESS_ERR: return Status::kOutOfBounds;
    case IBV_WC_REM_INV_REQ_ERR: return Status::kMisaligned;
    case IBV_WC_WR_FLUSH_ERR: return Status::kFlushed;
    default: return Status::kTransport;
  }
}

// What a queue entry is, for error messages (a flush READ has no request).
std::string name_of(const Entry& e) {
  return e.rpc_send ? "an RPC SEND" : std::string(to_string(e.wr ? e.wr->opcode : Opcode::kRead));
}

}  // namespace

Engine::~Engine() {
  for (SendQueue& q : queues_)
    if (q.qp) ibv_destroy_qp(q.qp);
  if (cq_) ibv_destroy_cq(cq_);
}

std::string Engine::init(RdmaDevice& dev, ibv_pd* qp_pd, uint32_t nodes, uint32_t depth,
                         uint64_t staging_bytes) {
  // Every request can complete with an entry (flushed ones do), plus flushes,
  // plus every posted RPC RECV.
  const int cqe = static_cast<int>(std::min<uint64_t>(uint64_t{depth + kRpcSlots} * nodes + 64,
                                                      static_cast<uint64_t>(dev.attr().max_cqe)));
  const FenceMode fence = backend_->cfg.verbs.fence;
  engine_fence_ = fence == FenceMode::kEngine || (fence == FenceMode::kAuto && dev.is_soft_roce());
  cq_ = ibv_create_cq(dev.context(), cqe, nullptr, nullptr, 0);
  if (!cq_) return "ibv_create_cq(" + std::to_string(cqe) + ") failed";
  queues_.resize(nodes);
  for (uint32_t n = 0; n < nodes; ++n) {
    SendQueue& q = queues_[n];
    if (std::string e = dev.create_qp(cq_, depth, &q.qp, kRpcSlots, qp_pd); !e.empty()) return e;
    q.psn = (q.qp->qp_num * 2654435761u + index_) & 0xffffff;
    q.ring.resize(depth);
  }
  // RPC replies land in RECVs posted before the QPs connect (RECVs may be
  // posted from INIT on), so a reply never finds none (no RNR).
  if (std::string e = rpc_buffers_.init(dev.pd(), nodes * kRpcSlots); !e.empty()) return e;
  for (uint32_t slot = 0; slot < nodes * kRpcSlots; ++slot)
    if (int rc = rpc_buffers_.post_recv(queues_[slot / kRpcSlots].qp, slot, kRecvWrFlag | slot); rc != 0)
      return std::string("ibv_post_recv: ") + std::strerror(rc);
  return staging_.init(dev.pd(), staging_bytes);
}

bool Engine::post(WorkRequest* wrs, uint32_t n, Coroutine* waiter, bool fire_and_forget,
                  uint64_t* last_seq) {
  const ClusterConfig& cfg = backend_->cfg;
  if (n > cfg.queue_depth || n > Batch::kMax) {
    for (uint32_t i = 0; i < n; ++i) wrs[i].status = Status::kQueueFull;
    return false;
  }
  int last_valid = -1;
  uint32_t valid = 0;
  for (uint32_t i = 0; i < n; ++i) {
    wrs[i].old_value = 0;
    wrs[i].status = backend_->check(wrs[i]);
    if (wrs[i].status == Status::kOk) {
      last_valid = static_cast<int>(i);
      ++valid;
    }
  }
  if (last_valid < 0) return false;
  const NodeId node = wrs[last_valid].remote.node();
  SendQueue& q = queues_[node];
  auto reject = [&](Status s) {
    for (uint32_t i = 0; i < n; ++i)
      if (wrs[i].status == Status::kOk) wrs[i].status = s;
    return false;
  };
  if (q.failed != Status::kOk || !wait_for_room(node, valid)) return reject(Status::kTransport);

  // The requests are posted as chains; an engine fence ends a chain and
  // waits for the READs and atomics before it (wait_fence).
  ibv_send_wr swr[Batch::kMax];
  ibv_sge sge[Batch::kMax];
  uint64_t taken[Batch::kMax];
  uint32_t k = 0;           // requests in the current chain
  uint32_t chain_from = 0;  // index in wrs of its first request
  uint32_t chain_ra = 0;    // 1 + position in the chain of its last READ or atomic, 0 none
  uint64_t signaled_upto = 0;
  bool posted_any = false;
  auto post_chain = [&]() -> bool {
    if (k == 0) return true;
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(q.qp, &swr[0], &bad); rc != 0) {
      for (uint32_t j = 0; j < k; ++j) staging_.give_back(taken[j]);
      fail_queue(node, Status::kTransport, std::string("ibv_post_send failed: ") + std::strerror(rc));
      return false;
    }
    if (chain_ra > 0) q.read_atomic_upto = q.head + chain_ra;
    q.head += k;
    q.last_signaled = std::max(q.last_signaled, signaled_upto);
    stats_.verbs += k;
    stats_.doorbells += 1;
    k = 0;
    chain_ra = 0;
    posted_any = true;
    return true;
  };
  // After a failure mid-batch: the posted requests were completed by
  // fail_queue; the unposted ones, from `from` on, complete with kTransport.
  auto abandon = [&](uint32_t from) {
    for (uint32_t j = from; j < n; ++j)
      if (wrs[j].status == Status::kOk) wrs[j].status = Status::kTransport;
    return false;
  };
  auto rest_from = [&](uint32_t from) {
    uint32_t rest = 0;
    for (uint32_t j = from; j < n; ++j) rest += wrs[j].status == Status::kOk ? 1 : 0;
    return rest;
  };
  const uint32_t force_every = std::max<uint32_t>(1, cfg.queue_depth / 4);
  const RemoteNode& r = *backend_->nodes[node];
  for (uint32_t i = 0; i < n; ++i) {
    WorkRequest& wr = wrs[i];
    if (wr.status != Status::kOk) continue;
    LW_CHECK_MSG(wr.remote.node() == node, "a submit spans memory nodes");
    if (wr.fence && engine_fence_) {
      if (chain_ra > 0 || q.read_atomic_upto > q.tail) {
        if (!post_chain()) return posted_any ? abandon(chain_from) : reject(Status::kTransport);
        ++stats_.fence_waits;
        if (!wait_fence(node)) return posted_any ? abandon(i) : reject(Status::kTransport);
        // The fence's flush READ may have taken room reserved for the rest.
        if (!wait_for_room(node, rest_from(i))) return abandon(i);
      }
    }
    if (k == 0) chain_from = i;
    const bool atomic = is_atomic(wr.opcode);
    const uint32_t len = atomic ? 8 : wr.length;
    if (!staging_.take(len, &taken[k])) {
      // take_staging and wait_for_room may post flush READs at q.head, where
      // the unposted chain sits: the chain goes out first.
      if (!post_chain()) return posted_any ? abandon(chain_from) : reject(Status::kTransport);
      chain_from = i;
      if (!take_staging(len, &taken[0])) return posted_any ? abandon(i) : reject(Status::kTransport);
      if (!wait_for_room(node, rest_from(i))) {
        staging_.give_back(taken[0]);
        return posted_any ? abandon(i) : reject(Status::kTransport);
      }
    }
    Entry& e = q.at(q.head + k);
    e = Entry{};
    if (fire_and_forget) {
      e.copy = wr;
      e.wr = &e.copy;
    } else {
      e.wr = &wr;
    }
    e.staging = taken[k];
    e.has_staging = true;
    e.posted_ms = monotonic_ms();
    if (fire_and_forget) e.signaled = q.unsignaled_run + 1 >= force_every;
    else e.signaled = static_cast<int>(i) == last_valid || wr.signaled;
    if (static_cast<int>(i) == last_valid && !fire_and_forget) e.waiter = waiter;
    q.unsignaled_run = e.signaled ? 0 : q.unsignaled_run + 1;
    if (e.signaled) signaled_upto = q.head + k + 1;
    if (wr.opcode == Opcode::kWrite) std::memcpy(staging_.at(taken[k]), wr.local, len);

    sge[k] = {staging_.addr(taken[k]), len, staging_.lkey()};
    ibv_send_wr& s = swr[k];
    s = {};
    s.wr_id = make_wr_id(node, q.head + k);
    s.sg_list = &sge[k];
    s.num_sge = 1;
    const bool nic_fence = wr.fence && !engine_fence_;
    s.send_flags = (e.signaled ? IBV_SEND_SIGNALED : 0) | (nic_fence ? IBV_SEND_FENCE : 0);
    const uint64_t off = wr.remote.offset();
    const bool device = off >= NodeMemory::kDeviceBase;
    const uint64_t raddr = device ? off - NodeMemory::kDeviceBase : r.base_addr + off;
    const uint32_t rkey = device ? r.dm_rkey : r.rkey;
    switch (wr.opcode) {
      case Opcode::kRead: s.opcode = IBV_WR_RDMA_READ; break;
      case Opcode::kWrite: s.opcode = IBV_WR_RDMA_WRITE; break;
      case Opcode::kCas: s.opcode = IBV_WR_ATOMIC_CMP_AND_SWP; break;
      case Opcode::kFaa: s.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD; break;
      default: LW_CHECK_MSG(false, "masked atomics pass check() on verbs");
    }
    if (atomic) {
      s.wr.atomic.remote_addr = raddr;
      s.wr.atomic.rkey = rkey;
      s.wr.atomic.compare_add = wr.opcode == Opcode::kCas ? wr.compare : wr.operand;
      s.wr.atomic.swap = wr.operand;
    } else {
      s.wr.rdma.remote_addr = raddr;
      s.wr.rdma.rkey = rkey;
    }
    if (k > 0) swr[k - 1].next = &s;
    ++k;
    if (wr.opcode != Opcode::kWrite) chain_ra = k;
  }
  if (!post_chain()) return posted_any ? abandon(chain_from) : reject(Status::kTransport);
  if (last_seq) *last_seq = q.head - 1;
  return true;
}

bool Engine::wait_fence(NodeId node) {
  SendQueue& q = queues_[node];
  uint32_t idle_rounds = 0;
  const uint64_t deadline = monotonic_ms() + backend_->cfg.verbs.op_timeout_ms + kDeadlineCheckMs;
  while (q.failed == Status::kOk && q.tail < q.read_atomic_upto) {
    // Unsignaled requests retire when a later signaled one completes.
    if (q.last_signaled < q.read_atomic_upto) flush(node);
    if (progress() == 0) idle(&idle_rounds);
    check_deadlines();
    if (monotonic_ms() > deadline + 1000)
      fail_queue(node, Status::kTransport, "a fence waited past the operation timeout");
  }
  return q.failed == Status::kOk;
}

Status Engine::post_and_wait(WorkRequest& wr) {
  wr.signaled = true;
  uint64_t seq = 0;
  if (!post(&wr, 1, nullptr, false, &seq)) return wr.status;
  SendQueue& q = queues_[wr.remote.node()];
  const uint64_t deadline = monotonic_ms() + backend_->cfg.verbs.op_timeout_ms + kDeadlineCheckMs;
  uint32_t idle_rounds = 0;
  while (q.tail <= seq) {
    if (progress() == 0) idle(&idle_rounds);
    check_deadlines();
    LW_CHECK_MSG(monotonic_ms() <= deadline + 1000, "post_and_wait outlived its deadline");
  }
  return wr.status;
}

int Engine::progress() {
  ibv_wc wc[32];
  const int got = ibv_poll_cq(cq_, 32, wc);
  if (got < 0) {
    for (NodeId n = 0; n < queues_.size(); ++n)
      if (queues_[n].outstanding()) fail_queue(n, Status::kTransport, "ibv_poll_cq failed");
    return 0;
  }
  for (int i = 0; i < got; ++i) {
    if (wc[i].wr_id & kRecvWrFlag) {
      on_rpc_recv(wc[i]);
      continue;
    }
    const NodeId node = static_cast<NodeId>(wc[i].wr_id >> kSeqBits);
    LW_CHECK(node < queues_.size());
    SendQueue& q = queues_[node];
    // Sequences are dense: recover the full one from its low bits.
    const uint64_t seq = q.tail + (((wc[i].wr_id & kSeqMask) - (q.tail & kSeqMask)) & kSeqMask);
    if (seq >= q.head) continue;  // a late completion of a queue already failed
    if (wc[i].status == IBV_WC_SUCCESS) {
      retire(node, seq);
    } else {
      if (seq > q.tail) retire(node, seq - 1);  // RC completes in order: those succeeded
      const Entry& e = q.at(seq);
      fail_queue(node, status_of(wc[i].status), describe_wc_status(wc[i].status) + " on " + name_of(e));
    }
  }
  if (got == 0) ++stats_.empty_polls;
  return got;
}

void Engine::retire(NodeId node, uint64_t seq) {
  SendQueue& q = queues_[node];
  LW_CHECK(seq >= q.tail && seq < q.head);
  for (uint64_t s = q.tail; s <= seq; ++s) {
    Entry& e = q.at(s);
    if (WorkRequest* wr = e.wr) {
      wr->status = Status::kOk;
      if (wr->opcode == Opcode::kRead) std::memcpy(wr->local, staging_.at(e.staging), wr->length);
      else if (is_atomic(wr->opcode)) std::memcpy(&wr->old_value, staging_.at(e.staging), 8);
    }
    if (e.has_staging) staging_.give_back(e.staging);
    if (e.waiter) submission_done(e.waiter);
    e = Entry{};
  }
  q.tail = seq + 1;
}

void Engine::fail_queue(NodeId node, Status first, const std::string& why) {
  SendQueue& q = queues_[node];
  for (uint64_t s = q.tail; s < q.head; ++s) {
    Entry& e = q.at(s);
    if (e.wr) e.wr->status = s == q.tail ? first : Status::kFlushed;
    if (e.has_staging) staging_.give_back(e.staging);
    if (e.waiter) submission_done(e.waiter);
    e = Entry{};
  }
  q.tail = q.head;
  q.failed = Status::kTransport;
  fail_rpcs(node, Status::kTransport);
  const RemoteNode& r = *backend_->nodes[node];
  backend_->transport_error("memory node " + std::to_string(node) + " (" + r.address.to_string() +
                            "): " + why);
}

std::string Engine::describe_oldest(const SendQueue& q) const {
  const Entry& e = q.at(q.tail);
  std::string what = name_of(e);
  if (e.wr && e.wr->fence) what += " (fenced)";
  uint64_t fenced = 0;
  for (uint64_t s = q.tail; s < q.head; ++s) fenced += q.at(s).wr && q.at(s).wr->fence ? 1 : 0;
  return what + ", " + std::to_string(q.outstanding()) + " outstanding on the queue pair (" +
         std::to_string(fenced) + " fenced)";
}

void Engine::check_deadlines() {
  const uint64_t now = monotonic_ms();
  if (now < last_deadline_check_ms_ + kDeadlineCheckMs) return;
  last_deadline_check_ms_ = now;
  check_rpc_deadlines(now);
  const uint64_t limit = backend_->cfg.verbs.op_timeout_ms;
  for (NodeId n = 0; n < queues_.size(); ++n) {
    SendQueue& q = queues_[n];
    // Only requests a signaled one covers can be late; a trailing unsignaled
    // request completes when the next signaled one does.
    if (q.outstanding() == 0 || q.last_signaled <= q.tail) continue;
    if (now - q.at(q.tail).posted_ms > limit)
      fail_queue(n, Status::kTransport,
                 "no completion within " + std::to_string(limit) + " ms for " + describe_oldest(q) +
                     " (is the memory node alive?)");
  }
}

void Engine::flush(NodeId node) {
  SendQueue& q = queues_[node];
  if (q.failed != Status::kOk || q.outstanding() >= q.ring.size()) return;
  Entry& e = q.at(q.head);
  e = Entry{};
  e.signaled = true;
  e.posted_ms = monotonic_ms();
  ibv_sge sge{staging_.addr(staging_.flush_area()), 8, staging_.lkey()};
  ibv_send_wr s{};
  s.wr_id = make_wr_id(node, q.head);
  s.sg_list = &sge;
  s.num_sge = 1;
  s.opcode = IBV_WR_RDMA_READ;
  s.send_flags = IBV_SEND_SIGNALED;
  s.wr.rdma.remote_addr = backend_->nodes[node]->base_addr;  // offset 0: always registered
  s.wr.rdma.rkey = backend_->nodes[node]->rkey;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(q.qp, &s, &bad); rc != 0) {
    fail_queue(node, Status::kTransport, std::string("ibv_post_send (flush) failed: ") + std::strerror(rc));
    return;
  }
  ++q.head;
  q.last_signaled = q.head;
  q.unsignaled_run = 0;
  ++stats_.flushes;
}

bool Engine::wait_for_room(NodeId node, uint32_t n) {
  SendQueue& q = queues_[node];
  if (q.outstanding() + n <= q.ring.size()) return true;
  ++stats_.room_waits;
  uint32_t idle_rounds = 0;
  const uint64_t deadline = monotonic_ms() + backend_->cfg.verbs.op_timeout_ms + kDeadlineCheckMs;
  while (q.failed == Status::kOk && q.outstanding() + n > q.ring.size()) {
    if (q.last_signaled < q.head) flush(node);  // trailing unsignaled requests need a signal
    if (progress() == 0) idle(&idle_rounds);
    check_deadlines();
    if (monotonic_ms() > deadline + 1000) {
      fail_queue(node, Status::kTransport, "send queue stayed full past the operation timeout");
    }
  }
  return q.failed == Status::kOk;
}

bool Engine::take_staging(uint64_t len, uint64_t* offset) {
  if (staging_.take(len, offset)) return true;
  ++stats_.room_waits;
  uint32_t idle_rounds = 0;
  const uint64_t deadline = monotonic_ms() + backend_->cfg.verbs.op_timeout_ms + kDeadlineCheckMs;
  while (!staging_.take(len, offset)) {
    for (NodeId n = 0; n < queues_.size(); ++n)
      if (queues_[n].outstanding() && queues_[n].last_signaled < queues_[n].head) flush(n);
    if (progress() == 0) idle(&idle_rounds);
    check_deadlines();
    if (monotonic_ms() > deadline + 1000) return false;
  }
  return true;
}

void Engine::drain() {
  uint32_t idle_rounds = 0;
  const uint64_t deadline = monotonic_ms() + backend_->cfg.verbs.op_timeout_ms + kDeadlineCheckMs;
  for (;;) {
    bool busy = false;
    for (NodeId n = 0; n < queues_.size(); ++n) {
      SendQueue& q = queues_[n];
      if (!q.outstanding()) continue;
      busy = true;
      if (q.last_signaled < q.head) flush(n);
    }
    if (!busy) return;
    if (progress() == 0) idle(&idle_rounds);
    check_deadlines();
    LW_CHECK_MSG(monotonic_ms() <= deadline + 1000, "drain outlived its deadline");
  }
}

void Engine::idle(uint32_t* rounds) {
  // Spin briefly (a completion is usually microseconds away), then yield,
  // then sleep: Soft-RoCE does its work on the same CPUs.
  ++*rounds;
  if (*rounds < 64) return;
  if (*rounds < 2000) {
    sched_yield();
    return;
  }
  std::this_thread::sleep_for(std::chrono::microseconds(20));
}

namespace {
thread_local Engine* t_running = nullptr;
}  // namespace

Engine* Engine::current() { return t_running; }

void Engine::run() {
  t_running = this;
  size_t finished = 0;
  uint32_t idle_rounds = 0;
  while (finished < coroutines_.size()) {
    const int handled = progress();
    check_deadlines();
    if (!sleepers_.empty()) {
      const Nanos now = backend_->now();
      for (size_t i = 0; i < sleepers_.size();) {
        if (sleepers_[i]->wake_at <= now) {
          ready_.push_back(sleepers_[i]);
          sleepers_[i] = sleepers_.back();
          sleepers_.pop_back();
        } else {
          ++i;
        }
      }
    }
    if (ready_.empty()) {
      if (handled == 0) idle(&idle_rounds);
      continue;
    }
    idle_rounds = 0;
    for (size_t k = ready_.size(); k > 0 && !ready_.empty(); --k) {
      Coroutine* c = ready_.front();
      ready_.pop_front();
      std::exchange(c->resume_point, {}).resume();
      if (c->task.done()) ++finished;
      else LW_CHECK_MSG(c->resume_point, "a coroutine suspended on something else than Latchwork");
    }
  }
  drain();
  t_running = nullptr;
}

void Engine::submission_done(Coroutine* c) {
  LW_CHECK(c->awaiting > 0);
  if (--c->awaiting == 0) make_ready(c);
}

bool Coroutine::submit(WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter) {
  cpu_streak = 0;
  const bool posted = engine->post(wrs, n, waiter ? this : nullptr, !waiter);
  if (!waiter) return false;
  LW_CHECK(awaiting == 0);
  resume_point = waiter;
  // Nothing in flight: resume from the scheduler, which keeps the stack flat.
  if (!posted) engine->make_ready(this);
  else awaiting = 1;
  return true;
}

bool Coroutine::submit_all(Batch* const* batches, uint32_t k, std::coroutine_handle<> waiter) {
  // post() is true exactly when the batch's signaled (waiter) request went
  // out, to be completed once, by its completion or by fail_queue.
  return await_all(k, waiter, [&](uint32_t b) {
    return engine->post(batches[b]->data(), batches[b]->size(), this, false);
  });
}

void Coroutine::unpark() {
  LW_CHECK_MSG(resume_point, "unpark of a coroutine that is not parked");
  engine->make_ready(this);  // coroutines of one thread share its engine
}

bool Coroutine::sleep(Nanos ns, std::coroutine_handle<> waiter) {
  cpu_streak = 0;
  resume_point = waiter;
  wake_at = now() + ns;
  engine->add_sleeper(this);
  return true;
}

bool Coroutine::cpu_access(CpuAccess* op, std::coroutine_handle<> waiter) {
  // A thread of the memory node this process serves (`latchwork node`) reaches
  // the node's registered memory with its own loads, stores and atomics. They
  // are atomic with each other, not with NIC atomics (IBV_ATOMIC_HCA): a NIC
  // CAS that reads, then writes, may overwrite a CPU update in between.
  const Placement& p = worker.placement();
  const VerbsBackend::Impl& s = *engine->backend();
  if (!p.on_memory_node() || op->addr.node() != p.node || p.node >= s.nodes.size()) {
    op->status = Status::kWrongNode;
    return false;
  }
  const RemoteNode& r = *s.nodes[p.node];
  if (r.local_base == nullptr) {  // spawn admits only the served node's threads
    op->status = Status::kUnsupported;
    return false;
  }
  const uint64_t off = op->addr.offset();
  // Device memory lives on the NIC: no CPU access (check_access with none).
  op->status = NodeMemory::check_access(r.node_bytes, 0, off, 8, true);
  if (op->status != Status::kOk) return false;
  std::atomic_ref<uint64_t> w(*reinterpret_cast<uint64_t*>(r.local_base + off));
  switch (op->kind) {
    case CpuAccess::Kind::kLoad: op->old_value = w.load(); break;
    case CpuAccess::Kind::kStore: op->old_value = w.exchange(op->a); break;
    case CpuAccess::Kind::kCas: {
      uint64_t expected = op->a;
      w.compare_exchange_strong(expected, op->b);
      op->old_value = expected;  // the value before: op->a when it swapped
      break;
    }
    case CpuAccess::Kind::kFaa: op->old_value = w.fetch_add(op->a); break;
  }
  // Done: the coroutine continues without suspending, except every
  // kCpuAccessesPerYield-th access in a row, which goes through the scheduler
  // so that a CPU spin (a waiter polling its descriptor) lets the thread's
  // other coroutines run and its completions be polled.
  if (++cpu_streak < kCpuAccessesPerYield) return false;
  cpu_streak = 0;
  resume_point = waiter;
  engine->make_ready(this);
  return true;
}

Nanos Coroutine::now() const { return engine->backend()->now(); }

}  // namespace lw::rdma
