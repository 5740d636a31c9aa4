// Two-sided RPC under the explorer (explore.h). A memory node's RPC server
// serialises its handlers, so a handler runs atomically in one step: an
// awaited call's step runs it and resumes the caller with the reply (the
// earliest it could resume, as for verbs: a later resumption only widens the
// caller's operation, never reaches another memory state); a one-way message
// is a step of its own. Calls and messages from one queue pair are served in
// posting order (RC SENDs arrive in order); they do not wait for the
// caller's verbs. Handler stores follow the CPU store rules: with
// atomic_loses_cpu off, a handler that would store into an open NIC atomic
// waits for its write-back (found by a dry run on a copy-on-write view).
#include <algorithm>
#include <cstring>

#include "explore_impl.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw::explore::detail {

// The handler's view of its node. Real: every access goes to the explored
// memory (hashed), allocation bumps the node's pointer. Dry run: stores go to
// an overlay and allocation to a copy of the pointer; nothing changes, and
// `blocked` says whether a store would have waited for a NIC atomic.
class XRpcServer final : public RpcServer {
 public:
  XRpcServer(Machine& m, NodeId node, bool dry) : m_(m), node_(node), dry_(dry), next_(m.nodes_[node].host_next) {}

  NodeId node() const override { return node_; }
  lw::Result<uint64_t> load(uint64_t offset) override {
    if (Status st = mem().check(offset, kWord, true); st != Status::kOk) return {st, 0};
    return {Status::kOk, word(offset)};
  }
  Status store(uint64_t offset, uint64_t value) override {
    return update(offset, [&](uint64_t) { return std::pair{true, value}; }).status;
  }
  lw::Result<uint64_t> cas(uint64_t offset, uint64_t expected, uint64_t desired) override {
    return update(offset, [&](uint64_t old) { return std::pair{old == expected, desired}; });
  }
  lw::Result<uint64_t> faa(uint64_t offset, uint64_t add) override {
    return update(offset, [&](uint64_t old) { return std::pair{true, old + add}; });
  }
  Status read(uint64_t offset, void* dst, uint64_t bytes) override {
    if (Status st = mem().check(offset, bytes, false); st != Status::kOk) return st;
    if (bytes == 0) return Status::kOk;
    std::memcpy(dst, mem().bytes(offset), bytes);
    for (const auto& [w, v] : overlay_)  // the dry run's own stores
      if (w < offset + bytes && w + kWord > offset) {
        const uint64_t lo = std::max(w, offset), hi = std::min(w + kWord, offset + bytes);
        std::memcpy(static_cast<std::byte*>(dst) + (lo - offset), reinterpret_cast<const std::byte*>(&v) + (lo - w),
                    hi - lo);
      }
    return Status::kOk;
  }
  Status write(uint64_t offset, const void* src, uint64_t bytes) override {
    if (Status st = mem().check(offset, bytes, false); st != Status::kOk) return st;
    if (bytes == 0) return Status::kOk;
    note_store(offset, offset + bytes);
    if (!dry_) {
      m_.store(node_, offset, src, bytes);
      return Status::kOk;
    }
    // Word by word into the overlay (bounded by the node's size).
    for (uint64_t w = offset & ~uint64_t{kWord - 1}; w < offset + bytes; w += kWord) {
      uint64_t v = word(w);
      const uint64_t lo = std::max(w, offset), hi = std::min(w + kWord, offset + bytes);
      std::memcpy(reinterpret_cast<std::byte*>(&v) + (lo - w), static_cast<const std::byte*>(src) + (lo - offset),
                  hi - lo);
      set_word(w, v);
    }
    return Status::kOk;
  }
  RemoteAddr allocate(uint64_t bytes, uint64_t align) override {
    if (!dry_) return m_.allocate(node_, bytes, align);
    // The same bump as Machine::allocate, on the copy.
    if (align == 0 || (align & (align - 1)) != 0) return {};
    const uint64_t off = (next_ + align - 1) & ~(align - 1);
    if (off > mem().host_bytes() || bytes > mem().host_bytes() - off) return {};
    next_ = off + bytes;
    return {node_, off};
  }
  void charge_cpu(Nanos) override {}  // no time in the explorer

