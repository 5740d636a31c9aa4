// Internals of the verbs backend shared by its connection set-up
// (verbs_backend.cpp) and its per-thread engine (verbs_engine.cpp).
#pragma once

#include <infiniband/verbs.h>

#include <array>
#include <chrono>
#include <coroutine>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/rdma/verbs_backend.h"
#include "verbs/node_memory.h"
#include "rdma_device.h"
#include "rpc_buffers.h"
#include "staging_ring.h"
#include "tcp_channel.h"
#include "thread_resources.h"

namespace lw {
namespace rdma {

// A memory node as the compute process sees it.
struct RemoteNode {
  MemoryNodeAddress address;
  TcpChannel channel;
  std::mutex channel_mu;  // allocation may come from several threads
  uint64_t base_addr = 0;
  uint32_t rkey = 0;
  uint64_t node_bytes = 0;
  uint64_t dm_bytes = 0;
  uint32_t dm_rkey = 0;
  std::vector<std::string> handlers;  // the node's RPC handler table, in id order
  // Served by this process (`latchwork node`, local_region.h): the node's
  // memory at offset 0, which its threads reach with CPU accesses. Else null.
  std::byte* local_base = nullptr;
};

class Engine;

// wr_id of a send-queue entry: node and sequence (bit 63 marks RECVs).
inline constexpr int kSeqBits = 48;
inline constexpr uint64_t kSeqMask = (uint64_t{1} << kSeqBits) - 1;
// Backstop beyond op_timeout_ms for loops that wait on the deadline check.
inline constexpr uint64_t kRpcDeadlineSlackMs = 100;
inline uint64_t make_wr_id(NodeId node, uint64_t seq) {
  return (uint64_t{node} << kSeqBits) | (seq & kSeqMask);
}

// One coroutine: the WorkerPort the verbs API talks to.
struct Coroutine final : WorkerPort {
  Coroutine(Engine* e, Placement p, uint64_t seed, WorkerMain m)
      : engine(e), worker(this, p, seed), main(std::move(m)) {}
  bool submit(WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter) override;
  bool submit_all(Batch* const* batches, uint32_t k, std::coroutine_handle<> waiter) override;
  bool sleep(Nanos ns, std::coroutine_handle<> waiter) override;
  bool cpu_access(CpuAccess* op, std::coroutine_handle<> waiter) override;
  bool rpc(RpcCall* call, std::coroutine_handle<> waiter) override;
  bool rpc_all(RpcCall* const* calls, uint32_t k, std::coroutine_handle<> waiter) override;
  void park(std::coroutine_handle<> h) override { resume_point = h; }
  void unpark() override;
  // submit_all and rpc_all: `post(i)` sends the i-th of k, true if its
  // completion (or reply) will count `awaiting` down once. A guard holds
  // while it posts: posting may wait for room or credit and poll, completing
  // earlier ones; they must not resume the coroutine while it still posts.
  template <typename Post>
  bool await_all(uint32_t k, std::coroutine_handle<> waiter, Post post);
  void charge_cpu(Nanos) override {}  // real CPU time passes by itself
  Nanos now() const override;

