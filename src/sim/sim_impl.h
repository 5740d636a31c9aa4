// Internals of the simulator, shared by its source files.
#pragma once

#include <chrono>
#include <coroutine>
#include <deque>
#include <memory>
#include <vector>

#include "event_queue.h"
#include "flat_map.h"
#include "sim_rpc.h"
#include "sim_tracking.h"
#include "switch_state.h"
#include "latchwork/sim/relaxation_log.h"
#include "latchwork/sim/sim_backend.h"
#include "verbs/node_memory.h"

namespace lw {

namespace sim {

struct Coroutine;

// The READ of a queue pair that fetches last, for the relaxation log (kept
// only while a log is set).
struct ReadMark {
  bool valid = false;
  Placement who;
  RemoteAddr addr;
  uint32_t length = 0;
  Nanos first = 0;  // its first line fetch
  Nanos fetch = 0;  // its last line fetch
};

// Ordering state of one queue pair (a thread's connection to a memory node).
// Requests are scheduled when posted; these times carry the contract's
// ordering rules from one request to the next.
struct QueuePair {
  uint32_t outstanding = 0;   // posted, not yet completed (bounded by queue_depth)
  Nanos last_arrival = 0;     // RC delivers requests in posting order
  Nanos writes_done = 0;      // WRITEs and atomics posted so far have acted by then
  Nanos reads_done = 0;       // READs posted so far have fetched all lines by then
  Nanos atomics_done = 0;     // atomics posted so far have written back by then
  Nanos last_completion = 0;  // completions reach the requester in posting order
  ReadMark slowest_read;      // relaxation log only
  // The last few READs (relaxation log only): a request taking effect
  // before them overtook each, not only the slowest.
  static constexpr uint32_t kRecentReads = 4;
  ReadMark recent_reads[kRecentReads];
  uint32_t next_recent = 0;
  // Packet sequence numbers, kept while the switch runs the §5.5 program
  // (it answers some of this QP's packets itself and must shift the PSNs of
  // the ones it forwards, Table 2).
  uint64_t next_psn = 0;       // the requester's next PSN
  uint64_t psn_offset = 0;     // packets the switch answered so far
  uint64_t responder_psn = 0;  // the PSN the memory node expects next
  Nanos last_switch_pass = 0;  // packets pass the switch in posting order
};

inline constexpr uint32_t kAllLines = ~uint32_t{0};
// A kWriteLine arg with this bit lands the WRITE's first (arg & ~bit) lines
// at once: a multi-line WRITE that a crash cut (sim_crash.cpp).
inline constexpr uint32_t kPrefixLines = uint32_t{1} << 30;

// A store to memory-node memory: a WRITE line or a CPU store/atomic.
struct StoreSource {
  Placement who;
  const char* kind = "";  // "WRITE", "CPU store", ...
  RemoteAddr addr;        // the whole request
  uint32_t length = 0;
  Nanos at = 0;           // when it landed
};

// A NIC atomic between its read and its write-back (kept in its Op; the
// node's atomic_words finds the Op by word).
struct AtomicWindow {
  // A store that the contract does not allow to be lost landed inside: the
  // atomic is then re-evaluated at write-back (linearised after that store).
  bool protected_store_seen = false;
  // A failed CAS writing back the value it read (failed_cas_writes_back): it
  // loses every store that lands inside, whatever atomic_loses_* say.
  bool failed_cas = false;
  // Losable stores that landed inside since the last protected one; the
  // write-back overwrites them (relaxation log only).
  std::vector<StoreSource> lost;
};

// A work request in flight. Hot fields first, in the order a verb touches
// them: with thousands of requests in flight each line of an Op is a cache
// miss, and a READ or WRITE touches only the first two lines, an atomic the
// third as well. The rest (unsignaled posts, the switch, the verb trace) is
// touched only by what needs it.
struct alignas(kCacheLine) Op {
  // Line 0: every verb, at post, at its memory events and at completion.
  WorkRequest* wr = nullptr;   // where results go: the caller's, or `own`
  Coroutine* waiter = nullptr;  // resumed by this op's completion
  QueuePair* qp = nullptr;
  WrRoute route;                // who posted it, to which memory node
  uint64_t id = 0;
  bool staged_read = false;  // a READ whose `payload` goes to wr->local at completion
  bool has_window = false;
  bool device = false;
  bool atomic_writes = false;           // NIC atomics: what the read half computed
  SwitchPacket sw = SwitchPacket::kNone;  // the switch's view of this request (§5.5)
  uint32_t sw_map = 0;
  // Line 1: every verb.
  // WRITE: the bytes sent, copied at post (with write_payload_late each line
  // is read again when the NIC fetches it). READ: the fetched bytes, held
  // until the response reaches the requester (`staged_read`).
  std::vector<std::byte> payload;
  // Its first byte in node memory (while it is scheduled on a memory node):
  // the memory events use it, so their access does not wait for `wr`.
  std::byte* target = nullptr;
  AccessTimes access;                 // when the responder touches memory
  // For liveness reports and the verb trace (sim_tracking.cpp); never decide.
  Coroutine* poster = nullptr;  // set when posted
  Nanos posted = 0;
  // Line 2: NIC atomics.
  AccessTimes booked;     // an atomic's times as the timing model booked them
  uint64_t atomic_new = 0;
  AtomicWindow window;    // while has_window, after the read half
  // Lines 3 and 4: the rest.
  WorkRequest own;  // copy for unsignaled fire-and-forget posts
  // The switch's Client-to-Tuple-ID / Client-to-Version entries, kept until
  // the response.
  uint64_t sw_tuple = 0;
  uint64_t sw_version = 0;
  uint64_t psn = 0;
  Nanos first_access = kNever;  // kept only while a verb trace is set
  Nanos last_access = kNever;