  bool blocked() const { return blocked_; }
  uint32_t stores() const { return stores_; }

 private:
  NodeMemory& mem() { return *m_.nodes_[node_].mem; }
  uint64_t word(uint64_t off) {
    for (const auto& [w, v] : overlay_)
      if (w == off) return v;
    return m_.load_word(node_, off);
  }
  void set_word(uint64_t off, uint64_t v) {
    for (auto& [w, x] : overlay_)
      if (w == off) {
        x = v;
        return;
      }
    overlay_.emplace_back(off, v);
  }
  void note_store(uint64_t lo, uint64_t hi) {
    ++stores_;
    if (m_.store_blocked(node_, lo, hi, m_.sem_.atomic_loses_cpu)) blocked_ = true;
  }
  template <typename F>
  lw::Result<uint64_t> update(uint64_t offset, F next) {
    if (Status st = mem().check(offset, kWord, true); st != Status::kOk) return {st, 0};
    const uint64_t old = word(offset);
    const auto [stores, value] = next(old);
    if (stores) {
      note_store(offset, offset + kWord);
      if (dry_) set_word(offset, value);
      else m_.store(node_, offset, &value, kWord);
    }
    return {Status::kOk, old};
  }

  Machine& m_;
  NodeId node_;
  bool dry_;
  uint64_t next_;
  bool blocked_ = false;
  uint32_t stores_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> overlay_;  // word offset -> value (dry run)
};

bool XWorker::rpc(RpcCall* call, std::coroutine_handle<> waiter) { return m->post_rpc(*this, call, waiter); }

lw::Result<HandlerId> Machine::register_handler(const RpcHandler& h) {
  if (handlers_.size() >= kMaxRpcHandlers) return {Status::kQueueFull, 0};
  if (h.name.empty() || !h.fn) return {Status::kBadLength, 0};
  for (const RpcHandler& o : handlers_)
    if (o.name == h.name) return {Status::kBadLength, 0};
  handlers_.push_back(h);
  return {Status::kOk, static_cast<HandlerId>(handlers_.size() - 1)};
}

void Machine::reset_handlers() {
  handlers_.clear();
  for (const RpcHandler& h : builtin_rpc_handlers()) LW_CHECK(ok(register_handler(h).status));
}

bool Machine::post_rpc(XWorker& w, RpcCall* call, std::coroutine_handle<> waiter) {
  LW_CHECK_MSG(call->one_way == !waiter, "a call awaits its reply; a one-way message does not");
  LW_CHECK(w.wait == XWorker::Wait::kRunning);
  call->reply_bytes = 0;
  if (call->node >= nodes_.size()) {
    call->status = Status::kWrongNode;
    return false;
  }
  if (call->handler >= handlers_.size()) {
    call->status = Status::kUnsupported;
    return false;
  }
  H128 stat;
  for (uint64_t v : {uint64_t{0x52bcull}, uint64_t{call->node}, uint64_t{call->handler},
                     hash_bytes(call->request.data(), call->request.size()), uint64_t{call->reply.size()},
                     uint64_t{call->one_way}, uint64_t{w.index}})
    stat.add(v);
  const uint32_t qp = w.qp_base + call->node;
  if (call->one_way) {
    messages_.push_back({call->node, call->handler, w.index, qp, rpc_seq_++,
                         {call->request.begin(), call->request.end()}, stat});
    call->status = Status::kOk;
    return false;
  }
  w.call = call;
  w.call_stat = stat;
  w.call_seq = rpc_seq_++;
  w.resume = waiter;
  w.wait = XWorker::Wait::kRpc;
  return true;
}

uint32_t Machine::rpc_ahead(uint32_t qp, uint64_t seq) const {
  uint32_t n = 0;
  for (const XMessage& m : messages_) n += m.qp == qp && m.seq < seq;
  for (const auto& w : workers_)
    if (w->wait == XWorker::Wait::kRpc) n += w->qp_base + w->call->node == qp && w->call_seq < seq;
  return n;
}