  Engine* engine;
  Worker worker;
  WorkerMain main;
  Task<void> task;
  std::coroutine_handle<> resume_point;
  Nanos wake_at = 0;
  uint32_t cpu_streak = 0;  // CPU accesses since it last suspended
  uint32_t awaiting = 0;    // posted submissions whose completion it still awaits
};

// A memory-node thread's CPU accesses complete without suspending; every this
// many in a row, the coroutine yields to the thread's others (cpu_access).
inline constexpr uint32_t kCpuAccessesPerYield = 64;

// A posted request until it retires.
struct Entry {
  WorkRequest* wr = nullptr;  // null for internal flush READs
  WorkRequest copy;           // fire-and-forget requests own their copy
  Coroutine* waiter = nullptr;
  uint64_t staging = 0;
  bool has_staging = false;
  bool signaled = false;
  bool rpc_send = false;      // an RPC message (SEND), not a one-sided verb
  uint64_t posted_ms = 0;
};

// A call awaiting its reply (rpc_client.cpp).
struct RpcPending {
  uint32_t id = 0;            // 0: free
  RpcCall* call = nullptr;
  Coroutine* waiter = nullptr;
  bool* done = nullptr;       // blocking calls from host code (allocate)
  uint64_t posted_ms = 0;
};

// One RC queue pair to one memory node, with its requests in posting order.
struct SendQueue {
  ibv_qp* qp = nullptr;
  uint32_t psn = 0;
  std::vector<Entry> ring;  // queue_depth entries, indexed by sequence % depth
  uint64_t head = 0;        // next sequence to post
  uint64_t tail = 0;        // oldest not retired
  uint64_t last_signaled = 0;  // 1 + sequence of the newest signaled entry, 0 none
  uint32_t unsignaled_run = 0;
  // 1 + sequence of the newest READ or atomic posted, 0 none: what an engine
  // fence waits for (Engine::wait_fence).
  uint64_t read_atomic_upto = 0;
  Status failed = Status::kOk;
  // Two-sided RPC (rpc_wire.h): credits in use = calls awaiting a reply +
  // one-way messages whose credit the node has not returned yet.
  uint32_t rpc_used = 0;
  uint32_t rpc_one_way = 0;
  uint32_t rpc_generation = 0;
  std::array<RpcPending, kRpcSlots> pending{};

  uint64_t outstanding() const { return head - tail; }
  Entry& at(uint64_t seq) { return ring[seq % ring.size()]; }
  const Entry& at(uint64_t seq) const { return ring[seq % ring.size()]; }
};

struct EngineStats {
  uint64_t verbs = 0, doorbells = 0, empty_polls = 0, room_waits = 0, flushes = 0, fence_waits = 0;
};

// A compute thread's verbs machinery: CQ, a QP per memory node, staging,
// and the coroutines it runs. Used by one OS thread at a time.
class Engine {
 public:
  Engine(VerbsBackend::Impl* backend, uint32_t index) : backend_(backend), index_(index) {}
  ~Engine();

  // `qp_pd`: the PD to create QPs in (a parent domain), null for dev.pd().
  std::string init(RdmaDevice& dev, ibv_pd* qp_pd, uint32_t nodes, uint32_t depth,
                   uint64_t staging_bytes);
  SendQueue& queue(NodeId node) { return queues_[node]; }

  // Posts the valid requests of `wrs` (the others complete at once with
  // their Status). With a waiter the last posted one is signaled and
  // resumes it. Returns whether anything was posted.
  // Fire-and-forget requests are copied and posted unsignaled (every
  // queue_depth/4-th signaled so the queue drains); *last_seq is the
  // sequence of the last one posted.
  bool post(WorkRequest* wrs, uint32_t n, Coroutine* waiter, bool fire_and_forget,
            uint64_t* last_seq = nullptr);
  // Posts one signaled request and polls until it retires (host access).
  Status post_and_wait(WorkRequest& wr);

  // Two-sided RPC (rpc_client.cpp). Sends `call` as a SEND on the QP to its
  // node; kOk when sent (a call then completes later: the waiter is made
  // ready, or *done set), else the status it completed with at once.
  Status post_rpc(RpcCall* call, Coroutine* waiter, bool* done);
  // Sends a call and polls until its reply (coroutine code that must not
  // suspend, e.g. Backend::allocate during run()).
  Status call_blocking(RpcCall* call);
  // The engine running on this OS thread inside run(), or null.
  static Engine* current();

  void add(Coroutine* c) {
    coroutines_.push_back(c);
    ready_.push_back(c);
  }
  void make_ready(Coroutine* c) { ready_.push_back(c); }
  // A submission `c` awaited has completed: the last one makes it ready.
  void submission_done(Coroutine* c);
  void add_sleeper(Coroutine* c) { sleepers_.push_back(c); }
  // Runs every coroutine to completion, then drains unsignaled requests.
  void run();
  const EngineStats& stats() const { return stats_; }
  VerbsBackend::Impl* backend() const { return backend_; }
  bool has_coroutines() const { return !coroutines_.empty(); }

