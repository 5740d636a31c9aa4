// The coroutine verbs API: what data-structure code is written against.
//
// A Worker is the context of one coroutine on one compute (or memory-node)
// thread. Every remote operation is an explicit co_await:
//
//   Status s = co_await w.read(buf, addr, 64);
//   Result<uint64_t> r = co_await w.cas(latch, 0, 1);
//
// Operations to one memory node can be posted together on the thread's queue
// pair to that node (doorbell batching) and awaited once:
//
//   Batch b;
//   b.write(data_addr, buf, 256);
//   b.cas(latch_addr, 1, 0);
//   Status s = co_await w.execute(b);
//
// Ordering on one queue pair follows the semantics contract (see
// config/semantics.h). Coroutines of one thread share its queue pairs.
#pragma once

#include <array>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "latchwork/base/assert.h"
#include "latchwork/base/layout.h"
#include "latchwork/base/random.h"
#include "latchwork/base/status.h"
#include "latchwork/verbs/cpu_work.h"
#include "latchwork/runtime/task.h"
#include "latchwork/verbs/rpc.h"
#include "latchwork/verbs/work_request.h"

namespace lw {

// Where a coroutine runs.
struct Placement {
  enum class Kind : uint8_t { kCompute, kMemory };
  Kind kind = Kind::kCompute;
  uint32_t node = 0;       // compute node index, or memory node id
  uint32_t thread = 0;     // thread on that node
  uint32_t coroutine = 0;  // coroutine slot on that thread

