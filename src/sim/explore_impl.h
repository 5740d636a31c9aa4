// Internals of the exhaustive explorer (latchwork/sim/explore.h).
//
// A Machine is one execution of the program under a Spec: memory nodes, the
// workers' coroutines, the requests in flight. It offers the enabled steps
// of the current state, applies one chosen step, and hashes the state. The
// search (explore_search.cpp) builds a fresh execution by reset() and
// replays a path of steps to reach a state again: coroutines cannot be
// copied, so a state is only ever reached by running to it.
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "latchwork/sim/explore.h"
#include "latchwork/base/random.h"
#include "verbs/node_memory.h"

namespace lw::explore::detail {

// A 128-bit hash built from two independently mixed 64-bit lanes.
struct H128 {
  uint64_t a = 0, b = 0;
  static uint64_t mix(uint64_t x, uint64_t k) {
    x ^= x >> 31;
    x *= k;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return x;
  }
  void add(uint64_t v) {
    a = mix(a ^ v, 0x9e3779b97f4a7c15ull);
    b = mix(b + v + 0x632be59bd9b4e019ull, 0xd6e8feb86659fd93ull);
  }
  void add(const H128& h) {
    add(h.a);
    add(h.b);
  }
  bool operator==(const H128&) const = default;
};
uint64_t hash_bytes(const void* p, size_t n);

enum class StepKind : uint8_t {
  kReadLine,        // one line of a READ fetched (arg: line)
  kReadAll,         // a READ fetched at once
  kWriteFetch,      // the NIC reads one line of an unsignaled WRITE's source
  kWriteLand,       // one line of a WRITE lands (arg: line, or kAll)
  kAtomicRead,      // a NIC atomic reads (and, unsplit, writes back)
  kAtomicWriteBack, // a split NIC atomic writes back
  kCpu,             // a memory-node thread's CPU access (target: worker)
  kWake,            // a sleeping or unparked coroutine resumes (target: worker)
  kRpcServe,        // a memory node runs an awaited call's handler; the caller resumes (target: worker)
  kRpcMessage,      // a memory node runs a one-way message's handler (target: message slot)
};
// One step: what it does and to which request (op slot) or worker.
struct Step {
  StepKind kind = StepKind::kWake;
  uint16_t arg = 0;
  uint32_t target = 0;
  static constexpr uint16_t kAll = 0xffff;
};

// A work request in flight.
struct XOp {
  WorkRequest own;            // the copy of an unsignaled post
  WorkRequest* wr = nullptr;  // where results go
  uint32_t worker = 0;
  uint32_t qp = 0;
  bool awaited = false;       // part of a submission its coroutine awaits
  bool awaited_last = false;  // its completion resumes the coroutine
  bool late = false;          // write_payload_late: source read in fetch steps
  bool split = false;         // a NIC atomic with a window between read and write-back
  bool done = false;          // every effect happened; completes in QP order
  bool window = false;        // an atomic between its read and write-back
  bool atomic_writes = false;
  uint32_t lines = 0;
  uint64_t read_mask = 0;     // READ: lines fetched
  uint32_t fetched = 0, landed = 0;  // WRITE: source lines read, lines landed
  uint64_t atomic_new = 0;
  std::vector<std::byte> data;  // READ: the staged response; WRITE: the payload
  H128 stat;                  // what was posted (fixed)
  H128 dyn;                   // what its steps saw so far
};

class Machine;

// An RPC not yet served: a one-way message (its request copied at post), or
// an awaited call, whose request the suspended caller keeps alive.
struct XMessage {
  NodeId node = 0;
  HandlerId handler = 0;
  uint32_t worker = 0;
  uint32_t qp = 0;     // the sender's queue pair to `node`: its SENDs arrive in order
  uint64_t seq = 0;    // its place among the execution's RPC posts
  std::vector<std::byte> request;
  H128 stat;           // what was posted
};

// The WorkerPort of one coroutine.
struct XWorker final : WorkerPort {
  enum class Wait : uint8_t { kRunning, kOps, kSleep, kParked, kUnparked, kCpu, kDone, kRpc };

  bool submit(WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter) override;
  bool sleep(Nanos ns, std::coroutine_handle<> waiter) override;
  bool cpu_access(CpuAccess* op, std::coroutine_handle<> waiter) override;
  void charge_cpu(Nanos) override {}
  bool rpc(RpcCall* call, std::coroutine_handle<> waiter) override;  // explore_rpc.cpp
  Nanos now() const override;
  void park(std::coroutine_handle<> h) override;
  void unpark() override;

  Machine* m = nullptr;
  uint32_t index = 0;
  Placement place;
  uint32_t qp_base = 0;  // the QP to node n is qp_base + n
  std::optional<Worker> worker;
  Task<void> task;
  std::coroutine_handle<> resume;
  Wait wait = Wait::kDone;
  CpuAccess* cpu = nullptr;
  RpcCall* call = nullptr;        // Wait::kRpc: the call awaiting its handler
  H128 call_stat;                 // what that call posted
  uint64_t call_seq = 0;          // its place among the execution's RPC posts
  bool completed_inline = false;  // its submission completed while it ran
  H128 pending;                   // results of the awaited submission so far
  // The hash chain of results received, and its history for spin reduction:
  // rec[i] is the i-th record kept, chain[i] the chain before it.
  H128 chain;
  std::vector<H128> rec, chain_before;
  std::vector<Rng> rng_before;    // Worker::rng as each record arrived (restored by a fold)
};

class Machine final : public Backend {
 public:
  explicit Machine(const Spec& s);
  ~Machine() override;