 private:
  // Polls the CQ once; returns the completions handled.
  int progress();
  void retire(NodeId node, uint64_t seq);
  void fail_queue(NodeId node, Status first, const std::string& why);
  void check_deadlines();
  std::string describe_oldest(const SendQueue& q) const;  // for a deadline message
  // Engine fence: polls until every READ and atomic posted on `node`'s QP has
  // completed; false on transport failure.
  bool wait_fence(NodeId node);
  // Makes sure `node`'s QP can take `n` more requests; false on transport failure.
  bool wait_for_room(NodeId node, uint32_t n);
  bool take_staging(uint64_t len, uint64_t* offset);
  void flush(NodeId node);
  void drain();
  void idle(uint32_t* idle_rounds);
  // RPC: a RECV completed; waits for a credit; fails calls past the timeout.
  void on_rpc_recv(const ibv_wc& wc);
  bool wait_for_credit(NodeId node);
  void fail_rpcs(NodeId node, Status s);
  void check_rpc_deadlines(uint64_t now);

  VerbsBackend::Impl* backend_;
  uint32_t index_;
  ibv_cq* cq_ = nullptr;
  std::vector<SendQueue> queues_;
  StagingRing staging_;
  RpcBuffers rpc_buffers_;  // kRpcSlots RECV slots per memory node
  std::vector<Coroutine*> coroutines_;
  std::deque<Coroutine*> ready_;
  std::vector<Coroutine*> sleepers_;
  EngineStats stats_;
  uint64_t last_deadline_check_ms_ = 0;
  bool engine_fence_ = false;  // fence in the engine, not IBV_SEND_FENCE (VerbsConfig::fence)
};

template <typename Post>
bool Coroutine::await_all(uint32_t k, std::coroutine_handle<> waiter, Post post) {
  cpu_streak = 0;
  LW_CHECK(awaiting == 0);
  resume_point = waiter;
  awaiting = 1;
  for (uint32_t i = 0; i < k; ++i) {
    ++awaiting;
    if (!post(i)) --awaiting;
  }
  engine->submission_done(this);  // drops the guard: ready now if all are done
  return true;
}

}  // namespace rdma

struct VerbsBackend::Impl {
  ClusterConfig cfg;
  std::unique_ptr<rdma::RdmaDevice> device;
  rdma::ThreadResources resources;  // outlives the engines (declared before them)
  std::vector<std::unique_ptr<rdma::RemoteNode>> nodes;
  // Compute threads, then the memory-node threads of the node this process
  // serves (cfg.verbs.local_node), then the host's.
  std::vector<std::unique_ptr<rdma::Engine>> engines;
  std::vector<std::unique_ptr<rdma::Coroutine>> coroutines;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  bool ran = false;
  std::mutex error_mu;
  std::string first_error;
  uint64_t transport_errors = 0;
  uint32_t rpc_handlers = 0;  // handler ids every memory node serves
  // Symmetric nodes: host-side allocations so far, per node (their names).
  uint64_t generation = 0;  // this process's symmetric backends before this one
  std::mutex host_alloc_mu;
  std::vector<uint64_t> host_allocs;

  rdma::Engine& host_engine() { return *engines.back(); }
  bool symmetric() const { return cfg.verbs.local_node >= 0; }
  // The engine that runs coroutines placed at `p` (compute threads and the
  // threads of the node this process serves).
  rdma::Engine& engine_for(const Placement& p);
  // Nanoseconds since the backend started (wall clock: this is real hardware).
  Nanos now() const {
    return static_cast<Nanos>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now() - start)
                                  .count());
  }
  // Validates a request against the node's registered bounds and the
  // device's capabilities; kOk when it may be posted.
  Status check(const WorkRequest& wr) const;
  // A memory node stopped answering: report it, and end the process unless
  // the config asks to carry on with kTransport statuses.
  void transport_error(const std::string& what);
};

}  // namespace lw