  bool on_memory_node() const { return kind == Kind::kMemory; }
};

// A CPU load, store or atomic by a thread running on a memory node.
struct CpuAccess {
  enum class Kind : uint8_t { kLoad, kStore, kCas, kFaa };
  Kind kind = Kind::kLoad;
  RemoteAddr addr;
  uint64_t a = 0;  // store: value; CAS: expected; FAA: addend
  uint64_t b = 0;  // CAS: desired
  Status status = Status::kOk;
  uint64_t old_value = 0;  // load: value; CAS/FAA: before
};

// A memory-node thread spinning with CPU loads on a word of its own node
// while the word holds `value` (Worker::cpu_wait_while).
struct CpuWait {
  RemoteAddr addr;
  uint64_t value = 0;      // spin while the word holds this
  uint64_t max_polls = 0;  // loads at most (at least 1)
  Status status = Status::kOk;
  uint64_t last = 0;   // the value the last load saw
  uint64_t polls = 0;  // loads made
};

class Batch;

// What a backend implements for each coroutine.
class WorkerPort {
 public:
  virtual ~WorkerPort() = default;
  // Posts `n` requests to one memory node on the calling thread's queue pair.
  // With a waiter: the requests stay owned by the caller, results are filled
  // in, and the waiter is resumed after the last completes; returns false if
  // they already completed (the caller continues without suspending).
  // Without a waiter: the requests are copied, complete silently, and their
  // results are dropped; returns false.
  virtual bool submit(WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter) = 0;
  // Posts `k` batches, each to one memory node on that node's queue pair,
  // all before awaiting any, and resumes the waiter once every one has
  // completed; returns false if none was posted (their statuses say why).
  // Worker::execute_all checked the batches. A backend without it marks
  // every request kUnsupported.
  virtual bool submit_all(Batch* const* batches, uint32_t k, std::coroutine_handle<> waiter);
  virtual bool sleep(Nanos ns, std::coroutine_handle<> waiter) = 0;
  virtual bool cpu_access(CpuAccess* op, std::coroutine_handle<> waiter) = 0;
  // The loop of cpu_access loads that Worker::cpu_wait_while describes, done
  // by the backend. One that has nothing better sets kUnsupported and returns
  // false; the Worker then runs the loop itself.
  virtual bool cpu_wait(CpuWait* op, std::coroutine_handle<> waiter) {
    (void)waiter;
    op->status = Status::kUnsupported;
    return false;
  }
  // Accounts CPU work of the coroutine (virtual time in the simulator).
  virtual void charge_cpu(Nanos ns) = 0;
  virtual Nanos now() const = 0;
  // Modelled CPU time of `units` of `kind` (0 where real CPU time passes).
  virtual Nanos work_cost(CpuWork /*kind*/, uint64_t /*units*/) const { return 0; }
  // Sends a two-sided call (rpc.h). With a waiter (calls with a reply): the
  // call stays owned by the caller, status and reply are filled in, and the
  // waiter is resumed when the reply arrived; returns false if it already
  // completed. One-way calls (no waiter): the request is copied at post and
  // acknowledged passively; returns false. Backends without RPC complete the
  // call with kUnsupported.
  virtual bool rpc(RpcCall* call, std::coroutine_handle<> waiter) {
    (void)waiter;
    call->status = Status::kUnsupported;
    return false;
  }
  // Sends `k` calls with replies (each to one memory node) before awaiting
  // any, and resumes the waiter once every reply is in; returns false if
  // none was sent (their statuses say why). Worker::call_all checked them.
  // Backends without it complete every call with kUnsupported.
  virtual bool rpc_all(RpcCall* const* calls, uint32_t k, std::coroutine_handle<> waiter);
  // Waiting lists (the runtime's credits and coroutine slots): park()
  // suspends this coroutine at `h` until another coroutine of the same
  // thread calls unpark() on this port, which schedules it to resume once the
  // thread is free, in the order of unpark calls. A coroutine parked forever
  // is a deadlock (the simulator reports it).
  virtual void park(std::coroutine_handle<> h) = 0;
  virtual void unpark() = 0;
  // A coroutine retrying on state another one must change (a torn node, a
  // node in mid-split) says so. Where the NIC is a CPU thread (threads
  // backend) a WRITE half-landed by a preempted thread stays half-landed for
  // a time slice, so that backend yields the OS thread; a NIC lands its WRITEs
  // by itself, and the simulator's time passes only by modelled costs: no-op.
  virtual void relax() {}
};

// What one coroutine has issued so far (every backend counts the same way):
// the runtime's per-operation statistics are differences of these.
struct OpCounters {
  uint64_t round_trips = 0;    // awaited submissions: a verb, a batch, a call
  uint64_t work_requests = 0;  // work requests posted, awaited or not
  uint64_t bytes_read = 0;     // READ bytes and atomics' 8 bytes back
  uint64_t bytes_written = 0;  // WRITE bytes and atomics' 8 bytes out
  uint64_t rpcs = 0;           // two-sided calls and one-way messages
  uint64_t retries = 0;        // counted by the structure: note_retry()
};

// Up to kMax requests to one memory node, posted together.
class Batch {
 public:
  static constexpr uint32_t kMax = 16;

  WorkRequest& read(void* dst, RemoteAddr src, uint32_t len);
  WorkRequest& write(RemoteAddr dst, const void* src, uint32_t len);
  WorkRequest& cas(RemoteAddr addr, uint64_t expected, uint64_t desired);
  WorkRequest& faa(RemoteAddr addr, uint64_t add);
  WorkRequest& masked_cas(RemoteAddr addr, uint64_t expected, uint64_t desired,
                          uint64_t compare_mask, uint64_t swap_mask);
  WorkRequest& masked_faa(RemoteAddr addr, uint64_t add, uint64_t field_mask);
  WorkRequest& add(const WorkRequest& wr);

  uint32_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  void clear() { n_ = 0; }
  WorkRequest& operator[](uint32_t i) { LW_CHECK(i < n_); return wrs_[i]; }
  const WorkRequest& operator[](uint32_t i) const { LW_CHECK(i < n_); return wrs_[i]; }
  WorkRequest* data() { return wrs_.data(); }

  // The first error among the requests, or kOk.
  Status status() const;