  // The posting coroutine (its placement; not kept, to keep line 0 short).
  inline Placement who() const;  // after Coroutine, below
};
static_assert(sizeof(Op) == 5 * kCacheLine);
static_assert(offsetof(Op, sw_map) < kCacheLine, "line 0: what every verb touches");
static_assert(offsetof(Op, payload) == kCacheLine && offsetof(Op, posted) < 2 * kCacheLine,
              "line 1: what every verb touches");
static_assert(offsetof(Op, window) + sizeof(AtomicWindow) <= 3 * kCacheLine, "line 2: atomics");

// A word with NIC atomics in flight. The map holds only plain values: an
// entry moves on every erase of its probe run.
struct AtomicWord {
  Nanos busy_until = 0;  // the last atomic booked on the word ends then
  Op* open = nullptr;    // the atomic whose window is open there, if any
};

// A multi-line WRITE between its first and last line landing (relaxation
// log only): a READ of its range in between may see a prefix.
struct PartialWrite {
  uint64_t op_id = 0;
  StoreSource src;
  uint32_t lines = 0, landed = 0;
  uint64_t last_reader = ~uint64_t{0};  // one event per READ
};

// A coroutine spinning on a word of its own node (Worker::cpu_wait_while):
// its loads are events, as a loop of cpu_load's would be, but the coroutine
// resumes only after the last (sim_cpu_wait.cpp). A load reads only this and
// its word: the wait's word, value and bound are copied here, since the
// CpuWait sits in the coroutine's frame, one more cache miss per load with
// hundreds of threads waiting. `op` comes last: only the last load reads it.
struct CpuWaiter {
  const uint64_t* word = nullptr;  // op->addr in node memory, or null
  uint64_t value = 0;              // op->value
  uint64_t max_polls = 0;          // op->max_polls
  Nanos period = 0;                // between loads (> 0)
  uint64_t polls = 0;              // loads made
  CpuWait* op = nullptr;           // the wait in progress, or null
};

// Marks a kCpuAccess event as a CpuWaiter's load (arg 0: a CpuAccess).
inline constexpr uint32_t kWaitPoll = 1;

// What a node of the simulated cluster is (config/network_devices.h).
enum class NodeKind : uint8_t { kMemory, kSwitch, kSmartNic };

struct MemoryNode {
  // index: the node's place among the simulator's nodes (the mapping it
  // prefers to reuse: NodeMemoryReuse).
  MemoryNode(uint64_t bytes, uint64_t dm, uint32_t index, NodeKind k = NodeKind::kMemory)
      : mem(bytes, dm, /*track_writes=*/true, index), kind(k) {}
  NodeMemory mem;
  NodeKind kind;
  // Word offset -> its NIC atomics in flight: the NIC's atomic unit
  // serialises atomics on one word. An entry is made when the first is
  // booked and leaves with the last, unless the map is small enough to keep
  // it (release_unit_entry). One map for both fields: a CAS looks its word
  // up four times, not eight.
  sim::FlatMap<AtomicWord> atomic_words;
  size_t atomic_sweep_at = 1024;  // sweep when the map holds more entries
  size_t open_windows = 0;        // entries whose `open` is set
  std::vector<PartialWrite> partial_writes;  // relaxation log only
};

struct Thread {
  Placement base;  // coroutine field unused
  WrRoute route;   // for the timing model
  std::vector<QueuePair> qps;  // one per memory node
  std::deque<Coroutine*> ready;  // at most coroutines_per_thread entries
  Nanos cpu_free_at = 0;  // the CPU is busy until then
  Nanos cur = 0;          // the CPU clock while one of its coroutines runs
  bool running = false;
  bool run_scheduled = false;
};

}  // namespace sim

struct SimBackend::Impl {
  explicit Impl(const ClusterConfig& c);

