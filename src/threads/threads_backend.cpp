#include "latchwork/threads/threads_backend.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <deque>
#include <mutex>
#include <thread>

#include "latchwork/base/start_thread.h"
#include "latchwork/verbs/rpc_builtin.h"
#include "line_memory.h"
#include "rpc_server.h"

namespace lw {

namespace threads {

struct Node {
  Node(uint64_t bytes, uint64_t dm) : mem(bytes, dm) {}
  LineMemory mem;
  // The NIC's atomic unit in adversarial mode, where an atomic is a separate
  // load and store (otherwise the line's stripe lock makes it atomic).
  std::mutex nic_atomics;
};

struct OsThread;

struct Coroutine final : WorkerPort {
  Coroutine(ThreadsBackend::Impl* b, OsThread* t, Placement p, uint64_t seed, WorkerMain m)
      : backend(b), thread(t), worker(this, p, seed), main(std::move(m)) {}

  bool submit(WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter) override;
  bool submit_all(Batch* const* batches, uint32_t k, std::coroutine_handle<> waiter) override;
  bool sleep(Nanos ns, std::coroutine_handle<> waiter) override;
  bool cpu_access(CpuAccess* op, std::coroutine_handle<> waiter) override;
  bool rpc(RpcCall* call, std::coroutine_handle<> waiter) override;
  bool rpc_all(RpcCall* const* calls, uint32_t k, std::coroutine_handle<> waiter) override;
  bool send_call(RpcCall* call);
  void park(std::coroutine_handle<> h) override { resume_point = h; }
  void unpark() override;
  void charge_cpu(Nanos) override {}  // real CPU time passes by itself
  Nanos now() const override;
  void relax() override { std::this_thread::yield(); }  // the writer may be preempted

  ThreadsBackend::Impl* backend;
  OsThread* thread;
  Worker worker;
  WorkerMain main;
  Task<void> task;
  std::coroutine_handle<> resume_point;
  Nanos wake_at = 0;
  uint32_t rpcs_awaited = 0;  // calls whose reply it still awaits (its OS thread's count)
  // CPU accesses completed in a row without suspending: every
  // kCpuAccessesPerYield-th goes through the thread's ready queue, so that a
  // spin of CPU loads lets the thread's other coroutines run and does not
  // nest one resumption inside another without bound (symmetric transfer is
  // not a guaranteed tail call in unoptimised builds: ASan saw the stack
  // overflow in a lock waiter's spin).
  uint32_t cpu_streak = 0;
  static constexpr uint32_t kCpuAccessesPerYield = 64;
};

struct OsThread {
  std::vector<Coroutine*> coroutines;
  std::deque<Coroutine*> ready;  // at most coroutines.size() entries
  Rng rng;
  uint64_t verbs = 0;
  std::unique_ptr<ReplyInbox> inbox;  // made at spawn time, sized by the coroutines
  uint32_t awaiting_rpc = 0;          // its coroutines awaiting a reply
  // Spin-wait detection: the last two observations (address, value of a CPU
  // load or first word of a one-line READ); a load or READ that repeats one
  // of them is a poll, and every kPollsBeforeYield polls in a row the OS
  // thread yields its core (two, for loops that poll two words in turn).
  struct Seen {
    RemoteAddr addr;
    uint64_t value = 0;
  };
  Seen seen[2];
  uint32_t polls = 0;
  void observed(RemoteAddr a, uint64_t v);
};
// There are usually more OS threads than cores (every memory-node and
// compute thread is one): a waiter that only polls its own memory would
// otherwise burn its whole time slice while the thread it waits for is
// runnable but not running, and every hand-over of a queue lock would cost
// a scheduler slice (bounded waits then give up).
inline constexpr uint32_t kPollsBeforeYield = 64;
// A yield only lets threads on the waiter's own run queue in: when the
// awaited thread waits on the other core's queue (behind another process),
// yields return at once and a bounded wait runs out in milliseconds (seen in
// CI: an ALock waiter gave up, max_spins polls, in a 0.4 s test). Past this
// many polls in a row the waiter sleeps instead, which leaves its core idle
// so the scheduler can move the awaited thread onto it.
inline constexpr uint32_t kPollsBeforeSleep = 64 * kPollsBeforeYield;
inline constexpr std::chrono::microseconds kPollSleep{20};

void OsThread::observed(RemoteAddr a, uint64_t v) {
  for (const Seen& x : seen) {
    if (x.addr == a && x.value == v) {
      if (++polls % kPollsBeforeYield != 0) return;
      if (polls < kPollsBeforeSleep) {
        std::this_thread::yield();  // let the awaited thread run
      } else {
        std::this_thread::sleep_for(kPollSleep);
      }
      return;
    }
  }
  seen[1] = seen[0];
  seen[0] = {a, v};
  polls = 0;
}

}  // namespace threads

struct ThreadsBackend::Impl {
  ClusterConfig cfg;
  std::vector<std::unique_ptr<threads::Node>> nodes;
  // The same nodes by id, held inline: a request reaches its node in one load.
  std::array<threads::Node*, ClusterConfig::kMaxNodes> node_at{};
  uint32_t node_count = 0;
  std::vector<std::unique_ptr<threads::OsThread>> os_threads;
  std::vector<std::unique_ptr<threads::Coroutine>> coroutines;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  bool ran = false;
  std::vector<RpcHandler> handlers;          // by id; fixed once run() starts
  std::unique_ptr<threads::RpcService> rpc;  // server threads, during run()

