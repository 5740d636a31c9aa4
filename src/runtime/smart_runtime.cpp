// SMART runtime glue (runtime/smart.h): the per-thread states, and
// smart::Context putting the throttle (smart_throttle.cpp) in front of every
// post and the conflict control (smart_backoff.cpp) around every operation.
#include "latchwork/runtime/smart.h"

#include "smart_internal.h"

namespace lw::smart {

Runtime::Runtime(const ClusterConfig& c) : cluster_(&c), cfg_(c.smart) {
  const std::string e = cfg_.validate();
  LW_CHECK_MSG(e.empty(), e);
  const uint64_t slots = c.total_threads();
  threads_.reserve(slots);
  for (uint64_t i = 0; i < slots; ++i)
    threads_.push_back(std::make_unique<ThreadState>(cfg_, c.coroutines_per_thread));
}

Runtime::~Runtime() = default;

ThreadState& Runtime::thread(const Placement& p) {
  const ClusterConfig& c = *cluster_;
  uint64_t index;
  if (p.on_memory_node()) {
    LW_CHECK(p.node < c.memory_nodes && p.thread < c.memory_node_threads);
    index = c.total_compute_threads() + uint64_t{p.node} * c.memory_node_threads + p.thread;
  } else {
    LW_CHECK(p.node < c.compute_nodes && p.thread < c.threads_per_node);
    index = uint64_t{p.node} * c.threads_per_node + p.thread;
  }
  LW_CHECK(index < threads_.size());
  return *threads_[index];
}

OpStats Runtime::stats() const {
  OpStats all;
  for (const auto& t : threads_) all.merge(t->stats);
  return all;
}

std::vector<ThreadSummary> Runtime::summaries() const {
  std::vector<ThreadSummary> out;
  out.reserve(threads_.size());
  for (const auto& t : threads_) {
    ThreadSummary s;
    s.credits_limit = t->throttle.c_max();
    s.credit_waits = t->throttle.waits();
    s.epochs = t->throttle.epochs();
    s.max_in_flight = t->throttle.max_in_flight();
    s.completed_wrs = t->throttle.completed();
    s.t_max_ns = t->conflict.t_max();
    s.t_max_peak_ns = t->conflict.t_max_peak();
    s.c_max = t->conflict.c_max();
    s.c_max_low = t->conflict.c_max_low();
    s.backoffs = t->backoffs;
    s.backoff_ns = t->backoff_ns;
    s.coroutine_waits = t->conflict.waits();
    s.ops = t->ops;
    s.retries = t->retries;
    s.retry_windows = t->conflict.windows();
    out.push_back(s);
  }
  return out;
}

Context::Context(Runtime& rt, Worker& w) : rt_(rt), w_(w), t_(rt.thread(w.placement())) {}

Task<void> Context::begin_op(uint32_t kind) {
  LW_CHECK_MSG(!open_, "begin_op inside an open operation (operations do not nest)");
  LW_CHECK_MSG(kind < OpStats::kMaxKinds, "operation kind out of range");
  begin_ns_ = w_.now();
  if (!t_.conflict.try_open()) {
    t_.conflict.wait(w_.port());
    co_await w_.park();  // resumed holding a slot (granted on our behalf)
  }
  open_ = true;
  kind_ = kind;
  failures_ = 0;
  begin_counters_ = w_.counters();
}

void Context::end_op(bool ok) {
  LW_CHECK_MSG(open_, "end_op without begin_op");
  const Nanos now = w_.now();
  const OpCounters& end = w_.counters();
  t_.stats.record(kind_, begin_counters_, end, begin_ns_, now, ok);
  const uint64_t retries = end.retries - begin_counters_.retries;
  ++t_.ops;
  t_.retries += retries;
  t_.conflict.op_ended(now, 0);  // its retries were counted as they happened
  open_ = false;
  t_.conflict.close();
}

bool Context::take_credits(uint32_t n) {
  Throttle& th = t_.throttle;
  th.advance(w_.now());
  if (th.try_acquire(n)) return true;
  th.wait(w_.port(), n);
  return false;  // the caller parks; it resumes with the credits taken on its behalf
}

void Context::return_credits(uint32_t n) {
  Throttle& th = t_.throttle;
  th.advance(w_.now());
  th.release(n);
}

Task<Status> Context::execute(Batch& batch) {
  if (!rt_.config().throttling) co_return co_await w_.execute(batch);
  const uint32_t n = batch.size();
  if (!take_credits(n)) co_await w_.park();
  const Status s = co_await w_.execute(batch);
  return_credits(n);
  co_return s;
}

// Under the throttle, in rounds: the first batch left waits for its credits
// as execute() does; the batches after it join the round while credits are
// free now. A coroutine never waits holding credits (no deadlock among
// coroutines holding parts of C_max), and a large await does not stall the
// thread's queue for credits it cannot get at once.
Task<Status> Context::execute_all(std::span<Batch* const> batches) {
  if (!rt_.config().throttling) co_return co_await w_.execute_all(batches);
  // Bounded: every round takes at least one batch.
  for (size_t at = 0; at < batches.size();) {
    uint32_t n = batches[at]->size();
    if (!take_credits(n)) co_await w_.park();
    size_t end = at + 1;
    for (; end < batches.size(); ++end) {
      t_.throttle.advance(w_.now());
      if (!t_.throttle.try_acquire(batches[end]->size())) break;
      n += batches[end]->size();
    }
    const Status s = co_await w_.execute_all(batches.subspan(at, end - at));
    return_credits(n);
    if (s != Status::kOk) co_return s;
    at = end;
  }
  co_return Status::kOk;
}

// One verb: with throttling, a credit around the worker's own request (not a
// one-request Batch through execute(): the same request, credits and
// counters, without a second coroutine frame and a 16-entry Batch per verb).
// `make` builds the request's awaiter once the credit is held.
template <typename R, typename Make>
Task<R> Context::one_verb(Make make) {
  if (!rt_.config().throttling) co_return co_await make();
  if (!take_credits(1)) co_await w_.park();
  const R r = co_await make();
  return_credits(1);
  co_return r;
}

Task<Status> Context::read(void* dst, RemoteAddr src, uint32_t len) {
  return one_verb<Status>([this, dst, src, len] { return w_.read(dst, src, len); });
}

Task<Status> Context::write(RemoteAddr dst, const void* src, uint32_t len) {
  return one_verb<Status>([this, dst, src, len] { return w_.write(dst, src, len); });
}

Task<Result<uint64_t>> Context::cas(RemoteAddr addr, uint64_t expected, uint64_t desired) {
  return one_verb<Result<uint64_t>>([this, addr, expected, desired] { return w_.cas(addr, expected, desired); });
}

Task<Result<uint64_t>> Context::backoff_cas(RemoteAddr addr, uint64_t expected, uint64_t desired) {
  const Result<uint64_t> r = co_await cas(addr, expected, desired);
  if (!r.ok() || r.value == expected) co_return r;
  // A failed CAS: a retry of the open operation.
  const uint32_t earlier = failures_++;
  note_retry();
  const SmartConfig& cfg = rt_.config();
  if (cfg.backoff) {
    const Nanos rand = static_cast<Nanos>(w_.rng().below(cfg.t0_ns + 1));  // Rand(t0) on [0, t0]
    const Nanos d = t_.conflict.backoff_ns(earlier, rand);
    ++t_.backoffs;
    t_.backoff_ns += d;
    co_await w_.sleep(d);
  }
  co_return r;
}

void Context::note_retry() {
  w_.note_retry();
  t_.conflict.retried(w_.now());
}

}  // namespace lw::smart