  // --- scheduling (sim_backend.cpp) ---
  // Inline (below): once per completion each.
  inline void make_ready(sim::Coroutine* c, std::coroutine_handle<> h);
  inline void run_now(sim::Coroutine* c);
  // Fires one event; inline into run_events, its only caller.
  [[gnu::always_inline]] inline void dispatch(const sim::Event& e);
  // The event loop (sim_ops.cpp): fires events in order until none is left
  // or the event budget, the virtual-time budget or the watchdog stops it
  // (then *exhausted or *stalled says why). Returns the events fired.
  uint64_t run_events(std::chrono::steady_clock::time_point wall_start, std::string* exhausted,
                      std::string* stalled);
  // Host-side only: starts fetching the memory the next event will touch.
  void prefetch_next();
  uint64_t draw(uint64_t bound) {  // a random decision, recorded in the trace
    uint64_t v = rng.below(bound);
    trace.mix(v);
    return v;
  }

  // --- requester and responder (sim_ops.cpp) ---
  bool submit(sim::Coroutine* c, WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter);
  bool submit_all(sim::Coroutine* c, Batch* const* batches, uint32_t k, std::coroutine_handle<> waiter);
  // Schedules one submission's requests; false if it was rejected whole (the
  // requests' statuses say why). `awaited`: the caller owns the requests and
  // the last one's completion counts down the coroutine's `awaiting`.
  bool post_requests(sim::Coroutine* c, WorkRequest* wrs, uint32_t n, bool awaited);
  void schedule(sim::Op* op, Nanos posted);
  // The handlers of the common events inline into dispatch (all three in
  // sim_ops.cpp, their only caller).
  [[gnu::always_inline]] inline void on_read_lines(sim::Op* op, uint32_t line);
  [[gnu::always_inline]] inline void on_write_line(sim::Op* op, uint32_t line);
  // write_payload_late: the NIC DMA-reads line `line` of a WRITE's source.
  void on_write_fetch(sim::Op* op, uint32_t line);
  [[gnu::always_inline]] inline void on_atomic_read(sim::Op* op);
  [[gnu::always_inline]] inline void on_atomic_write_back(sim::Op* op);
  [[gnu::always_inline]] inline void on_complete(sim::Op* op);
  void on_cpu_access(sim::Coroutine* c);