  [[gnu::always_inline]] inline Status execute(WorkRequest& wr, Rng& rng);
  // Each sets wr.status (kOk) and returns it.
  Status read(threads::Node& n, std::byte* p, WorkRequest& wr, Rng& rng);
  Status read_shuffled(threads::Node& n, std::byte* p, WorkRequest& wr, Rng& rng);
  Status write(threads::Node& n, std::byte* p, WorkRequest& wr);
  Status atomic_adversarial(threads::Node& n, std::byte* p, WorkRequest& wr);
};

namespace {
// apply_atomic with the two common verbs inline.
inline bool next_value(const WorkRequest& wr, uint64_t old, uint64_t* next) {
  switch (wr.opcode) {
    case Opcode::kCas:
      *next = wr.operand;
      return old == wr.compare;
    case Opcode::kFaa:
      *next = old + wr.operand;
      return true;
    default:
      return apply_atomic(wr, old, next);
  }
}

uint32_t lines_of(uint64_t offset, uint64_t len) {
  return static_cast<uint32_t>(line_of(offset + len - 1) - line_of(offset) + 1);
}
void line_span(uint64_t offset, uint64_t len, uint32_t i, uint64_t* lo, uint64_t* hi) {
  uint64_t line_lo = (line_of(offset) + i) * kCacheLine;
  *lo = std::max(offset, line_lo);
  *hi = std::min(offset + len, line_lo + kCacheLine);
}
}  // namespace

ThreadsBackend::ThreadsBackend(const ClusterConfig& config) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.cfg = config;
  std::string err = config.validate();
  LW_CHECK_MSG(err.empty(), "invalid cluster config: " + err);
  LW_CHECK(config.memory_nodes <= s.node_at.size());
  for (uint32_t m = 0; m < config.memory_nodes; ++m) {
    s.nodes.push_back(std::make_unique<threads::Node>(config.memory_node_bytes,
                                                      config.device_memory_bytes));
    s.node_at[m] = s.nodes.back().get();
  }
  s.node_count = config.memory_nodes;
  uint64_t n = config.total_threads();
  Rng seeder(config.seed);
  for (uint64_t i = 0; i < n; ++i) {
    auto t = std::make_unique<threads::OsThread>();
    t->rng = seeder.fork(i);
    s.os_threads.push_back(std::move(t));
  }
  for (const RpcHandler& h : builtin_rpc_handlers()) LW_CHECK(ok(register_handler(h).status));
}

Capabilities ThreadsBackend::capabilities() const {
  Capabilities c;
  c.rpc = true;
  return c;
}

Result<HandlerId> ThreadsBackend::register_handler(const RpcHandler& h) {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "register handlers before run()");
  if (s.handlers.size() >= kMaxRpcHandlers) return {Status::kQueueFull, 0};
  if (h.name.empty() || !h.fn) return {Status::kBadLength, 0};
  for (const RpcHandler& o : s.handlers)
    if (o.name == h.name) return {Status::kBadLength, 0};
  s.handlers.push_back(h);
  return {Status::kOk, static_cast<HandlerId>(s.handlers.size() - 1)};
}