 private:
  std::array<WorkRequest, kMax> wrs_{};
  uint32_t n_ = 0;
};

class Worker {
 public:
  Worker(WorkerPort* port, Placement placement, uint64_t seed)
      : port_(port), placement_(placement), rng_(seed) {}
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  const Placement& placement() const { return placement_; }
  // This coroutine's random stream, derived from the run's seed.
  Rng& rng() { return rng_; }
  // Virtual nanoseconds in the simulator; wall nanoseconds since start otherwise.
  Nanos now() const { return port_->now(); }
  void charge_cpu(Nanos ns) { port_->charge_cpu(ns); }
  // Accounts modelled CPU work (the simulator; a no-op on real hardware).
  void compute(CpuWork kind, uint64_t units) { port_->charge_cpu(port_->work_cost(kind, units)); }
  // See WorkerPort::relax().
  void relax() { port_->relax(); }

  struct [[nodiscard]] OpAwaiter {
    WorkerPort* port;
    WorkRequest wr;
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) { return port->submit(&wr, 1, h); }
    Status await_resume() const noexcept { return wr.status; }
  };
  struct [[nodiscard]] AtomicAwaiter {
    WorkerPort* port;
    WorkRequest wr;
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) { return port->submit(&wr, 1, h); }
    Result<uint64_t> await_resume() const noexcept { return {wr.status, wr.old_value}; }
  };
  struct [[nodiscard]] BatchAwaiter {
    WorkerPort* port;
    Batch* batch;
    Status early;  // set when the batch is rejected before posting
    bool await_ready() const noexcept { return early != Status::kOk; }
    bool await_suspend(std::coroutine_handle<> h) {
      return port->submit(batch->data(), batch->size(), h);
    }
    Status await_resume() const noexcept { return early != Status::kOk ? early : batch->status(); }
  };
  struct [[nodiscard]] MultiAwaiter {
    WorkerPort* port;
    Batch* const* batches;
    uint32_t k;
    Status early;  // set when a batch is rejected before posting
    bool await_ready() const noexcept { return early != Status::kOk; }
    bool await_suspend(std::coroutine_handle<> h) { return port->submit_all(batches, k, h); }
    Status await_resume() const noexcept;
  };
  struct [[nodiscard]] SleepAwaiter {
    WorkerPort* port;
    Nanos ns;
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) { return port->sleep(ns, h); }
    void await_resume() const noexcept {}
  };
  struct [[nodiscard]] RpcAwaiter {
    WorkerPort* port;
    RpcCall call;
    bool await_ready() const noexcept { return call.status != Status::kOk; }
    bool await_suspend(std::coroutine_handle<> h) { return port->rpc(&call, h); }
    Result<uint32_t> await_resume() const noexcept { return {call.status, call.reply_bytes}; }
  };
  struct [[nodiscard]] RpcAllAwaiter {
    WorkerPort* port;
    RpcCall* const* calls;
    uint32_t k;
    Status early;  // set when a call is rejected before sending
    bool await_ready() const noexcept { return early != Status::kOk; }
    bool await_suspend(std::coroutine_handle<> h) { return port->rpc_all(calls, k, h); }
    Status await_resume() const noexcept;
  };
  struct [[nodiscard]] CpuAwaiter {
    WorkerPort* port;
    CpuAccess op;
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) { return port->cpu_access(&op, h); }
    Result<uint64_t> await_resume() const noexcept { return {op.status, op.old_value}; }
  };

  // One-sided verbs, each awaited on its own.
  OpAwaiter read(void* dst, RemoteAddr src, uint32_t len, bool fence = false);
  OpAwaiter write(RemoteAddr dst, const void* src, uint32_t len, bool fence = false);
  AtomicAwaiter cas(RemoteAddr addr, uint64_t expected, uint64_t desired, bool fence = false);
  AtomicAwaiter faa(RemoteAddr addr, uint64_t add, bool fence = false);
  AtomicAwaiter masked_cas(RemoteAddr addr, uint64_t expected, uint64_t desired,
                           uint64_t compare_mask, uint64_t swap_mask);
  AtomicAwaiter masked_faa(RemoteAddr addr, uint64_t add, uint64_t field_mask);

  // Posts the batch on one queue pair (the last request signaled, the others
  // completed passively by it) and resumes when all are done. A batch whose
  // requests name different memory nodes fails with kWrongNode untouched.
  BatchAwaiter execute(Batch& batch);

  // Posts every batch (each to one memory node; several nodes, or several
  // batches to one) before awaiting any, and resumes when all are done: one
  // round trip where execute() one after another makes k. The array must
  // outlive the await. At most kMaxBatchesAwaited; an empty or mixed-node
  // batch fails the whole await with kBadLength or kWrongNode, untouched.
  // The result is the first error among the requests, in batch order.
  static constexpr uint32_t kMaxBatchesAwaited = 64;
  MultiAwaiter execute_all(std::span<Batch* const> batches);

  // Posts the batch unsignaled and returns at once: nothing to await, results
  // dropped. A later signaled request on the same queue pair completes it.
  // As on real NICs, a WRITE's source is read when the NIC executes it, not
  // at post: it must stay alive and unchanged until a later signaled request
  // on the same queue pair has completed (completions come in posting order,
  // so the WRITE has executed by then); post_buffer() gives such storage.
  // The simulator with write_payload_late sends whatever the buffer holds
  // when its NIC reads it. (The verbs backend copies sources into a
  // registered bounce buffer at post, so it cannot show this; nor can the
  // threads backend.) READ destinations must stay valid likewise.
  Status post(Batch& batch);

  // Storage owned by this worker for the source of unsignaled WRITEs to
  // `node`, at least `bytes` long and alive as long as the worker. The next
  // call for the same node may reuse (and move) it: call again only after a
  // signaled request to `node`, posted after those WRITEs, has completed.
  std::span<std::byte> post_buffer(NodeId node, size_t bytes);

  // Two-sided RPC (rpc.h): runs handler `h` on memory node `node` with
  // `request` and awaits its reply in `reply`; the result is the reply's
  // length. Requests and replies longer than kMaxRpcBytes fail with
  // kBadLength before sending; an unknown handler fails with kUnsupported.
  RpcAwaiter call(NodeId node, HandlerId h, std::span<const std::byte> request,
                  std::span<std::byte> reply);
  // Sends every call (node, handler, request and reply filled in; not
  // one-way) before awaiting any, and resumes when all replies are in: one
  // round trip where call() one after another makes k (FaSST's and DrTM+H's
  // requests to several machines at once). The calls must outlive the await;
  // each gets its status and reply_bytes. At most kMaxCallsAwaited; a request
  // or reply over kMaxRpcBytes, an unknown handler or a one-way call fails the
  // whole await untouched. The result is the first error, in call order.
  static constexpr uint32_t kMaxCallsAwaited = 64;
  RpcAllAwaiter call_all(std::span<RpcCall* const> calls);
  // A one-way message to handler `h`: copied at post, acknowledged passively,
  // nothing to await; its reply (if any) is dropped.
  Status send(NodeId node, HandlerId h, std::span<const std::byte> request);

  // Counters of what this coroutine issued (OpCounters); a structure marks a
  // retry of a logical operation with note_retry().
  const OpCounters& counters() const { return counters_; }
  void note_retry() { ++counters_.retries; }
  WorkerPort* port() const { return port_; }

  struct [[nodiscard]] ParkAwaiter {
    WorkerPort* port;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) { port->park(h); }
    void await_resume() const noexcept {}
  };
  // Suspends until another coroutine of this thread calls port()->unpark().
  ParkAwaiter park() { return {port_}; }

  // Gives up the thread to other coroutines for at least `ns`.
  SleepAwaiter sleep(Nanos ns) { return {port_, ns}; }

  // CPU access for a thread running on a memory node, to that node's memory.
  // CPU atomics are atomic with each other but not with NIC atomics.
  CpuAwaiter cpu_load(RemoteAddr addr);
  CpuAwaiter cpu_store(RemoteAddr addr, uint64_t value);
  CpuAwaiter cpu_cas(RemoteAddr addr, uint64_t expected, uint64_t desired);
  CpuAwaiter cpu_faa(RemoteAddr addr, uint64_t add);

  // Local spinning: CPU loads of a word of this worker's own memory node, one
  // after another, while it holds `value`, at most `max_polls` (>= 1) loads.
  // Returns the value the last load saw (still `value` only when the loads
  // ran out) and the loads made, or the first load's error. It is the loop
  //   do { v = co_await cpu_load(addr); } while (v == value && ++n < max_polls);
  // with the same cost per load and, in the simulator, the same events; it
  // only does not resume the coroutine between loads (src/sim/sim_cpu_wait.cpp).
  struct CpuWaitResult {
    Status status = Status::kOk;
    uint64_t value = 0;
    uint64_t polls = 0;
  };
  Task<CpuWaitResult> cpu_wait_while(RemoteAddr addr, uint64_t value, uint64_t max_polls);

 private:
  Status check_batch(const Batch& batch) const;
  void count(const WorkRequest& wr);

  WorkerPort* port_;
  Placement placement_;
  Rng rng_;
  OpCounters counters_;
  std::vector<std::vector<std::byte>> post_buffers_;  // by memory node
};