  // --- two-sided RPC (sim_rpc.cpp) ---
  Result<HandlerId> register_handler(const RpcHandler& h);
  bool rpc_post(sim::Coroutine* c, RpcCall* call, std::coroutine_handle<> waiter);
  bool rpc_post_all(sim::Coroutine* c, RpcCall* const* calls, uint32_t k, std::coroutine_handle<> waiter);
  bool rpc_send(sim::Coroutine* c, RpcCall* call);
  const sim::RpcMsg* awaited_rpc(const sim::Coroutine& c) const;
  void on_rpc_arrive(sim::RpcMsg* m);
  void on_rpc_serve(sim::RpcMsg* m);
  void on_rpc_done(sim::RpcMsg* m);
  void on_rpc_reply(sim::RpcMsg* m);
  void rpc_start(sim::RpcMsg* m, uint32_t core);
  void rpc_free(sim::RpcMsg* m);
  // The reply SEND of a served call, or the end of a one-way message.
  void rpc_reply_or_free(sim::RpcMsg* m);
  // RpcServers::kWorkers: the memory-node thread that serves m.
  sim::Thread& rpc_worker_for(const sim::RpcMsg& m);
  void rpc_report(std::map<std::string, double>* out) const;

  // --- the programmable switch and the SmartNIC (sim_devices.cpp) ---
  // The memory node whose queue pair carries a request to `node` (a version
  // register travels on its tuple's storage QP), or `node` itself.
  NodeId qp_node_for(NodeId node, const WorkRequest& wr) const {
    return node == watched_switch ? switch_qp_node(node, wr) : node;
  }
  NodeId switch_qp_node(NodeId node, const WorkRequest& wr) const;
  void schedule_on_device(sim::Op* op, Nanos posted);
  void on_device_op(sim::Op* op);
  // A request to a memory node under the §5.5 program: classifies it and
  // schedules its passes through the switch. Returns the completion time.
  Nanos switch_watch(sim::Op* op, Nanos posted, Nanos arrive, Nanos done, Nanos completion);
  uint64_t* switch_version(uint32_t map, uint64_t tuple);  // a watched tuple's register
  void on_switch_request(sim::Op* op);
  void on_switch_response(sim::Op* op);
  void on_switch_duplicate(uint32_t id);
  // Executes a request on the switch's registers or the SmartNIC's memory.
  // `write_result`: false for a duplicate, whose requester has its answer.
  void execute_on_device(sim::MemoryNode& m, WorkRequest& wr, sim::SwitchPacket kind,
                         const std::byte* write_src, bool write_result);
  // PSN bookkeeping of a request the switch forwards to a memory node.
  void switch_forwarded(sim::Op* op);
  void maybe_duplicate(const sim::Op* op, Nanos at);
  // A store (WRITE line or CPU store) to [lo, hi) meets open atomic windows.
  void note_store(sim::MemoryNode& m, uint64_t lo, uint64_t hi, bool losable,
                  const sim::StoreSource& src);
  // A kCpuAccess event with arg kWaitPoll: a CpuWaiter's load.
  void on_cpu_poll(sim::Coroutine* c);

  // --- the relaxation log (sim_relaxations.cpp); called only when `log` is set ---
  void log_line_order(const sim::Op* op, const std::vector<Nanos>& when);
  // A READ scheduled to fetch during [first, last] on its queue pair.
  void log_read_order(const sim::Op* op, Nanos first, Nanos last);
  // A WRITE or atomic scheduled to take effect at `effect` on its queue pair.
  void log_overtaking(const sim::Op* op, Nanos effect);
  void log_lost_stores(const sim::Op* atomic, const std::vector<sim::StoreSource>& lost);
  void log_write_line(sim::MemoryNode& m, const sim::Op* op, uint32_t line);
  // A WRITE's source bytes [lo, hi) (request offsets) changed between post and fetch.
  void log_payload_late(const sim::Op* op, uint32_t line, uint64_t lo, uint64_t hi);
  void log_partial_fetch(sim::MemoryNode& m, const sim::Op* read, uint64_t lo, uint64_t hi);
  [[gnu::always_inline]] inline void release_atomic_unit(sim::MemoryNode& m, uint64_t word,
                                                       const sim::Op* op);  // sim_ops.cpp
  // Up to this many entries, one whose atomics have all ended stays in the
  // map (release_unit_entry).
  static constexpr size_t kLingeringWords = 64;
  // The same, with the word's entry found.
  [[gnu::always_inline]] inline void release_unit_entry(sim::MemoryNode& m, sim::AtomicWord* a,
                                                      const sim::Op* op);
  void schedule_atomic(sim::MemoryNode& m, sim::Op* op, bool device, Nanos earliest);
  // Inline (below): once per verb each.
  inline sim::Op* new_op();
  inline void free_op(sim::Op* op);