ThreadsBackend::~ThreadsBackend() = default;

const ClusterConfig& ThreadsBackend::config() const { return impl_->cfg; }

RemoteAddr ThreadsBackend::allocate(NodeId node, uint64_t bytes, uint64_t align) {
  if (node >= impl_->nodes.size()) return {};
  uint64_t off = impl_->nodes[node]->mem.raw().allocate(bytes, align);
  return off ? RemoteAddr(node, off) : RemoteAddr();
}

RemoteAddr ThreadsBackend::allocate_device_memory(NodeId node, uint64_t bytes) {
  if (node >= impl_->nodes.size()) return {};
  uint64_t off = impl_->nodes[node]->mem.raw().allocate_device(bytes, kWord);
  return off ? RemoteAddr(node, off) : RemoteAddr();
}

void ThreadsBackend::host_write(RemoteAddr dst, const void* src, uint64_t bytes) {
  LW_CHECK(dst.node() < impl_->nodes.size());
  impl_->nodes[dst.node()]->mem.raw().host_copy_in(dst.offset(), src, bytes);
}

void ThreadsBackend::host_read(RemoteAddr src, void* dst, uint64_t bytes) {
  LW_CHECK(src.node() < impl_->nodes.size());
  impl_->nodes[src.node()]->mem.raw().host_copy_out(src.offset(), dst, bytes);
}

void ThreadsBackend::spawn(Placement p, WorkerMain main) {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "spawn after run");
  threads::OsThread* t = s.os_threads[thread_index(s.cfg, p)].get();
  auto co = std::make_unique<threads::Coroutine>(&s, t, p, worker_seed(s.cfg.seed, p), std::move(main));
  co->task = co->main(co->worker);
  co->resume_point = co->task.handle();
  t->coroutines.push_back(co.get());
  t->ready.push_back(co.get());
  s.coroutines.push_back(std::move(co));
}

