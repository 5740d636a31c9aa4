// The SMART runtime (Ren et al., EuroSys 2024, §4-5): policies that let a
// disaggregated structure scale to ~100 threads per compute node, as
// switchable features on every backend (config/smart_config.h).
//
// A structure is written against smart::Context instead of the bare Worker
// (as SMART-HT changed 44 lines of RACE); with every switch off the Context
// posts exactly what the bare Worker would.
//
//   smart::Runtime rt(backend.config());            // host: one per run
//   backend.spawn_compute([&](Worker& w) -> Task<void> {
//     smart::Context ctx(rt, w);
//     co_await ctx.begin_op(kLookup);                // c_max gate (§4.3)
//     Status s = co_await ctx.execute(batch);        // credits (§4.2, Alg. 1)
//     Result<uint64_t> r = co_await ctx.backoff_cas(slot, old, new);  // Eq. 1
//     ctx.end_op(ok);                                // statistics, retry rate
//   });
//
// State is per thread (coroutines of one thread share their credits, c_max
// and t_max, as SMART's thread-local variables); threads never share state,
// so the runtime works unchanged on real threads.
#pragma once

#include <coroutine>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "latchwork/config/cluster_config.h"
#include "latchwork/runtime/op_stats.h"
#include "latchwork/runtime/task.h"
#include "latchwork/verbs/worker.h"

namespace lw::smart {

// Per-thread state: Alg. 1's credits and epoch, t_max, c_max, the retry
// window, and the thread's operation statistics.
struct ThreadState;

// What one thread's policies did, for reports and tests.
struct ThreadSummary {
  uint32_t credits_limit = 0;   // C_max at the end
  uint64_t credit_waits = 0;    // posts deferred for lack of credit
  uint32_t epochs = 0;          // update phases completed
  uint32_t max_in_flight = 0;   // most work requests holding credits at once
  uint64_t completed_wrs = 0;   // work requests completed through the throttle
  Nanos t_max_ns = 0;           // backoff limit at the end
  Nanos t_max_peak_ns = 0;      // highest backoff limit reached
  uint32_t c_max = 0;           // coroutine limit at the end
  uint32_t c_max_low = 0;       // lowest coroutine limit reached
  uint64_t backoffs = 0;        // backoff sleeps taken
  Nanos backoff_ns = 0;         // total backoff slept
  uint64_t coroutine_waits = 0; // operations that waited for a c_max slot
  uint64_t ops = 0;             // operations ended
  uint64_t retries = 0;         // their retries (failed backoff_cas + note_retry)
  uint32_t retry_windows = 0;   // retry-rate windows closed
};

class Runtime {
 public:
  // One state per thread slot of `c` (compute and memory-node threads);
  // the policies are c.smart (validated).
  explicit Runtime(const ClusterConfig& c);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const SmartConfig& config() const { return cfg_; }
  ThreadState& thread(const Placement& p);
  // After run(): every thread's statistics merged, and each thread's summary.
  OpStats stats() const;
  std::vector<ThreadSummary> summaries() const;

 private:
  const ClusterConfig* cluster_;
  SmartConfig cfg_;
  std::vector<std::unique_ptr<ThreadState>> threads_;
};

class Context {
 public:
  Context(Runtime& rt, Worker& w);
  Worker& worker() { return w_; }
  // The runtime's policies (e.g. whether backoff is on).
  const SmartConfig& config() const { return rt_.config(); }

  // Opens a logical operation of `kind` (< OpStats::kMaxKinds): with
  // coroutine throttling on, waits until fewer than c_max operations of this
  // thread are open. Operations do not nest.
  Task<void> begin_op(uint32_t kind);
  // The operation's latency runs from the begin_op call (a wait for a c_max
  // slot included) to end_op.
  // Closes it: records its statistics and its retries for the retry rate
  // (which drives t_max and c_max every retry_window_ns).
  void end_op(bool ok);

  // Posts the batch and awaits it (SMART's post_send + sync). With
  // throttling on, first waits for batch.size() credits of this thread
  // (Alg. 1 lines 5-7; a batch larger than C_max waits for all credits) and
  // returns them at completion (line 13); completions drive the epoch update
  // of C_max over candidate_credits (lines 14-24).
  Task<Status> execute(Batch& batch);
  // Worker::execute_all under the throttle, in rounds: the first batch left
  // waits for its credits as execute() does, the batches after it join the
  // round while credits are free, and a round's credits return when it has
  // completed. Nobody waits holding credits, so coroutines that each hold a
  // part of C_max cannot deadlock.
  Task<Status> execute_all(std::span<Batch* const> batches);
  Task<Status> read(void* dst, RemoteAddr src, uint32_t len);
  Task<Status> write(RemoteAddr dst, const void* src, uint32_t len);
  Task<Result<uint64_t>> cas(RemoteAddr addr, uint64_t expected, uint64_t desired);
  // SMART's backoff_cas_sync: a CAS whose failure (old != expected) counts a
  // retry of the open operation and, with backoff on, sleeps
  // min(t0 2^i, t_max) + Rand(t0) (Eq. 1), i = failed CAS before this one
  // in the open operation (the first failure sleeps t0 + Rand(t0)), Rand
  // uniform on [0, t0] from the worker's rng(), before returning so the
  // caller can retry with a new expected. Without dynamic_limit t_max is
  // t_M = 2^max_backoff_shift t0; with it t_max starts at t0 and follows the
  // retry rate (smart_backoff.cpp documents the choices).
  Task<Result<uint64_t>> backoff_cas(RemoteAddr addr, uint64_t expected, uint64_t desired);
  // A retry the structure detected otherwise (e.g. a re-read after a race):
  // counted for the open operation and the retry rate, no backoff.
  void note_retry();
  bool in_op() const { return open_; }

 private:
  // Throttling (Alg. 1): takes n credits, or queues for them and returns
  // false (the caller parks until they are granted); gives them back.
  bool take_credits(uint32_t n);
  void return_credits(uint32_t n);
  template <typename R, typename Make>
  Task<R> one_verb(Make make);
  Runtime& rt_;
  Worker& w_;
  ThreadState& t_;
  bool open_ = false;
  uint32_t kind_ = 0;
  uint32_t failures_ = 0;  // failed CAS in the open operation
  OpCounters begin_counters_;
  Nanos begin_ns_ = 0;
};

}  // namespace lw::smart