  // --- liveness and the verb trace (sim_tracking.cpp); they only read ---
  // Every completion, before free_op; in sim_ops.cpp, so it inlines into dispatch.
  [[gnu::always_inline]] inline void note_completion(sim::Op* op);
  void trace_completion(sim::Op* op, uint64_t value);  // the verb trace's record of it
  void note_access(const sim::Event& e);  // memory-touching events, trace only
  // The run stopped short: records what each unfinished coroutine waits on
  // (and the requests in flight, into the trace), then frees those requests.
  void stop_short();
  // An exception ends the run: frees the requests in flight.
  void drop_in_flight();

  // --- crash injection (sim_crash.cpp) ---
  // The victim's awaited submission: counts it, and crashes at the chosen one.
  void note_victim_post(sim::Coroutine* c);
  void crash_now(sim::Coroutine* victim);

  ClusterConfig cfg;
  const Semantics& sem;
  // The semantics whose random draws and delays the run makes: sem, plus
  // the switches hold_timing() keeps for timing only (their effects off).
  Semantics tsem;
  std::unique_ptr<TimingModel> timing;
  // The same model when it is the simple one (a final class): the hot paths
  // call it through timed(), which hands a generic lambda the model's own
  // type, so the simple model's small functions inline instead of going
  // through the vtable (about 7 virtual calls per verb otherwise).
  SimpleTimingModel* simple_timing = nullptr;
  WaitRecorder* waits = nullptr;  // NIC waits, for timelines; never decides anything
  void set_timing(std::unique_ptr<TimingModel> m) {
    timing = std::move(m);
    timing->set_wait_recorder(waits);
    simple_timing = dynamic_cast<SimpleTimingModel*>(timing.get());
  }
  template <typename F>
  decltype(auto) timed(F&& call) {
    return simple_timing ? call(*simple_timing) : call(*timing);
  }
  Rng rng;
  TraceHash trace;
  sim::EventQueue events;
  Nanos now = 0;
  uint64_t event_limit = uint64_t{1} << 40;
  uint64_t verbs = 0;
  uint64_t next_op_id = 0;
  std::vector<std::unique_ptr<sim::MemoryNode>> memory;
  std::vector<std::unique_ptr<sim::Thread>> threads;
  std::vector<std::unique_ptr<sim::Coroutine>> coroutines;
  // Every Op ever made is owned here, so none leaks whatever stops a run;
  // op_pool holds the free ones.
  std::vector<std::unique_ptr<sim::Op>> op_store;
  std::vector<sim::Op*> op_pool;
  size_t finished = 0;
  bool ran = false;
  RelaxationLog* log = nullptr;  // records weak behaviours; never decides anything
  sim::SwitchState sw;           // the programmable switch's data plane (if any)
  // The switch's node while it runs the §5.5 program (qp_node_for), else kNoNode.
  NodeId watched_switch = ClusterConfig::kNoNode;
  sim::RpcState rpc;             // handlers, polling cores and calls in flight
  // Liveness (sim_backend.h): all only read the simulation.
  const Nanos* watch_progress = nullptr;  // the watchdog, when set
  Nanos watch_span = 0;
  bool report_stalls = false;
  std::vector<BlockedWorker> blocked;  // filled by stop_short()
  VerbTrace* verb_trace = nullptr;
  // Crash injection: the victim until it crashes (then null; one test per
  // awaited submission while set), its submissions so far, and the record.
  bool crash_set = false;
  CrashSpec crash_spec;
  sim::Coroutine* crash_victim = nullptr;
  uint64_t victim_posts = 0;
  CrashRecord crash_record;
};

namespace sim {

struct Coroutine final : WorkerPort {
  Coroutine(SimBackend::Impl* s, Thread* t, Placement p, uint64_t seed, WorkerMain m)
      : sim(s), thread(t), worker(this, p, seed), main(std::move(m)) {}