namespace {
[[noreturn]] void report_and_terminate(const threads::Coroutine* c, std::exception_ptr ex) {
  std::string what = "an exception not derived from std::exception";
  try {
    std::rethrow_exception(ex);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  const Placement& p = c->worker.placement();
  std::fprintf(stderr,
               "latchwork: the worker at %s %u thread %u coroutine %u ended with an exception: %s\n",
               p.on_memory_node() ? "memory" : "compute", p.node, p.thread, p.coroutine, what.c_str());
  std::fflush(stderr);
  std::terminate();
}

// Runs an OS thread's coroutines to their end.
void run_os_thread(threads::OsThread* t) {
  // Callers whose replies arrived become ready; with `wait_ns`, waits for
  // one that long at most (the loop re-checks: no wait is unbounded).
  // A caller is ready once its last awaited reply is in (call_all awaits several).
  std::deque<threads::Coroutine*> replied;
  auto take_replies = [t, &replied](uint64_t wait_ns) {
    replied.clear();
    t->inbox->drain(&replied, wait_ns);
    LW_CHECK(replied.size() <= t->awaiting_rpc);
    t->awaiting_rpc -= static_cast<uint32_t>(replied.size());
    for (threads::Coroutine* c : replied) {
      LW_CHECK(c->rpcs_awaited > 0);
      if (--c->rpcs_awaited == 0) t->ready.push_back(c);
    }
  };
  constexpr uint64_t kReplyWaitNs = 1'000'000;
  // Round-robin over ready coroutines; sleeping ones wait their turn.
  size_t finished = 0;
  while (finished < t->coroutines.size()) {
    if (t->awaiting_rpc > 0) {
      // Block on the inbox only when nothing else can run.
      take_replies(t->ready.empty() ? kReplyWaitNs : 0);
      if (t->ready.empty()) continue;
    }
    LW_CHECK_MSG(!t->ready.empty(), "every coroutine of a thread is parked: nothing can wake them");
    threads::Coroutine* c = t->ready.front();
    t->ready.pop_front();
    if (c->wake_at != 0) {  // read the clock only for a sleeper
      const Nanos now = c->now();
      if (c->wake_at > now) {
        bool any_awake = false;
        for (auto* r : t->ready) any_awake = any_awake || r->wake_at <= now;
        const uint64_t nap = std::min<Nanos>(c->wake_at - now, 1'000'000);
        t->ready.push_back(c);
        if (!any_awake) {
          // A reply may end the nap early.
          if (t->awaiting_rpc > 0) take_replies(nap);
          else std::this_thread::sleep_for(std::chrono::nanoseconds(nap));
        }
        continue;
      }
      c->wake_at = 0;
    }
    std::exchange(c->resume_point, {}).resume();
    if (c->task.done()) {
      // No run can go on past a failed worker here: say why, then end.
      if (std::exception_ptr ex = c->task.exception()) [[unlikely]] report_and_terminate(c, ex);
      ++finished;
    } else {
      LW_CHECK_MSG(c->resume_point, "a coroutine suspended on something else than Latchwork");
    }
  }
}
}  // namespace

RunStats ThreadsBackend::run() {
  Impl& s = *impl_;
  LW_CHECK_MSG(!s.ran, "a ThreadsBackend runs once");
  s.ran = true;
  s.start = std::chrono::steady_clock::now();
  std::vector<threads::LineMemory*> mems;
  for (auto& n : s.nodes) mems.push_back(&n->mem);
  s.rpc = std::make_unique<threads::RpcService>(s.cfg.rpc, std::move(mems), &s.handlers);
  s.rpc->start();
  // Every thread waits at the gate until all exist: when one cannot be
  // created, the others leave without running a worker (a worker may wait
  // for one on a missing thread forever) and the failure reaches the caller.
  enum Gate : int { kWait, kRun, kAbandon };
  std::atomic<int> gate{kWait};
  size_t total = 0;
  for (auto& tp : s.os_threads) total += tp->coroutines.empty() ? 0 : 1;
  std::vector<std::thread> running;
  running.reserve(total);
  try {
    for (auto& tp : s.os_threads) {
      if (tp->coroutines.empty()) continue;
      // Each coroutine awaits at most Worker::kMaxCallsAwaited replies (call_all).
      tp->inbox = std::make_unique<threads::ReplyInbox>(tp->coroutines.size() * Worker::kMaxCallsAwaited);
      running.push_back(start_thread("worker", running.size(), total, [t = tp.get(), &gate] {
        gate.wait(kWait);
        if (gate.load() != kAbandon) run_os_thread(t);
      }));
    }
  } catch (...) {
    gate.store(kAbandon);
    gate.notify_all();
    for (auto& th : running) th.join();
    throw;
  }
  gate.store(kRun);
  gate.notify_all();
  for (auto& th : running) th.join();
  // One-way messages may still be queued: served before the run ends.
  s.rpc->stop();
  RunStats stats;
  if (const uint64_t served = s.rpc->served(); served != 0) stats.counters["rpc.served"] = static_cast<double>(served);
  auto wall = std::chrono::steady_clock::now() - s.start;
  stats.elapsed_ns = static_cast<Nanos>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count());
  stats.wall_seconds = std::chrono::duration<double>(wall).count();
  for (auto& t : s.os_threads) stats.verbs += t->verbs;
  return stats;
}

