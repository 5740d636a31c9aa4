// Two-sided RPC in virtual time (verbs/rpc.h). A call goes through four
// events: its request SEND arrives at the memory node (timing model), waits
// in the node's bounded FIFO for one of its polling cores, the core polls it
// (recv_cpu_ns) and runs the handler at that instant, spends the handler's
// cost and posts the reply (reply_cpu_ns), and the reply SEND reaches the
// caller, who resumes then (plus the poll CPU every resumption pays).
// With RpcServers::kWorkers the server is one of the node's worker threads
// (rpc_worker_for): the call takes that thread's CPU once it is free (after the
// coroutine step it is running), and its coroutines wait behind it.
#include <algorithm>
#include <cstring>

#include "sim_impl.h"

namespace lw {

using sim::Coroutine;
using sim::EventKind;
using sim::RpcMsg;

namespace {

// The handler's view of its node: CPU accesses with the semantics of a
// memory-node thread's (on_cpu_access), all at the handler's instant, each
// charged as a memory-node thread's access is (cpu_access_ns), the bytes of a
// read or write as copies (copy_ns_per_byte).
class SimRpcServer final : public RpcServer {
 public:
  SimRpcServer(SimBackend::Impl& s, NodeId node, uint32_t core)
      : s_(s), node_(node), m_(*s.memory[node]), who_{Placement::Kind::kMemory, node, core, 0} {}

  NodeId node() const override { return node_; }
  Result<uint64_t> load(uint64_t offset) override {
    if (Status st = m_.mem.check(offset, kWord, true); st != Status::kOk) return {st, 0};
    charged_ += s_.timing->cpu_access();
    return {Status::kOk, *m_.mem.word(offset)};
  }
  Status store(uint64_t offset, uint64_t value) override {
    return update(offset, "RPC handler store", [&](uint64_t) { return std::pair{true, value}; }).status;
  }
  Result<uint64_t> cas(uint64_t offset, uint64_t expected, uint64_t desired) override {
    return update(offset, "RPC handler CAS",
                  [&](uint64_t old) { return std::pair{old == expected, desired}; });
  }
  Result<uint64_t> faa(uint64_t offset, uint64_t add) override {
    return update(offset, "RPC handler FAA", [&](uint64_t old) { return std::pair{true, old + add}; });
  }
  Status read(uint64_t offset, void* dst, uint64_t bytes) override {
    if (Status st = m_.mem.check(offset, bytes, false); st != Status::kOk) return st;
    charged_ += s_.timing->cpu_access() + s_.timing->cpu_work(CpuWork::kCopyByte, bytes);
    if (bytes != 0) std::memcpy(dst, m_.mem.bytes(offset), bytes);
    return Status::kOk;
  }
  Status write(uint64_t offset, const void* src, uint64_t bytes) override {
    if (Status st = m_.mem.check(offset, bytes, false); st != Status::kOk) return st;
    charged_ += s_.timing->cpu_access() + s_.timing->cpu_work(CpuWork::kCopyByte, bytes);
    if (bytes == 0) return Status::kOk;
    std::memcpy(m_.mem.bytes(offset), src, bytes);
    m_.mem.note_written(offset, offset + bytes);
    s_.note_store(m_, offset, offset + bytes, s_.sem.atomic_loses_cpu,
                  {who_, "RPC handler write", RemoteAddr(node_, offset), static_cast<uint32_t>(bytes), s_.now});
    return Status::kOk;
  }
  RemoteAddr allocate(uint64_t bytes, uint64_t align) override {
    const uint64_t off = m_.mem.allocate(bytes, align);
    return off != 0 ? RemoteAddr(node_, off) : RemoteAddr();
  }
  void charge_cpu(Nanos ns) override { charged_ += ns; }
  Nanos work_cost(CpuWork kind, uint64_t units) const override { return s_.timing->cpu_work(kind, units); }
  Nanos charged() const { return charged_; }