  bool submit(WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter) override {
    return sim->submit(this, wrs, n, waiter);
  }
  bool submit_all(Batch* const* batches, uint32_t k, std::coroutine_handle<> waiter) override {
    return sim->submit_all(this, batches, k, waiter);
  }
  bool sleep(Nanos ns, std::coroutine_handle<> waiter) override;
  bool cpu_access(CpuAccess* op, std::coroutine_handle<> waiter) override;
  bool cpu_wait(CpuWait* op, std::coroutine_handle<> waiter) override;
  bool rpc(RpcCall* call, std::coroutine_handle<> waiter) override {
    return sim->rpc_post(this, call, waiter);
  }
  bool rpc_all(RpcCall* const* calls, uint32_t k, std::coroutine_handle<> waiter) override {
    return sim->rpc_post_all(this, calls, k, waiter);
  }
  void park(std::coroutine_handle<> h) override { resume_point = h; }
  void unpark() override;
  void charge_cpu(Nanos ns) override { thread->cur += ns; }
  Nanos work_cost(CpuWork kind, uint64_t units) const override;
  Nanos now() const override { return thread->running ? thread->cur : sim->now; }

  SimBackend::Impl* sim;
  Thread* thread;
  Worker worker;
  WorkerMain main;  // kept alive: a lambda's captures live here, not in the frame
  Task<void> task;
  std::coroutine_handle<> resume_point;
  CpuAccess* pending_cpu = nullptr;
  // Here, not beside `thread`: there (the coroutine cache-line aligned) a
  // waiting load read one line less, but every verb's resume read the
  // fields after it a line further: perf cas 5-7% slower (paired).
  CpuWaiter wait;
  uint32_t rpcs_awaited = 0;  // calls whose reply it still awaits (awaited_rpc names one)
  uint32_t awaiting = 0;          // submissions whose completion it still awaits
  bool finished = false;
  bool crashed = false;           // stopped by crash injection (finished too)
  WorkerTrack track;  // its last completions, for blocked()
};

inline Placement Op::who() const { return poster->worker.placement(); }

}  // namespace sim

inline sim::Op* SimBackend::Impl::new_op() {
  if (op_pool.empty()) return op_store.emplace_back(std::make_unique<sim::Op>()).get();
  sim::Op* op = op_pool.back();
  op_pool.pop_back();
  return op;
}

inline void SimBackend::Impl::free_op(sim::Op* op) {
  op->waiter = nullptr;
  op->target = nullptr;
  op->has_window = false;
  op->staged_read = false;
  op->sw = sim::SwitchPacket::kNone;
  op_pool.emplace_back(op);
}

inline void SimBackend::Impl::make_ready(sim::Coroutine* c, std::coroutine_handle<> h) {
  LW_CHECK(h && !c->finished);
  c->resume_point = h;
  sim::Thread* t = c->thread;
  LW_CHECK(!t->running);
  if (t->ready.empty() && t->cpu_free_at <= now) {
    run_now(c);
    return;
  }
  t->ready.push_back(c);
  LW_CHECK(t->ready.size() <= cfg.coroutines_per_thread);
  if (!t->run_scheduled) {
    t->run_scheduled = true;
    events.push(std::max(now, t->cpu_free_at), sim::EventKind::kThreadRun, t);
  }
}

inline void SimBackend::Impl::run_now(sim::Coroutine* c) {
  sim::Thread* t = c->thread;
  t->running = true;
  t->cur = std::max(now, t->cpu_free_at) + timed([](auto& m) { return m.poll_cpu(); });
  std::coroutine_handle<> h = std::exchange(c->resume_point, {});
  h.resume();
  t->running = false;
  t->cpu_free_at = t->cur;
  if (c->task.done()) {
    c->finished = true;
    ++finished;
    // A worker's main ended with an exception: run() stops and rethrows it.
    c->task.rethrow_if_failed();
  }
}

}  // namespace lw