namespace {
// One-line verbs and plain atomics, each a small leaf function: execute jumps
// to them, and no register spill precedes the stripe lock.
[[gnu::noinline]] Status read_one_waiting(threads::LineMemory& m, uint64_t off, const std::byte* p, WorkRequest& wr) {
  m.read_line(off, p, wr.length, static_cast<std::byte*>(wr.local));
  return wr.status = Status::kOk;
}
[[gnu::noinline]] Status read_one(threads::LineMemory& m, uint64_t off, const std::byte* p, WorkRequest& wr) {
  if ((off | wr.length) % kWord == 0 &&
      m.try_read_words(off, p, wr.length, static_cast<std::byte*>(wr.local))) [[likely]]
    return wr.status = Status::kOk;
  return read_one_waiting(m, off, p, wr);  // partial words, or a writer interfered
}
[[gnu::noinline]] Status write_one_waiting(threads::LineMemory& m, uint64_t off, std::byte* p, WorkRequest& wr) {
  m.write_line(off, p, wr.length, static_cast<const std::byte*>(wr.local));
  return wr.status = Status::kOk;
}
[[gnu::noinline]] Status write_one(threads::LineMemory& m, uint64_t off, std::byte* p, WorkRequest& wr) {
  if ((off | wr.length) % kWord == 0 &&
      m.try_write_words(off, p, wr.length, static_cast<const std::byte*>(wr.local))) [[likely]]
    return wr.status = Status::kOk;
  return write_one_waiting(m, off, p, wr);  // partial words, or the line is locked
}
// The stripe lock of update_word makes NIC atomics on one word atomic with
// each other: no node-wide unit is needed.
[[gnu::noinline]] Status atomic_one_waiting(threads::LineMemory& m, uint64_t off, std::byte* p, WorkRequest& wr) {
  wr.old_value = m.update_word(off, p, [&](uint64_t old, uint64_t* next) {
    return next_value(wr, old, next);
  });
  return wr.status = Status::kOk;
}
[[gnu::noinline]] Status cas_one(threads::LineMemory& m, uint64_t off, std::byte* p, WorkRequest& wr) {
  if (m.try_cas_word(off, p, wr.compare, wr.operand, &wr.old_value)) [[likely]]
    return wr.status = Status::kOk;
  return atomic_one_waiting(m, off, p, wr);  // the line is locked
}
}  // namespace

// Inline everywhere it is called (execute_now, Coroutine::submit): checks,
// then one jump to the verb.
[[gnu::always_inline]] inline Status ThreadsBackend::Impl::execute(WorkRequest& wr, Rng& rng) {
  const NodeId node = wr.remote.node();
  if (node >= node_count) [[unlikely]] return wr.status = Status::kWrongNode;
  threads::Node& n = *node_at[node];
  const uint64_t off = wr.remote.offset();
  const bool atomic_op = is_atomic(wr.opcode);
  Status s = n.mem.check(off, atomic_op ? kWord : wr.length, atomic_op);
  if (s == Status::kOk && !atomic_op && wr.local == nullptr) s = Status::kBadLength;
  if (s != Status::kOk) [[unlikely]] return wr.status = s;
  std::byte* p = n.mem.storage(off);  // once per request: the range is contiguous
  const bool one_line = off % kCacheLine + wr.length <= kCacheLine;
  switch (wr.opcode) {
    case Opcode::kRead:
      return one_line ? read_one(n.mem, off, p, wr) : read(n, p, wr, rng);
    case Opcode::kWrite:
      return one_line ? write_one(n.mem, off, p, wr) : write(n, p, wr);
    case Opcode::kCas:
      return !cfg.threads.adversarial || n.mem.raw().is_device(off) ? cas_one(n.mem, off, p, wr)
                                                                    : atomic_adversarial(n, p, wr);
    default:
      return !cfg.threads.adversarial || n.mem.raw().is_device(off) ? atomic_one_waiting(n.mem, off, p, wr)
                                                                    : atomic_adversarial(n, p, wr);
  }
}

Status ThreadsBackend::execute_now(WorkRequest& wr, Rng& rng) { return impl_->execute(wr, rng); }

// A multi-line READ: lines in address order, shuffled when adversarial.
Status ThreadsBackend::Impl::read(threads::Node& n, std::byte* p, WorkRequest& wr, Rng& rng) {
  const uint64_t off = wr.remote.offset();
  auto* dst = static_cast<std::byte*>(wr.local);
  const uint64_t first_len = std::min<uint64_t>(wr.length, kCacheLine - off % kCacheLine);
  if (cfg.threads.adversarial) return read_shuffled(n, p, wr, rng);
  n.mem.read_line(off, p, first_len, dst);
  for (uint64_t done = first_len; done < wr.length; done += kCacheLine) {
    const uint64_t len = std::min<uint64_t>(kCacheLine, wr.length - done);
    n.mem.read_line(off + done, p + done, len, dst + done);
  }
  return wr.status = Status::kOk;
}