  // --- Backend: host-side set-up and inspection ---
  std::string_view name() const override { return "explore"; }
  const ClusterConfig& config() const override { return cfg_; }
  Capabilities capabilities() const override;
  RemoteAddr allocate(NodeId node, uint64_t bytes, uint64_t align = kCacheLine) override;
  RemoteAddr allocate_device_memory(NodeId node, uint64_t bytes) override;
  void host_write(RemoteAddr dst, const void* src, uint64_t bytes) override;
  void host_read(RemoteAddr src, void* dst, uint64_t bytes) override;
  void spawn(Placement, WorkerMain) override;
  RunStats run() override;
  // Handlers: the built-ins, then the set-up's (registered again on every replay).
  lw::Result<HandlerId> register_handler(const RpcHandler& h) override;

  // --- the search's interface ---
  // A fresh execution: memory cleared, set-up run, every worker started and
  // run to its first await.
  void reset();
  void enabled(std::vector<Step>* out);
  // Applies one enabled step; with a log set, appends what happened.
  void apply(const Step& s);
  H128 state_hash() const;
  bool all_finished() const;
  // Non-empty when a worker ended with an exception.
  const std::string& failure() const { return failure_; }
  // What each unfinished worker waits on, one line each.
  std::vector<std::string> waits() const;
  void set_log(std::vector<std::string>* log) { log_ = log; }
  uint64_t steps() const { return steps_; }
  // Spec::logical_clock: a tick, received by worker `w` as a result.
  uint64_t tick(XWorker& w);

 private:
  friend struct XWorker;
  friend class XRpcServer;
  struct Node {
    std::unique_ptr<NodeMemory> mem;
    uint64_t host_next = NodeMemory::kReservedBytes, device_next = 0;
    uint64_t lo = ~uint64_t{0}, hi = 0;          // host bytes touched this execution
    uint64_t dlo = ~uint64_t{0}, dhi = 0;        // device bytes touched
  };
  struct Window {
    NodeId node;
    uint64_t offset;
    uint32_t op;
    bool failed_cas = false;  // a failed CAS writing back what it read (failed_cas_writes_back)
  };

  // Memory, hashed incrementally: XOR of a hash of every non-zero word.
  void store(NodeId node, uint64_t off, const void* src, uint64_t len);
  uint64_t load_word(NodeId node, uint64_t off) { return *nodes_[node].mem->word(off); }
  void touch(Node& n, uint64_t off, uint64_t len);
  bool window_on(NodeId node, uint64_t lo, uint64_t hi) const;
  // Whether an open window keeps a store to [lo, hi) from landing now: one
  // that may not lose it (`losable`: atomic_loses_write / _cpu). A failed
  // CAS's window loses every store (failed_cas_writes_back).
  bool store_blocked(NodeId node, uint64_t lo, uint64_t hi, bool losable) const;

  bool submit(XWorker& w, WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter);
  uint32_t new_op();
  bool blocked(uint32_t qp, size_t k) const;
  void finish_effects(XOp& op);
  void deliver(uint32_t qp);  // completes the QP's finished front requests in order
  void record(XWorker& w, const H128& r);  // a result received, into the chain
  void resume_ready();
  void run_worker(XWorker& w);

  // Human-readable pieces (explore_describe.cpp).
  std::string who(uint32_t worker) const;
  std::string op_text(const XOp& op) const;
  void note(uint32_t worker, const std::string& what);

  // RPC (explore_rpc.cpp): a handler runs atomically in one step on its
  // node's memory, its stores following the CPU store rules.
  void reset_handlers();  // the built-ins only, before a set-up
  bool post_rpc(XWorker& w, RpcCall* call, std::coroutine_handle<> waiter);
  // Calls and messages on queue pair `qp` posted before `seq` not yet served.
  uint32_t rpc_ahead(uint32_t qp, uint64_t seq) const;
  // Whether a handler may run now: a dry run on a copy-on-write view finds
  // none of its stores blocked by an open NIC atomic (atomic_loses_cpu off).
  bool rpc_enabled(NodeId node, HandlerId h, std::span<const std::byte> request);
  // Runs the handler for real; returns the call's status, sets its reply length.
  Status serve_rpc(NodeId node, HandlerId h, std::span<const std::byte> request, std::span<std::byte> reply,
                   uint32_t* reply_bytes, uint32_t worker);
  void rpc_steps(std::vector<Step>* out);
  void apply_rpc(const Step& s);
  void hash_rpc(H128* h) const;

  const Spec& spec_;
  const Semantics& sem_;
  ClusterConfig cfg_;
  std::vector<Node> nodes_;
  H128 mem_hash_;
  std::deque<XOp> ops_;  // a deque: an unsignaled request's `wr` points into it
  std::vector<uint32_t> free_ops_;
  std::vector<std::vector<uint32_t>> qps_;  // op slots in posting order
  std::vector<std::unique_ptr<XWorker>> workers_;
  std::vector<uint32_t> to_resume_;
  std::vector<Window> windows_;
  std::vector<RpcHandler> handlers_;
  std::vector<XMessage> messages_;  // one-way messages not yet served, in posting order
  uint64_t rpc_seq_ = 0;            // RPC posts this execution (orders a QP's SENDs)
  uint64_t steps_ = 0;
  uint64_t clock_ = 0;  // Spec::logical_clock's ticks this execution
  int running_ = -1;  // the worker whose code runs now, or -1
  std::string failure_;
  std::vector<std::string> last_seen_;  // per worker, while logging
  std::vector<std::string>* log_ = nullptr;
};

}  // namespace lw::explore::detail