bool Machine::rpc_enabled(NodeId node, HandlerId h, std::span<const std::byte> request) {
  // Without open NIC atomics nothing can block a store: skip the dry run.
  if (windows_.empty() || sem_.atomic_loses_cpu) return true;
  XRpcServer dry(*this, node, true);
  std::vector<std::byte> reply(kMaxRpcBytes);
  uint32_t bytes = 0;
  (void)handlers_[h].fn(dry, request, reply, &bytes);
  return !dry.blocked();
}

Status Machine::serve_rpc(NodeId node, HandlerId h, std::span<const std::byte> request, std::span<std::byte> reply,
                          uint32_t* reply_bytes, uint32_t worker) {
  XRpcServer server(*this, node, false);
  uint32_t bytes = 0;
  Status st = handlers_[h].fn(server, request, reply, &bytes);
  if (st == Status::kOk && bytes > reply.size()) st = Status::kBadLength;  // it overran the caller's buffer
  *reply_bytes = st == Status::kOk ? bytes : 0;
  if (log_) {
    uint64_t first = 0;
    std::memcpy(&first, reply.data(), std::min<uint64_t>(8, *reply_bytes));
    note(worker, "RPC " + handlers_[h].name + " served on memory node " + std::to_string(node) + " (" +
                     std::to_string(server.stores()) + " store(s)): " + std::string(to_string(st)) + ", " +
                     std::to_string(*reply_bytes) + " B reply" +
                     (*reply_bytes >= 8 ? ", first word " + std::to_string(first) : std::string()));
  }
  return st;
}

void Machine::rpc_steps(std::vector<Step>* out) {
  for (const auto& w : workers_)
    if (w->wait == XWorker::Wait::kRpc && rpc_ahead(w->qp_base + w->call->node, w->call_seq) == 0 &&
        rpc_enabled(w->call->node, w->call->handler, w->call->request))
      out->push_back({StepKind::kRpcServe, 0, w->index});
  for (uint32_t i = 0; i < messages_.size(); ++i) {
    const XMessage& m = messages_[i];
    if (rpc_ahead(m.qp, m.seq) == 0 && rpc_enabled(m.node, m.handler, m.request))
      out->push_back({StepKind::kRpcMessage, 0, i});
  }
}

void Machine::apply_rpc(const Step& s) {
  if (s.kind == StepKind::kRpcMessage) {
    LW_CHECK(s.target < messages_.size());
    const XMessage m = std::move(messages_[s.target]);
    messages_.erase(messages_.begin() + s.target);
    std::vector<std::byte> reply(kMaxRpcBytes);  // dropped: nobody awaits it
    uint32_t bytes = 0;
    (void)serve_rpc(m.node, m.handler, m.request, reply, &bytes, m.worker);
    return;
  }
  XWorker& w = *workers_[s.target];
  LW_CHECK(w.wait == XWorker::Wait::kRpc);
  RpcCall& c = *std::exchange(w.call, nullptr);
  std::vector<std::byte> reply(c.reply.size());
  c.status = serve_rpc(c.node, c.handler, c.request, reply, &c.reply_bytes, w.index);
  if (c.reply_bytes != 0) std::memcpy(c.reply.data(), reply.data(), c.reply_bytes);
  H128 r = w.call_stat;
  r.add((uint64_t{static_cast<uint8_t>(c.status)} << 32) | c.reply_bytes);
  r.add(hash_bytes(reply.data(), c.reply_bytes));
  record(w, r);
  if (log_) note(w.index, "resumes");
  run_worker(w);
  resume_ready();
}

void Machine::hash_rpc(H128* h) const {
  // The allocation pointers: a handler's allocation moves them.
  for (const Node& n : nodes_) h->add(n.host_next ^ n.device_next << 40);
  for (const XMessage& m : messages_) {
    h->add(m.stat);
    h->add(rpc_ahead(m.qp, m.seq));
  }
  for (const auto& w : workers_)
    if (w->wait == XWorker::Wait::kRpc) {
      h->add(w->call_stat);
      h->add(rpc_ahead(w->qp_base + w->call->node, w->call_seq));
    }
}

}  // namespace lw::explore::detail