 private:
  // A CPU store or atomic: stores race NIC atomics as the contract says
  // (atomic_loses_cpu), exactly as a memory-node thread's would.
  template <typename F>
  Result<uint64_t> update(uint64_t offset, const char* kind, F next) {
    if (Status st = m_.mem.check(offset, kWord, true); st != Status::kOk) return {st, 0};
    charged_ += s_.timing->cpu_access();
    uint64_t* word = m_.mem.word(offset);
    const uint64_t old = *word;
    const auto [stores, value] = next(old);
    if (stores) {
      *word = value;
      m_.mem.note_written(offset, offset + kWord);
      s_.note_store(m_, offset, offset + kWord, s_.sem.atomic_loses_cpu,
                    {who_, kind, RemoteAddr(node_, offset), 8, s_.now});
    }
    return {Status::kOk, old};
  }

  SimBackend::Impl& s_;
  NodeId node_;
  sim::MemoryNode& m_;
  Placement who_;  // the polling core, as the relaxation log names it
  Nanos charged_ = 0;
};

}  // namespace

Result<HandlerId> SimBackend::Impl::register_handler(const RpcHandler& h) {
  if (rpc.handlers.size() >= kMaxRpcHandlers) return {Status::kQueueFull, 0};
  if (h.name.empty() || !h.fn) return {Status::kBadLength, 0};
  for (const RpcHandler& o : rpc.handlers)
    if (o.name == h.name) return {Status::kBadLength, 0};
  rpc.handlers.push_back(h);
  return {Status::kOk, static_cast<HandlerId>(rpc.handlers.size() - 1)};
}

bool SimBackend::Impl::rpc_post(Coroutine* c, RpcCall* call, std::coroutine_handle<> waiter) {
  LW_CHECK_MSG(call->one_way == !waiter, "a call awaits its reply; a one-way message does not");
  if (!rpc_send(c, call) || call->one_way) return false;
  LW_CHECK(c->rpcs_awaited == 0);
  c->rpcs_awaited = 1;
  c->resume_point = waiter;
  return true;
}

bool SimBackend::Impl::rpc_post_all(Coroutine* c, RpcCall* const* calls, uint32_t k, std::coroutine_handle<> waiter) {
  LW_CHECK(waiter && c->rpcs_awaited == 0);
  uint32_t sent = 0;
  for (uint32_t i = 0; i < k; ++i) {
    LW_CHECK_MSG(!calls[i]->one_way, "call_all awaits replies");
    sent += rpc_send(c, calls[i]);
  }
  if (sent == 0) return false;
  c->rpcs_awaited = sent;
  c->resume_point = waiter;
  return true;
}

// Sends one call or message; false if it failed before sending.
bool SimBackend::Impl::rpc_send(Coroutine* c, RpcCall* call) {
  call->reply_bytes = 0;
  if (call->node >= cfg.memory_nodes) {
    call->status = Status::kWrongNode;
    return false;
  }
  if (call->handler >= rpc.handlers.size()) {
    call->status = Status::kUnsupported;
    return false;
  }
  RpcMsg* m;
  if (rpc.pool.empty()) {
    rpc.store.push_back(std::make_unique<RpcMsg>());
    m = rpc.store.back().get();
  } else {
    m = rpc.pool.back();
    rpc.pool.pop_back();
  }
  sim::Thread* t = c->thread;
  m->call = call->one_way ? nullptr : call;
  m->caller = c;
  m->route = t->route;
  m->route.memory_node = call->node;
  m->handler = call->handler;
  m->request.assign(call->request.begin(), call->request.end());
  m->reply.assign(call->one_way ? kMaxRpcBytes : call->reply.size(), std::byte{0});
  m->status = Status::kOk;
  m->reply_bytes = 0;
  m->stage = RpcMsg::Stage::kToNode;
  // Posting the SEND costs the CPU what posting a verb does.
  timing->set_horizon(now);
  WorkRequest send;
  send.opcode = Opcode::kWrite;
  send.length = static_cast<uint32_t>(m->request.size());
  t->cur = timing->post_batch(m->route, &send, 1, t->cur);
  m->posted = t->cur;
  events.push(timing->rpc_request(m->route, send.length, m->posted, rng), EventKind::kRpcArrive, m);
  if (call->one_way) {
    ++rpc.one_way;
    call->status = Status::kOk;
    return true;
  }
  ++rpc.calls;
  return true;
}

sim::Thread& SimBackend::Impl::rpc_worker_for(const RpcMsg& m) {
  // FaSST's and DrTM+H's thread-to-thread connections: thread i of a node
  // calls thread i (modulo the callee's threads) of another.
  const uint32_t in_node = m.route.thread_in_node % cfg.memory_node_threads;
  const size_t index = size_t{cfg.compute_nodes} * cfg.threads_per_node +
                       size_t{m.route.memory_node} * cfg.memory_node_threads + in_node;
  LW_CHECK(index < threads.size());
  sim::Thread& t = *threads[index];
  LW_CHECK(t.base.on_memory_node() && t.base.node == m.route.memory_node);
  return t;
}

void SimBackend::Impl::on_rpc_arrive(RpcMsg* m) {
  m->arrived = now;
  timing->set_horizon(now);
  if (m->call == nullptr) timing->completed(m->route);  // a one-way SEND is acknowledged passively
  sim::RpcNode& n = rpc.nodes[m->route.memory_node];
  if (cfg.rpc.servers == RpcServers::kWorkers) {
    if (n.on_workers < cfg.rpc.queue_capacity) {
      ++n.on_workers;
      sim::Thread& t = rpc_worker_for(*m);
      LW_CHECK(!t.running);  // events fire between coroutine steps
      const Nanos start = std::max(now, t.cpu_free_at);
      t.cpu_free_at = start + cfg.rpc.recv_cpu_ns;  // its coroutines wait while it polls and serves
      m->core = t.base.thread;
      m->started = start;
      m->stage = RpcMsg::Stage::kServing;
      rpc.queue_wait_ns_total += start - now;
      rpc.queue_wait_ns_max = std::max(rpc.queue_wait_ns_max, start - now);
      events.push(t.cpu_free_at, EventKind::kRpcServe, m);
      return;
    }
  }
  if (cfg.rpc.servers == RpcServers::kCores) {
    for (uint32_t core = 0; core < n.serving.size(); ++core) {
      if (n.serving[core] == nullptr) {
        rpc_start(m, core);
        return;
      }
    }
    if (n.queue.size() < cfg.rpc.queue_capacity) {
      m->stage = RpcMsg::Stage::kQueued;
      n.queue.push_back(m);
      return;
    }
  }
  // No receive buffer left: the call fails, and the caller learns it from
  // an empty reply (a one-way message is just dropped).
  ++rpc.rejected;
  if (m->call == nullptr) {
    rpc_free(m);
    return;
  }
  m->status = Status::kQueueFull;
  m->stage = RpcMsg::Stage::kToCaller;
  events.push(timing->rpc_response(m->route, 0, now, rng), EventKind::kRpcReply, m);
}

void SimBackend::Impl::rpc_start(RpcMsg* m, uint32_t core) {
  sim::RpcNode& n = rpc.nodes[m->route.memory_node];
  LW_CHECK(core < n.serving.size() && n.serving[core] == nullptr);
  n.serving[core] = m;
  m->core = core;
  m->started = now;
  m->stage = RpcMsg::Stage::kServing;
  const Nanos waited = now - m->arrived;
  rpc.queue_wait_ns_total += waited;
  rpc.queue_wait_ns_max = std::max(rpc.queue_wait_ns_max, waited);
  events.push(now + cfg.rpc.recv_cpu_ns, EventKind::kRpcServe, m);
}

void SimBackend::Impl::on_rpc_serve(RpcMsg* m) {
  const RpcHandler& h = rpc.handlers[m->handler];
  SimRpcServer server(*this, m->route.memory_node, m->core);
  uint32_t bytes = 0;
  Status st = h.fn(server, m->request, m->reply, &bytes);
  if (st == Status::kOk && bytes > m->reply.size()) st = Status::kBadLength;  // it overran the caller's buffer
  m->status = st;
  m->reply_bytes = st == Status::kOk ? bytes : 0;
  ++rpc.served;
  const Nanos cost = h.cpu_ns + server.charged() + cfg.rpc.reply_cpu_ns;
  Nanos end = now + cost;
  if (cfg.rpc.servers == RpcServers::kWorkers) {
    // The worker's CPU: after whatever was booked on it since the call began.
    sim::Thread& t = rpc_worker_for(*m);
    LW_CHECK(!t.running);
    end = std::max(now, t.cpu_free_at) + cost;
    t.cpu_free_at = end;
    rpc.core_busy_ns_total += cfg.rpc.recv_cpu_ns + cost;
  } else {
    rpc.core_busy_ns_total += end - m->started;
  }
  events.push(end, EventKind::kRpcDone, m);
}

void SimBackend::Impl::on_rpc_done(RpcMsg* m) {
  sim::RpcNode& n = rpc.nodes[m->route.memory_node];
  if (cfg.rpc.servers == RpcServers::kWorkers) {
    LW_CHECK(n.on_workers > 0);
    --n.on_workers;
    rpc_reply_or_free(m);
    return;
  }
  const uint32_t core = m->core;
  LW_CHECK(n.serving[core] == m);
  n.serving[core] = nullptr;
  rpc_reply_or_free(m);
  if (!n.queue.empty()) {
    RpcMsg* next = n.queue.front();
    n.queue.pop_front();
    rpc_start(next, core);
  }
}

void SimBackend::Impl::rpc_reply_or_free(RpcMsg* m) {
  if (m->call != nullptr) {
    timing->set_horizon(now);
    m->stage = RpcMsg::Stage::kToCaller;
    events.push(timing->rpc_response(m->route, m->reply_bytes, now, rng), EventKind::kRpcReply, m);
  } else {
    rpc_free(m);
  }
}

void SimBackend::Impl::on_rpc_reply(RpcMsg* m) {
  RpcCall& call = *m->call;
  Coroutine* c = m->caller;
  LW_CHECK(c->rpcs_awaited > 0);
  timing->completed(m->route);
  call.status = m->status;
  call.reply_bytes = m->reply_bytes;
  if (m->reply_bytes != 0) std::memcpy(call.reply.data(), m->reply.data(), m->reply_bytes);
  trace.mix((uint64_t{m->reply_bytes} << 8) | static_cast<uint64_t>(m->status));
  --c->rpcs_awaited;
  rpc_free(m);
  if (c->crashed) return;  // the caller's node died: nobody takes the reply
  if (c->rpcs_awaited == 0) make_ready(c, c->resume_point);
}

// A call `c` awaits, for blocked() to report: a scan, since only a stall
// report asks.
const RpcMsg* SimBackend::Impl::awaited_rpc(const Coroutine& c) const {
  if (c.rpcs_awaited == 0) return nullptr;
  // Bounded by the messages ever allocated; a freed one has no caller.
  for (const std::unique_ptr<RpcMsg>& m : rpc.store)
    if (m->caller == &c && m->call != nullptr) return m.get();
  LW_CHECK_MSG(false, "a coroutine awaits a reply that no message carries");
  return nullptr;
}

void SimBackend::Impl::rpc_free(RpcMsg* m) {
  m->call = nullptr;
  m->caller = nullptr;
  rpc.pool.push_back(m);
}

void SimBackend::Impl::rpc_report(std::map<std::string, double>* out) const {
  if (rpc.calls + rpc.one_way == 0) return;
  (*out)["rpc.calls"] = static_cast<double>(rpc.calls);
  (*out)["rpc.one_way"] = static_cast<double>(rpc.one_way);
  (*out)["rpc.served"] = static_cast<double>(rpc.served);
  (*out)["rpc.rejected"] = static_cast<double>(rpc.rejected);
  (*out)["rpc.queue_wait_ns_total"] = static_cast<double>(rpc.queue_wait_ns_total);
  (*out)["rpc.queue_wait_ns_max"] = static_cast<double>(rpc.queue_wait_ns_max);
  (*out)["rpc.core_busy_ns_total"] = static_cast<double>(rpc.core_busy_ns_total);
}

}  // namespace lw