// The single verbs and CPU accesses are inline: they are a simulated verb's
// whole cost on the requester side, and two calls were a tenth of it.
inline void Worker::count(const WorkRequest& wr) {
  ++counters_.work_requests;
  if (wr.opcode == Opcode::kRead) {
    counters_.bytes_read += wr.length;
  } else if (wr.opcode == Opcode::kWrite) {
    counters_.bytes_written += wr.length;
  } else {
    counters_.bytes_read += 8;
    counters_.bytes_written += 8;
  }
}

inline Worker::OpAwaiter Worker::read(void* dst, RemoteAddr src, uint32_t len, bool fence) {
  OpAwaiter a{port_, {.opcode = Opcode::kRead, .fence = fence, .length = len, .remote = src,
                      .local = dst}};
  ++counters_.round_trips;
  count(a.wr);
  return a;
}

inline Worker::OpAwaiter Worker::write(RemoteAddr dst, const void* src, uint32_t len, bool fence) {
  OpAwaiter a{port_, {.opcode = Opcode::kWrite, .fence = fence, .length = len, .remote = dst,
                      .local = const_cast<void*>(src)}};
  ++counters_.round_trips;
  count(a.wr);
  return a;
}

inline Worker::AtomicAwaiter Worker::cas(RemoteAddr addr, uint64_t expected, uint64_t desired,
                                         bool fence) {
  AtomicAwaiter a{port_, {.opcode = Opcode::kCas, .fence = fence, .length = 8, .remote = addr,
                          .compare = expected, .operand = desired}};
  ++counters_.round_trips;
  count(a.wr);
  return a;
}

inline Worker::AtomicAwaiter Worker::faa(RemoteAddr addr, uint64_t v, bool fence) {
  AtomicAwaiter a{port_, {.opcode = Opcode::kFaa, .fence = fence, .length = 8, .remote = addr,
                          .operand = v}};
  ++counters_.round_trips;
  count(a.wr);
  return a;
}

inline Worker::CpuAwaiter Worker::cpu_load(RemoteAddr addr) {
  return {port_, {.kind = CpuAccess::Kind::kLoad, .addr = addr}};
}
inline Worker::CpuAwaiter Worker::cpu_store(RemoteAddr addr, uint64_t value) {
  return {port_, {.kind = CpuAccess::Kind::kStore, .addr = addr, .a = value}};
}
inline Worker::CpuAwaiter Worker::cpu_cas(RemoteAddr addr, uint64_t expected, uint64_t desired) {
  return {port_, {.kind = CpuAccess::Kind::kCas, .addr = addr, .a = expected, .b = desired}};
}
inline Worker::CpuAwaiter Worker::cpu_faa(RemoteAddr addr, uint64_t v) {
  return {port_, {.kind = CpuAccess::Kind::kFaa, .addr = addr, .a = v}};
}

}  // namespace lw