Status ThreadsBackend::Impl::read_shuffled(threads::Node& n, std::byte* p, WorkRequest& wr, Rng& rng) {
  const uint64_t off = wr.remote.offset();
  const uint32_t lines = lines_of(off, wr.length);
  auto* dst = static_cast<std::byte*>(wr.local);
  // Fisher-Yates over line indices.
  uint32_t order_small[64];
  std::vector<uint32_t> order_big;
  uint32_t* order = lines <= 64 ? order_small : (order_big.resize(lines), order_big.data());
  for (uint32_t i = 0; i < lines; ++i) order[i] = i;
  for (uint32_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  for (uint32_t k = 0; k < lines; ++k) {
    uint64_t lo, hi;
    line_span(off, wr.length, order[k], &lo, &hi);
    n.mem.read_line(lo, p + (lo - off), hi - lo, dst + (lo - off));
    std::this_thread::yield();
  }
  return wr.status = Status::kOk;
}

// A multi-line WRITE: lines in increasing address order, always; adversarial
// mode yields between them.
Status ThreadsBackend::Impl::write(threads::Node& n, std::byte* p, WorkRequest& wr) {
  const uint64_t off = wr.remote.offset();
  const auto* src = static_cast<const std::byte*>(wr.local);
  const uint64_t first_len = std::min<uint64_t>(wr.length, kCacheLine - off % kCacheLine);
  n.mem.write_line(off, p, first_len, src);
  const bool yield = cfg.threads.adversarial;
  for (uint64_t done = first_len; done < wr.length; done += kCacheLine) {
    if (yield) std::this_thread::yield();
    const uint64_t len = std::min<uint64_t>(kCacheLine, wr.length - done);
    n.mem.write_line(off + done, p + done, len, src + done);
  }
  return wr.status = Status::kOk;
}

// Read, then write back later: stores landing in between are lost. NIC
// atomics stay atomic among themselves through the node's unit.
Status ThreadsBackend::Impl::atomic_adversarial(threads::Node& n, std::byte* p, WorkRequest& wr) {
  std::lock_guard<std::mutex> unit(n.nic_atomics);
  const uint64_t old = threads::LineMemory::load_word(p);
  wr.old_value = old;
  uint64_t next;
  const bool writes = next_value(wr, old, &next);
  std::this_thread::yield();
  if (writes)
    n.mem.update_word(wr.remote.offset(), p, [&](uint64_t, uint64_t* out) { *out = next; return true; });
  return wr.status = Status::kOk;
}

namespace threads {

bool Coroutine::submit(WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter) {
  ThreadsBackend::Impl& s = *backend;
  if (n > s.cfg.queue_depth) {
    for (uint32_t i = 0; i < n; ++i) wrs[i].status = Status::kQueueFull;
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    wrs[i].old_value = 0;
    s.execute(wrs[i], thread->rng);
    // A one-line READ polling a word another thread will change (ALock's
    // remote leader reads the lock line until the local cohort lets go).
    WorkRequest& wr = wrs[i];
    if (wr.opcode == Opcode::kRead && wr.status == Status::kOk && wr.length >= kWord &&
        wr.remote.offset() % kCacheLine + wr.length <= kCacheLine) {
      uint64_t v[kCacheLine / kWord] = {};
      std::memcpy(v, wr.local, std::min<uint64_t>(wr.length, 3 * kWord));
      thread->observed(wr.remote, v[0] ^ (v[1] * 0x9e3779b97f4a7c15ull) ^ (v[2] * 0xc2b2ae3d27d4eb4full));
    }
  }
  thread->verbs += n;
  // Let the thread's other coroutines run, as they would while the NIC works.
  // Always suspend, even when alone: resuming from the scheduler keeps the
  // stack flat (without tail calls, as at -O0, completing synchronously
  // would nest every awaited Task of a long loop on the stack).
  if (!waiter) return false;
  resume_point = waiter;
  wake_at = 0;
  thread->ready.push_back(this);
  return true;
}

bool Coroutine::submit_all(Batch* const* batches, uint32_t k, std::coroutine_handle<> waiter) {
  // Executed at post, batch by batch (as submit does); one suspension for all.
  for (uint32_t b = 0; b < k; ++b) (void)submit(batches[b]->data(), batches[b]->size(), {});
  resume_point = waiter;
  wake_at = 0;
  thread->ready.push_back(this);
  return true;
}

void Coroutine::unpark() {
  LW_CHECK_MSG(resume_point, "unpark of a coroutine that is not parked");
  wake_at = 0;
  thread->ready.push_back(this);  // only coroutines of the same thread unpark it
}

bool Coroutine::sleep(Nanos ns, std::coroutine_handle<> waiter) {
  resume_point = waiter;
  wake_at = now() + ns;
  thread->ready.push_back(this);
  return true;
}

bool Coroutine::cpu_access(CpuAccess* op, std::coroutine_handle<> waiter) {
  ThreadsBackend::Impl& s = *backend;
  const Placement& p = worker.placement();
  if (!p.on_memory_node() || op->addr.node() != p.node) {
    op->status = Status::kWrongNode;
    return false;
  }
  threads::Node& node = *s.nodes[p.node];
  const uint64_t off = op->addr.offset();
  op->status = node.mem.check(off, kWord, true);
  if (op->status != Status::kOk) return false;
  std::byte* w = node.mem.storage(off);
  // CPU accesses do not take the NIC's atomic unit: they race NIC atomics.
  switch (op->kind) {
    case CpuAccess::Kind::kLoad: {
      op->old_value = threads::LineMemory::load_word(w);
      thread->observed(op->addr, op->old_value);
      break;
    }
    case CpuAccess::Kind::kStore:
      op->old_value = node.mem.update_word(off, w, [&](uint64_t, uint64_t* n) { *n = op->a; return true; });
      break;
    case CpuAccess::Kind::kCas:
      op->old_value = node.mem.update_word(off, w, [&](uint64_t old, uint64_t* n) {
        *n = op->b;
        return old == op->a;
      });
      break;
    case CpuAccess::Kind::kFaa:
      op->old_value = node.mem.update_word(off, w, [&](uint64_t old, uint64_t* n) { *n = old + op->a; return true; });
      break;
  }
  if (++cpu_streak < kCpuAccessesPerYield) return false;
  cpu_streak = 0;
  resume_point = waiter;
  wake_at = 0;
  thread->ready.push_back(this);
  return true;
}

bool Coroutine::rpc(RpcCall* call, std::coroutine_handle<> waiter) {
  LW_CHECK_MSG(call->one_way == !waiter, "a call awaits its reply; a one-way message does not");
  if (!call->one_way) {
    // Set before posting: the reply may arrive before post() returns.
    resume_point = waiter;
    wake_at = 0;
  }
  const bool awaited = send_call(call);
  if (!awaited) resume_point = {};
  return awaited;
}

bool Coroutine::rpc_all(RpcCall* const* calls, uint32_t k, std::coroutine_handle<> waiter) {
  // Set before posting: replies may arrive before post() returns. The thread
  // takes replies only between its coroutines' steps, so none resumes this
  // one while it still sends.
  resume_point = waiter;
  wake_at = 0;
  bool any = false;
  for (uint32_t i = 0; i < k; ++i) {
    LW_CHECK_MSG(!calls[i]->one_way, "call_all awaits replies");
    any = send_call(calls[i]) || any;
  }
  if (!any) resume_point = {};
  return any;
}

// Hands one call or message to its node's server; true if a reply is awaited.
bool Coroutine::send_call(RpcCall* call) {
  ThreadsBackend::Impl& s = *backend;
  call->reply_bytes = 0;
  if (call->node >= s.node_count) {
    call->status = Status::kWrongNode;
    return false;
  }
  if (call->handler >= s.handlers.size()) {
    call->status = Status::kUnsupported;
    return false;
  }
  RpcJob job;
  job.call = call->one_way ? nullptr : call;
  job.caller = this;
  job.inbox = thread->inbox.get();
  job.handler = call->handler;
  job.request.assign(call->request.begin(), call->request.end());
  if (!call->one_way) {
    ++thread->awaiting_rpc;
    ++rpcs_awaited;
  }
  const Status st = s.rpc->post(call->node, std::move(job));
  if (st != Status::kOk) {
    if (!call->one_way) {
      --thread->awaiting_rpc;
      --rpcs_awaited;
    }
    call->status = st;
    return false;
  }
  if (call->one_way) call->status = Status::kOk;
  return !call->one_way;
}

Nanos Coroutine::now() const {
  auto d = std::chrono::steady_clock::now() - backend->start;
  return static_cast<Nanos>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

}  // namespace threads
}  // namespace lw
