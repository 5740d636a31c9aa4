#include "rpc_server.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <span>

#include "latchwork/base/assert.h"
#include "latchwork/base/start_thread.h"

namespace lw::threads {

void ReplyInbox::push(Coroutine* c) {
  {
    std::lock_guard<std::mutex> g(mu_);
    LW_CHECK_MSG(items_.size() < capacity_, "more replies than coroutines awaiting them");
    items_.push_back(c);
  }
  cv_.notify_one();
}

void ReplyInbox::drain(std::deque<Coroutine*>* out, uint64_t wait_ns) {
  std::unique_lock<std::mutex> g(mu_);
  if (items_.empty() && wait_ns > 0)
    cv_.wait_for(g, std::chrono::nanoseconds(wait_ns), [&] { return !items_.empty(); });
  out->insert(out->end(), items_.begin(), items_.end());
  items_.clear();
}

namespace {

// The handler's view of its node: CPU accesses as a memory-node thread's
// (Coroutine::cpu_access): word updates take the line's stripe, so they are
// atomic with NIC verbs on that line except adversarial NIC atomics, which
// are a separate load and store and may lose them.
class ThreadsRpcServer final : public RpcServer {
 public:
  ThreadsRpcServer(NodeId node, LineMemory& mem) : node_(node), m_(mem) {}
  NodeId node() const override { return node_; }
  Result<uint64_t> load(uint64_t offset) override {
    if (Status st = m_.check(offset, kWord, true); st != Status::kOk) return {st, 0};
    return {Status::kOk, LineMemory::load_word(m_.storage(offset))};
  }
  Status store(uint64_t offset, uint64_t value) override {
    return update(offset, [&](uint64_t, uint64_t* n) { *n = value; return true; }).status;
  }
  Result<uint64_t> cas(uint64_t offset, uint64_t expected, uint64_t desired) override {
    return update(offset, [&](uint64_t old, uint64_t* n) { *n = desired; return old == expected; });
  }
  Result<uint64_t> faa(uint64_t offset, uint64_t add) override {
    return update(offset, [&](uint64_t old, uint64_t* n) { *n = old + add; return true; });
  }
  Status read(uint64_t offset, void* dst, uint64_t bytes) override {
    if (bytes == 0) return Status::kOk;
    if (Status st = m_.check(offset, bytes, false); st != Status::kOk) return st;
    auto* out = static_cast<std::byte*>(dst);
    for (uint64_t done = 0; done < bytes;) {  // line by line, each atomically
      const uint64_t at = offset + done;
      const uint64_t len = std::min<uint64_t>(bytes - done, kCacheLine - at % kCacheLine);
      m_.read_line(at, m_.storage(at), len, out + done);
      done += len;
    }
    return Status::kOk;
  }
  Status write(uint64_t offset, const void* src, uint64_t bytes) override {
    if (bytes == 0) return Status::kOk;
    if (Status st = m_.check(offset, bytes, false); st != Status::kOk) return st;
    const auto* in = static_cast<const std::byte*>(src);
    for (uint64_t done = 0; done < bytes;) {
      const uint64_t at = offset + done;
      const uint64_t len = std::min<uint64_t>(bytes - done, kCacheLine - at % kCacheLine);
      m_.write_line(at, m_.storage(at), len, in + done);
      done += len;
    }
    return Status::kOk;
  }
  RemoteAddr allocate(uint64_t bytes, uint64_t align) override {
    const uint64_t off = m_.raw().allocate(bytes, align);  // NodeMemory's allocator is thread-safe
    return off != 0 ? RemoteAddr(node_, off) : RemoteAddr();
  }
  void charge_cpu(Nanos) override {}  // real CPU time passes by itself

 private:
  template <typename F>
  Result<uint64_t> update(uint64_t offset, F fn) {
    if (Status st = m_.check(offset, kWord, true); st != Status::kOk) return {st, 0};
    return {Status::kOk, m_.update_word(offset, m_.storage(offset), fn)};
  }
  NodeId node_;
  LineMemory& m_;
};

}  // namespace

RpcService::RpcService(const RpcConfig& cfg, std::vector<LineMemory*> nodes,
                       const std::vector<RpcHandler>* handlers)
    : cfg_(cfg), nodes_(std::move(nodes)), handlers_(handlers) {
  LW_CHECK(cfg_.cores_per_node >= 1 && cfg_.queue_capacity >= 1);
  for (size_t i = 0; i < nodes_.size(); ++i) queues_.push_back(std::make_unique<NodeQueue>());
}

RpcService::~RpcService() { stop(); }

void RpcService::start() {
  LW_CHECK(servers_.empty());
  // A thread that cannot be created throws; the destructor's stop() joins
  // those already serving.
  const size_t total = nodes_.size() * cfg_.cores_per_node;
  for (NodeId n = 0; n < nodes_.size(); ++n)
    for (uint32_t core = 0; core < cfg_.cores_per_node; ++core)
      servers_.push_back(start_thread("RPC server", servers_.size(), total, [this, n, core] { serve(n, core); }));
}

Status RpcService::post(NodeId node, RpcJob&& job) {
  LW_CHECK(node < queues_.size());
  NodeQueue& q = *queues_[node];
  {
    std::lock_guard<std::mutex> g(q.mu);
    LW_CHECK_MSG(!q.stopping, "an RPC posted after run() ended");
    if (q.jobs.size() >= cfg_.queue_capacity) return Status::kQueueFull;
    q.jobs.push_back(std::move(job));
  }
  q.cv.notify_one();
  return Status::kOk;
}

void RpcService::stop() {
  for (auto& q : queues_) {
    {
      std::lock_guard<std::mutex> g(q->mu);
      q->stopping = true;
    }
    q->cv.notify_all();
  }
  for (std::thread& t : servers_) t.join();
  servers_.clear();
}

uint64_t RpcService::served() const {
  uint64_t n = 0;
  for (const auto& q : queues_) {
    std::lock_guard<std::mutex> g(q->mu);
    n += q->served;
  }
  return n;
}

void RpcService::serve(NodeId node, uint32_t /*core*/) {
  NodeQueue& q = *queues_[node];
  ThreadsRpcServer server(node, *nodes_[node]);
  std::array<std::byte, kMaxRpcBytes> scratch;  // one-way replies, dropped
  for (;;) {
    RpcJob job;
    {
      std::unique_lock<std::mutex> g(q.mu);
      q.cv.wait(g, [&] { return !q.jobs.empty() || q.stopping; });
      if (q.jobs.empty()) return;  // stopping, and every queued call was served
      job = std::move(q.jobs.front());
      q.jobs.pop_front();
      ++q.served;
    }
    const RpcHandler& h = (*handlers_)[job.handler];
    std::span<std::byte> reply = job.call != nullptr ? job.call->reply : std::span<std::byte>(scratch);
    uint32_t bytes = 0;
    Status st = h.fn(server, job.request, reply, &bytes);
    if (st == Status::kOk && bytes > reply.size()) st = Status::kBadLength;
    if (job.call == nullptr) continue;
    job.call->status = st;
    job.call->reply_bytes = st == Status::kOk ? bytes : 0;
    job.inbox->push(job.caller);  // its mutex publishes the reply to the caller's thread
  }
}

}  // namespace lw::threads
