#include "latchwork/verbs/worker.h"

namespace lw {

WorkRequest& Batch::add(const WorkRequest& wr) {
  LW_CHECK_MSG(n_ < kMax, "a Batch holds at most 16 work requests");
  wrs_[n_] = wr;
  wrs_[n_].signaled = false;
  return wrs_[n_++];
}

WorkRequest& Batch::read(void* dst, RemoteAddr src, uint32_t len) {
  return add({.opcode = Opcode::kRead, .length = len, .remote = src, .local = dst});
}
WorkRequest& Batch::write(RemoteAddr dst, const void* src, uint32_t len) {
  return add({.opcode = Opcode::kWrite, .length = len, .remote = dst,
              .local = const_cast<void*>(src)});
}
WorkRequest& Batch::cas(RemoteAddr addr, uint64_t expected, uint64_t desired) {
  return add({.opcode = Opcode::kCas, .length = 8, .remote = addr, .compare = expected,
              .operand = desired});
}
WorkRequest& Batch::faa(RemoteAddr addr, uint64_t v) {
  return add({.opcode = Opcode::kFaa, .length = 8, .remote = addr, .operand = v});
}
WorkRequest& Batch::masked_cas(RemoteAddr addr, uint64_t expected, uint64_t desired,
                               uint64_t compare_mask, uint64_t swap_mask) {
  return add({.opcode = Opcode::kMaskedCas, .length = 8, .remote = addr, .compare = expected,
              .operand = desired, .compare_mask = compare_mask, .swap_mask = swap_mask});
}
WorkRequest& Batch::masked_faa(RemoteAddr addr, uint64_t v, uint64_t field_mask) {
  return add({.opcode = Opcode::kMaskedFaa, .length = 8, .remote = addr, .operand = v,
              .field_mask = field_mask});
}

Status Batch::status() const {
  for (uint32_t i = 0; i < n_; ++i)
    if (wrs_[i].status != Status::kOk) return wrs_[i].status;
  return Status::kOk;
}

Worker::AtomicAwaiter Worker::masked_cas(RemoteAddr addr, uint64_t expected, uint64_t desired,
                                         uint64_t compare_mask, uint64_t swap_mask) {
  AtomicAwaiter a{port_, {.opcode = Opcode::kMaskedCas, .length = 8, .remote = addr,
                          .compare = expected, .operand = desired,
                          .compare_mask = compare_mask, .swap_mask = swap_mask}};
  ++counters_.round_trips;
  count(a.wr);
  return a;
}
Worker::AtomicAwaiter Worker::masked_faa(RemoteAddr addr, uint64_t v, uint64_t field_mask) {
  AtomicAwaiter a{port_, {.opcode = Opcode::kMaskedFaa, .length = 8, .remote = addr,
                          .operand = v, .field_mask = field_mask}};
  ++counters_.round_trips;
  count(a.wr);
  return a;
}

Status Worker::check_batch(const Batch& batch) const {
  if (batch.empty()) return Status::kBadLength;
  for (uint32_t i = 1; i < batch.size(); ++i)
    if (batch[i].remote.node() != batch[0].remote.node()) return Status::kWrongNode;
  return Status::kOk;
}

Worker::BatchAwaiter Worker::execute(Batch& batch) {
  Status early = check_batch(batch);
  if (early == Status::kOk) {
    batch[batch.size() - 1].signaled = true;
    ++counters_.round_trips;
    for (uint32_t i = 0; i < batch.size(); ++i) count(batch[i]);
  }
  return {port_, &batch, early};
}

bool WorkerPort::submit_all(Batch* const* batches, uint32_t k, std::coroutine_handle<>) {
  for (uint32_t b = 0; b < k; ++b)
    for (uint32_t i = 0; i < batches[b]->size(); ++i) (*batches[b])[i].status = Status::kUnsupported;
  return false;
}

Worker::MultiAwaiter Worker::execute_all(std::span<Batch* const> batches) {
  Status early = batches.empty() || batches.size() > kMaxBatchesAwaited ? Status::kBadLength : Status::kOk;
  for (size_t b = 0; b < batches.size() && early == Status::kOk; ++b) early = check_batch(*batches[b]);
  if (early == Status::kOk) {
    ++counters_.round_trips;
    for (Batch* batch : batches) {
      (*batch)[batch->size() - 1].signaled = true;
      for (uint32_t i = 0; i < batch->size(); ++i) count((*batch)[i]);
    }
  }
  return {port_, batches.data(), static_cast<uint32_t>(batches.size()), early};
}

Status Worker::MultiAwaiter::await_resume() const noexcept {
  if (early != Status::kOk) return early;
  for (uint32_t b = 0; b < k; ++b)
    if (Status s = batches[b]->status(); s != Status::kOk) return s;
  return Status::kOk;
}

Status Worker::post(Batch& batch) {
  Status s = check_batch(batch);
  if (s != Status::kOk) return s;
  for (uint32_t i = 0; i < batch.size(); ++i) {
    batch[i].signaled = false;
    batch[i].status = Status::kOk;
    count(batch[i]);
  }
  // The backend marks requests it rejects at once (e.g. a full queue).
  port_->submit(batch.data(), batch.size(), nullptr);
  return batch.status();
}

std::span<std::byte> Worker::post_buffer(NodeId node, size_t bytes) {
  if (post_buffers_.size() <= node) post_buffers_.resize(size_t{node} + 1);
  std::vector<std::byte>& b = post_buffers_[node];
  if (b.size() < bytes) b.resize(bytes);
  return {b.data(), bytes};
}

Worker::RpcAwaiter Worker::call(NodeId node, HandlerId h, std::span<const std::byte> request,
                                 std::span<std::byte> reply) {
  RpcAwaiter a{port_, {.node = node, .handler = h, .request = request, .reply = reply, .one_way = false}};
  if (request.size() > kMaxRpcBytes || reply.size() > kMaxRpcBytes) {
    a.call.status = Status::kBadLength;
  } else if (h >= kMaxRpcHandlers) {
    a.call.status = Status::kUnsupported;
  } else {
    ++counters_.round_trips;
    ++counters_.rpcs;
    counters_.bytes_written += request.size();
  }
  return a;
}

bool WorkerPort::rpc_all(RpcCall* const* calls, uint32_t k, std::coroutine_handle<>) {
  for (uint32_t c = 0; c < k; ++c) {
    calls[c]->status = Status::kUnsupported;
    calls[c]->reply_bytes = 0;
  }
  return false;
}

Worker::RpcAllAwaiter Worker::call_all(std::span<RpcCall* const> calls) {
  Status early = calls.empty() || calls.size() > kMaxCallsAwaited ? Status::kBadLength : Status::kOk;
  for (size_t c = 0; c < calls.size() && early == Status::kOk; ++c) {
    const RpcCall& call = *calls[c];
    if (call.one_way || call.request.size() > kMaxRpcBytes || call.reply.size() > kMaxRpcBytes)
      early = Status::kBadLength;
    else if (call.handler >= kMaxRpcHandlers)
      early = Status::kUnsupported;
  }
  if (early == Status::kOk) {
    ++counters_.round_trips;
    for (RpcCall* call : calls) {
      call->status = Status::kOk;
      call->reply_bytes = 0;
      ++counters_.rpcs;
      counters_.bytes_written += call->request.size();
    }
  }
  return {port_, calls.data(), static_cast<uint32_t>(calls.size()), early};
}

Status Worker::RpcAllAwaiter::await_resume() const noexcept {
  if (early != Status::kOk) return early;
  for (uint32_t c = 0; c < k; ++c)
    if (calls[c]->status != Status::kOk) return calls[c]->status;
  return Status::kOk;
}

Status Worker::send(NodeId node, HandlerId h, std::span<const std::byte> request) {
  if (request.size() > kMaxRpcBytes) return Status::kBadLength;
  if (h >= kMaxRpcHandlers) return Status::kUnsupported;
  RpcCall c{.node = node, .handler = h, .request = request, .reply = {}, .one_way = true};
  ++counters_.rpcs;
  counters_.bytes_written += request.size();
  port_->rpc(&c, nullptr);
  return c.status;
}

namespace {

// The backend's own wait, awaited once.
struct CpuWaitAwaiter {
  WorkerPort* port;
  CpuWait* op;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) { return port->cpu_wait(op, h); }
  void await_resume() const noexcept {}
};

}  // namespace

Task<Worker::CpuWaitResult> Worker::cpu_wait_while(RemoteAddr addr, uint64_t value, uint64_t max_polls) {
  LW_CHECK_MSG(max_polls >= 1, "cpu_wait_while: max_polls must be at least 1");
  CpuWait op{.addr = addr, .value = value, .max_polls = max_polls};
  co_await CpuWaitAwaiter{port_, &op};
  if (op.status == Status::kOk) co_return CpuWaitResult{op.status, op.last, op.polls};
  // The first load's error (no load ran: it counts as one, as in the loop).
  if (op.status != Status::kUnsupported) co_return CpuWaitResult{op.status, 0, 1};
  // The loop itself (bounded by max_polls).
  CpuWaitResult r;
  do {
    Result<uint64_t> v = co_await cpu_load(addr);
    ++r.polls;
    if (!v.ok()) co_return CpuWaitResult{v.status, 0, r.polls};
    r.value = v.value;
  } while (r.value == value && r.polls < max_polls);
  co_return r;
}

}  // namespace lw
