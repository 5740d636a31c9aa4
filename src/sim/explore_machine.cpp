// The explorer's execution model: memory, requests in flight, and the steps
// the contract lets interleave (explore.h says which). Nothing here chooses:
// enabled() lists the choices in a fixed order, apply() performs one.
#include <algorithm>
#include <cstring>
#include <exception>

#include "atomic_effect.h"
#include "explore_impl.h"

namespace lw::explore::detail {
namespace {

uint64_t first_line(const WorkRequest& wr) { return line_of(wr.remote.offset()); }
uint32_t line_count(const WorkRequest& wr) {
  const uint64_t len = is_atomic(wr.opcode) ? 8 : wr.length;
  return static_cast<uint32_t>(line_of(wr.remote.offset() + len - 1) - first_line(wr) + 1);
}
// The part of the request's byte range in its `i`-th line.
void line_range(const WorkRequest& wr, uint32_t i, uint64_t* lo, uint64_t* hi) {
  const uint64_t begin = wr.remote.offset(), end = begin + wr.length;
  const uint64_t line_lo = (first_line(wr) + i) * kCacheLine;
  *lo = std::max(begin, line_lo);
  *hi = std::min(end, line_lo + kCacheLine);
}
// The contribution of one non-zero word to the memory hash.
H128 word_hash(NodeId node, uint64_t off, uint64_t v) {
  if (v == 0) return {};
  const uint64_t addr = (uint64_t{node} << 48) | off;
  return {H128::mix(v ^ (addr * 0x9e3779b97f4a7c15ull), 0xff51afd7ed558ccdull),
          H128::mix(v + (addr << 17 | addr >> 47) + 0x2545f4914f6cdd1dull, 0xc4ceb9fe1a85ec53ull)};
}
constexpr uint32_t kMaxLines = 0xfffe;  // line indices fit Step::arg below kAll

}  // namespace

uint64_t hash_bytes(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  uint64_t h = 0x84222325cbf29ce4ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, b + i, 8);
    h = H128::mix(h ^ w, 0x9e3779b97f4a7c15ull);
  }
  uint64_t tail = 0;
  if (i < n) std::memcpy(&tail, b + i, n - i);
  return H128::mix(h ^ tail ^ (n << 56), 0xd6e8feb86659fd93ull);
}

// --- the ports ---

bool XWorker::submit(WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter) {
  return m->submit(*this, wrs, n, waiter);
}
bool XWorker::sleep(Nanos, std::coroutine_handle<> waiter) {
  LW_CHECK(wait == Wait::kRunning);
  resume = waiter;
  wait = Wait::kSleep;
  return true;
}
bool XWorker::cpu_access(CpuAccess* op, std::coroutine_handle<> waiter) {
  LW_CHECK(wait == Wait::kRunning);
  if (!place.on_memory_node() || op->addr.node() != place.node || place.node >= m->nodes_.size()) {
    op->status = Status::kWrongNode;
    return false;
  }
  const Status s = m->nodes_[place.node].mem->check(op->addr.offset(), 8, true);
  if (s != Status::kOk) {
    op->status = s;
    return false;
  }
  cpu = op;
  resume = waiter;
  wait = Wait::kCpu;
  return true;
}
Nanos XWorker::now() const {
  if (!m->spec_.logical_clock) return m->steps_;
  // Reading the clock is an event of the program: it changes its state.
  return m->tick(const_cast<XWorker&>(*this));
}

uint64_t Machine::tick(XWorker& w) {
  ++clock_;
  H128 r;
  r.add(0xc10cull << 32 | clock_);
  record(w, r);
  return clock_;
}
void XWorker::park(std::coroutine_handle<> h) {
  LW_CHECK(wait == Wait::kRunning);
  resume = h;
  wait = Wait::kParked;
}
void XWorker::unpark() {
  LW_CHECK_MSG(wait == Wait::kParked, "unpark of a coroutine that is not parked");
  wait = Wait::kUnparked;
}

// --- the backend's host side ---

Machine::Machine(const Spec& s) : spec_(s), sem_(s.semantics) {
  if (s.config) cfg_ = *s.config;
  cfg_.backend = "explore";
  cfg_.memory_nodes = s.nodes;
  cfg_.memory_node_bytes = s.node_bytes;
  cfg_.device_memory_bytes = s.device_bytes;
  cfg_.semantics = s.semantics;
  for (uint32_t i = 0; i < s.nodes; ++i)
    nodes_.push_back(Node{std::make_unique<NodeMemory>(s.node_bytes, s.device_bytes)});
  // Coroutines of one thread share its queue pairs (one per node).
  std::vector<Placement> threads;
  for (uint32_t i = 0; i < s.workers.size(); ++i) {
    const Placement& p = s.workers[i];
    size_t t = 0;
    while (t < threads.size() && !(threads[t].kind == p.kind && threads[t].node == p.node &&
                                   threads[t].thread == p.thread))
      ++t;
    if (t == threads.size()) threads.push_back(p);
    auto w = std::make_unique<XWorker>();
    w->m = this;
    w->index = i;
    w->place = p;
    w->qp_base = static_cast<uint32_t>(t * s.nodes);
    workers_.push_back(std::move(w));
  }
  qps_.resize(threads.size() * s.nodes);
}

Machine::~Machine() {
  // Frames first: they hold awaiters that point into the workers.
  for (auto& w : workers_) w->task = {};
}

Capabilities Machine::capabilities() const {
  Capabilities c;
  c.device_memory = spec_.device_bytes > 0;
  c.deterministic = true;
  c.failed_cas_writes_back = sem_.failed_cas_writes_back;
  c.rpc = true;
  return c;
}

RemoteAddr Machine::allocate(NodeId node, uint64_t bytes, uint64_t align) {
  if (node >= nodes_.size() || align == 0 || (align & (align - 1)) != 0) return {};
  Node& n = nodes_[node];
  const uint64_t off = (n.host_next + align - 1) & ~(align - 1);
  if (off > n.mem->host_bytes() || bytes > n.mem->host_bytes() - off) return {};
  n.host_next = off + bytes;
  return {node, off};
}

RemoteAddr Machine::allocate_device_memory(NodeId node, uint64_t bytes) {
  if (node >= nodes_.size()) return {};
  Node& n = nodes_[node];
  const uint64_t off = (n.device_next + kWord - 1) & ~uint64_t{kWord - 1};
  if (off > n.mem->device_bytes() || bytes > n.mem->device_bytes() - off) return {};
  n.device_next = off + bytes;
  return {node, NodeMemory::kDeviceBase + off};
}

void Machine::host_write(RemoteAddr dst, const void* src, uint64_t bytes) {
  LW_CHECK(dst.node() < nodes_.size());
  LW_CHECK_MSG(nodes_[dst.node()].mem->check(dst.offset(), bytes, false) == Status::kOk,
               "host_write outside the node's memory");
  store(dst.node(), dst.offset(), src, bytes);
}

void Machine::host_read(RemoteAddr src, void* dst, uint64_t bytes) {
  LW_CHECK(src.node() < nodes_.size());
  LW_CHECK_MSG(nodes_[src.node()].mem->check(src.offset(), bytes, false) == Status::kOk,
               "host_read outside the node's memory");
  std::memcpy(dst, nodes_[src.node()].mem->bytes(src.offset()), bytes);
}

void Machine::spawn(Placement, WorkerMain) {
  LW_CHECK_MSG(false, "the explorer runs Spec::program on Spec::workers; spawn is not used");
}
RunStats Machine::run() {
  LW_CHECK_MSG(false, "the explorer runs the program itself (explore::run)");
  return {};
}

// --- memory ---

void Machine::touch(Node& n, uint64_t off, uint64_t len) {
  if (n.mem->is_device(off)) {
    n.dlo = std::min(n.dlo, off);
    n.dhi = std::max(n.dhi, off + len);
  } else {
    n.lo = std::min(n.lo, off);
    n.hi = std::max(n.hi, off + len);
  }
}

void Machine::store(NodeId node, uint64_t off, const void* src, uint64_t len) {
  Node& n = nodes_[node];
  const uint64_t w0 = off & ~uint64_t{7}, w1 = (off + len + 7) & ~uint64_t{7};
  touch(n, w0, w1 - w0);
  for (uint64_t w = w0; w < w1; w += kWord) {
    const H128 h = word_hash(node, w, *n.mem->word(w));
    mem_hash_.a ^= h.a;
    mem_hash_.b ^= h.b;
  }
  std::memcpy(n.mem->bytes(off), src, len);
  for (uint64_t w = w0; w < w1; w += kWord) {
    const H128 h = word_hash(node, w, *n.mem->word(w));
    mem_hash_.a ^= h.a;
    mem_hash_.b ^= h.b;
  }
}

bool Machine::window_on(NodeId node, uint64_t lo, uint64_t hi) const {
  for (const Window& w : windows_)
    if (w.node == node && w.offset < hi && w.offset + kWord > lo) return true;
  return false;
}

bool Machine::store_blocked(NodeId node, uint64_t lo, uint64_t hi, bool losable) const {
  if (losable) return false;
  for (const Window& w : windows_)
    if (w.node == node && w.offset < hi && w.offset + kWord > lo && !w.failed_cas) return true;
  return false;
}

// --- executions ---

void Machine::reset() {
  for (auto& w : workers_) w->task = {};
  for (Node& n : nodes_) {
    if (n.hi > n.lo) std::memset(n.mem->bytes(n.lo), 0, n.hi - n.lo);
    if (n.dhi > n.dlo) std::memset(n.mem->bytes(n.dlo), 0, n.dhi - n.dlo);
    n.lo = n.dlo = ~uint64_t{0};
    n.hi = n.dhi = 0;
    n.host_next = NodeMemory::kReservedBytes;
    n.device_next = 0;
  }
  mem_hash_ = {};
  // Slots are handed out in the same order in every execution, so a Step
  // names the same request in each replay.
  free_ops_.clear();
  for (size_t i = ops_.size(); i-- > 0;) free_ops_.push_back(static_cast<uint32_t>(i));
  for (auto& q : qps_) q.clear();
  windows_.clear();
  to_resume_.clear();
  messages_.clear();
  rpc_seq_ = 0;
  reset_handlers();
  steps_ = 0;
  clock_ = 0;
  failure_.clear();
  last_seen_.clear();
  running_ = -1;
  if (spec_.setup) spec_.setup(*this);
  for (auto& w : workers_) {
    w->worker.reset();
    w->worker.emplace(w.get(), w->place, worker_seed(spec_.seed, w->place));
    w->chain = {};
    w->pending = {};
    w->rec.clear();
    w->chain_before.clear();
    w->rng_before.clear();
    w->cpu = nullptr;
    w->call = nullptr;
    w->completed_inline = false;
    w->task = spec_.program(*w->worker, w->index);
    LW_CHECK_MSG(w->task.valid(), "Spec::program returned an empty Task");
    w->resume = w->task.handle();
    w->wait = XWorker::Wait::kRunning;
  }
  // Starting is local computation up to the first await: not a choice.
  for (auto& w : workers_) run_worker(*w);
}

void Machine::run_worker(XWorker& w) {
  LW_CHECK(w.resume);
  w.wait = XWorker::Wait::kRunning;
  running_ = static_cast<int>(w.index);
  std::exchange(w.resume, {}).resume();
  running_ = -1;
  if (w.task.done()) {
    w.wait = XWorker::Wait::kDone;
    if (std::exception_ptr e = w.task.exception(); e && failure_.empty()) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        failure_ = "exception in " + who(w.index) + ": " + x.what();
      } catch (...) {
        failure_ = "exception in " + who(w.index);
      }
    }
    if (log_) note(w.index, "finished");
    return;
  }
  LW_CHECK_MSG(w.wait != XWorker::Wait::kRunning,
               "a worker suspended on something other than its Worker (explore runs only "
               "Latchwork awaitables)");
}

uint32_t Machine::new_op() {
  if (free_ops_.empty()) {
    ops_.emplace_back();
    return static_cast<uint32_t>(ops_.size() - 1);
  }
  const uint32_t slot = free_ops_.back();
  free_ops_.pop_back();
  return slot;
}

bool Machine::submit(XWorker& w, WorkRequest* wrs, uint32_t n, std::coroutine_handle<> waiter) {
  LW_CHECK(n > 0 && w.wait == XWorker::Wait::kRunning);
  const NodeId node = wrs[0].remote.node();
  if (node >= nodes_.size()) {
    for (uint32_t i = 0; i < n; ++i) wrs[i].status = Status::kWrongNode;
    return false;
  }
  const uint32_t q = w.qp_base + node;
  NodeMemory& mem = *nodes_[node].mem;
  for (uint32_t i = 0; i < n; ++i) {
    LW_CHECK_MSG(wrs[i].remote.node() == node, "one submission goes to one memory node");
    const uint32_t slot = new_op();
    XOp& op = ops_[slot];
    op.own = wrs[i];
    op.wr = waiter ? &wrs[i] : &op.own;
    WorkRequest& wr = *op.wr;
    Status s = mem.check(wr);
    if (s == Status::kOk && !is_atomic(wr.opcode) && wr.local == nullptr) s = Status::kBadLength;
    wr.status = s;
    wr.old_value = 0;
    op.worker = w.index;
    op.qp = q;
    op.awaited = waiter != nullptr;
    op.awaited_last = waiter != nullptr && i == n - 1;
    op.done = s != Status::kOk;
    op.window = op.atomic_writes = op.late = op.split = false;
    op.read_mask = 0;
    op.fetched = op.landed = 0;
    op.atomic_new = 0;
    op.lines = s == Status::kOk ? line_count(wr) : 0;
    op.dyn = {};
    op.stat = {};
    op.stat.add((uint64_t{static_cast<uint8_t>(wr.opcode)} << 8) | (uint64_t{wr.fence} << 1) |
                uint64_t{op.awaited} | (uint64_t{static_cast<uint8_t>(s)} << 16));
    for (uint64_t v : {wr.remote.raw(), uint64_t{wr.length}, wr.compare, wr.operand,
                       wr.compare_mask, wr.swap_mask, wr.field_mask, uint64_t{w.index}})
      op.stat.add(v);
    if (s == Status::kOk) {
      LW_CHECK_MSG(op.lines <= kMaxLines, "explore: a READ or WRITE of more than 65534 lines");
      if (wr.opcode == Opcode::kRead) {
        LW_CHECK_MSG(op.lines <= 64 || !sem_.read_lines_unordered,
                     "explore: a READ of more than 64 lines with read_lines_unordered");
        op.data.resize(wr.length);
      } else if (wr.opcode == Opcode::kWrite) {
        op.late = sem_.write_payload_late && !op.awaited;
        op.data.resize(wr.length);
        if (!op.late) {
          std::memcpy(op.data.data(), wr.local, wr.length);
          op.stat.add(hash_bytes(op.data.data(), wr.length));
        }
      } else {
        op.split = !mem.is_device(wr.remote.offset()) &&
                   (sem_.atomic_loses_write || sem_.atomic_loses_cpu || sem_.failed_cas_writes_back);
      }
    }
    qps_[q].push_back(slot);
  }
  if (waiter == nullptr) {
    deliver(q);  // requests rejected at post complete at once if nothing is ahead
    return false;
  }
  w.pending = {};
  w.completed_inline = false;
  w.resume = waiter;
  w.wait = XWorker::Wait::kOps;
  deliver(q);
  if (w.completed_inline) {  // every request failed at post: continue at once
    w.wait = XWorker::Wait::kRunning;
    w.resume = {};
    return false;
  }
  return true;
}

bool Machine::blocked(uint32_t qp, size_t k) const {
  const std::vector<uint32_t>& list = qps_[qp];
  const WorkRequest& me = *ops_[list[k]].wr;
  const bool read = me.opcode == Opcode::kRead;
  for (size_t j = 0; j < k; ++j) {
    const XOp& o = ops_[list[j]];
    if (o.done) continue;
    // Nothing passes a WRITE or an atomic; a READ may be passed by a later
    // READ (reads_unordered) or a later unfenced WRITE/atomic (read_overtaken).
    if (o.wr->opcode != Opcode::kRead) return true;
    if (me.fence || (read ? !sem_.reads_unordered : !sem_.read_overtaken)) return true;
  }
  return false;
}

void Machine::enabled(std::vector<Step>* out) {
  out->clear();
  for (uint32_t q = 0; q < qps_.size(); ++q) {
    const std::vector<uint32_t>& list = qps_[q];
    for (size_t k = 0; k < list.size(); ++k) {
      const uint32_t slot = list[k];
      const XOp& op = ops_[slot];
      if (op.done || blocked(q, k)) continue;
      const WorkRequest& wr = *op.wr;
      const NodeId node = wr.remote.node();
      const uint64_t off = wr.remote.offset();
      switch (wr.opcode) {
        case Opcode::kRead:
          if (op.lines > 1 && sem_.read_lines_unordered) {
            for (uint32_t l = 0; l < op.lines; ++l)
              if (!((op.read_mask >> l) & 1)) out->push_back({StepKind::kReadLine, static_cast<uint16_t>(l), slot});
          } else {
            out->push_back({StepKind::kReadAll, Step::kAll, slot});
          }
          break;
        case Opcode::kWrite: {
          if (op.late && op.fetched < op.lines)
            out->push_back({StepKind::kWriteFetch, static_cast<uint16_t>(op.fetched), slot});
          if (sem_.write_lines_staggered && op.lines > 1) {
            const uint32_t l = op.landed;
            uint64_t lo, hi;
            line_range(wr, l, &lo, &hi);
            if ((!op.late || l < op.fetched) && !store_blocked(node, lo, hi, sem_.atomic_loses_write))
              out->push_back({StepKind::kWriteLand, static_cast<uint16_t>(l), slot});
          } else if ((!op.late || op.fetched == op.lines) &&
                     !store_blocked(node, off, off + wr.length, sem_.atomic_loses_write)) {
            out->push_back({StepKind::kWriteLand, Step::kAll, slot});
          }
          break;
        }
        default:
          if (op.window) {
            out->push_back({StepKind::kAtomicWriteBack, 0, slot});
          } else if (!window_on(node, off, off + kWord)) {  // the NIC's per-word lock
            out->push_back({StepKind::kAtomicRead, 0, slot});
          }
          break;
      }
    }
  }
  for (const auto& w : workers_) {
    if (w->wait == XWorker::Wait::kSleep || w->wait == XWorker::Wait::kUnparked) {
      out->push_back({StepKind::kWake, 0, w->index});
    } else if (w->wait == XWorker::Wait::kCpu) {
      const bool stores = w->cpu->kind != CpuAccess::Kind::kLoad;
      const uint64_t off = w->cpu->addr.offset();
      if (!stores || !store_blocked(w->cpu->addr.node(), off, off + kWord, sem_.atomic_loses_cpu))
        out->push_back({StepKind::kCpu, 0, w->index});
    }
  }
  rpc_steps(out);
}

void Machine::finish_effects(XOp& op) {
  op.done = true;
  deliver(op.qp);
}

void Machine::deliver(uint32_t q) {
  std::vector<uint32_t>& list = qps_[q];
  size_t k = 0;
  for (; k < list.size() && ops_[list[k]].done; ++k) {
    const uint32_t slot = list[k];
    XOp& op = ops_[slot];
    WorkRequest& wr = *op.wr;
    XWorker& w = *workers_[op.worker];
    H128 r = op.stat;
    r.add((uint64_t{static_cast<uint8_t>(wr.status)} << 56) ^ wr.old_value);
    if (wr.opcode == Opcode::kRead && wr.status == Status::kOk) {
      // The response arrives: only now is the requester's buffer written.
      std::memcpy(wr.local, op.data.data(), wr.length);
      r.add(hash_bytes(op.data.data(), wr.length));
    }
    if (op.awaited) {
      w.pending.add(r);
      if (op.awaited_last) {
        if (running_ == static_cast<int>(op.worker)) {
          w.completed_inline = true;
        } else {
          to_resume_.push_back(op.worker);
        }
      }
    } else if (wr.opcode == Opcode::kRead && wr.status == Status::kOk) {
      record(w, r);  // an unsignaled READ wrote the coroutine's memory
    }
    free_ops_.push_back(slot);
  }
  list.erase(list.begin(), list.begin() + static_cast<ptrdiff_t>(k));
}

void Machine::record(XWorker& w, const H128& r) {
  if (!spec_.spin_reduction) {
    w.chain.add(r);
    return;
  }
  w.chain_before.push_back(w.chain);
  w.rng_before.push_back(w.worker->rng());
  w.rec.push_back(r);
  w.chain.add(r);
  // A block of up to four records repeated with the same results is folded:
  // the coroutine is back where it was after the first copy.
  const size_t n = w.rec.size();
  for (size_t p = 1; p <= 4 && 2 * p <= n; ++p) {
    if (std::equal(w.rec.end() - static_cast<ptrdiff_t>(p), w.rec.end(),
                   w.rec.end() - static_cast<ptrdiff_t>(2 * p))) {
      w.chain = w.chain_before[n - p];
      // Its random draws too: the fold says the repeat did not happen, so
      // later choices are those after the first copy (as state and hash say).
      w.worker->rng() = w.rng_before[n - p - 1];
      w.rec.resize(n - p);
      w.chain_before.resize(n - p);
      w.rng_before.resize(n - p);
      return;
    }
  }
}

void Machine::resume_ready() {
  for (size_t i = 0; i < to_resume_.size(); ++i) {
    XWorker& w = *workers_[to_resume_[i]];
    LW_CHECK(w.wait == XWorker::Wait::kOps);
    record(w, w.pending);
    if (log_) note(w.index, "resumes");
    run_worker(w);
  }
  to_resume_.clear();
}

void Machine::apply(const Step& s) {
  ++steps_;
  if (s.kind == StepKind::kRpcServe || s.kind == StepKind::kRpcMessage) {
    apply_rpc(s);
    return;
  }
  if (s.kind == StepKind::kWake || s.kind == StepKind::kCpu) {
    XWorker& w = *workers_[s.target];
    H128 r;
    if (s.kind == StepKind::kWake) {
      r.add(w.wait == XWorker::Wait::kSleep ? 0x5133ull : 0x0babull);
      if (log_) note(w.index, w.wait == XWorker::Wait::kSleep ? "wakes from sleep" : "resumes after unpark");
    } else {
      CpuAccess& c = *w.cpu;
      w.cpu = nullptr;
      const NodeId node = c.addr.node();
      const uint64_t off = c.addr.offset();
      const uint64_t old = load_word(node, off);
      c.old_value = old;
      c.status = Status::kOk;
      uint64_t nv = old;
      switch (c.kind) {
        case CpuAccess::Kind::kLoad: break;
        case CpuAccess::Kind::kStore: nv = c.a; break;
        case CpuAccess::Kind::kCas: nv = old == c.a ? c.b : old; break;
        case CpuAccess::Kind::kFaa: nv = old + c.a; break;
      }
      if (c.kind != CpuAccess::Kind::kLoad && nv != old) store(node, off, &nv, kWord);
      for (uint64_t v : {uint64_t{static_cast<uint8_t>(c.kind)} | 0xc0u << 8, c.addr.raw(), c.a, c.b, old})
        r.add(v);
      if (log_) {
        static const char* const kinds[] = {"load", "store", "CAS", "FAA"};
        std::string t = std::string("CPU ") + kinds[static_cast<int>(c.kind)] + " " + c.addr.to_string();
        if (c.kind == CpuAccess::Kind::kStore) t += " := " + std::to_string(c.a);
        if (c.kind == CpuAccess::Kind::kCas) t += " (" + std::to_string(c.a) + " -> " + std::to_string(c.b) + ")";
        if (c.kind == CpuAccess::Kind::kFaa) t += " (+" + std::to_string(c.a) + ")";
        t += " saw " + std::to_string(old);
        if (window_on(node, off, off + kWord) && c.kind != CpuAccess::Kind::kLoad)
          t += " (inside a NIC atomic: its write-back will overwrite this)";
        note(w.index, t);
      }
    }
    record(w, r);
    run_worker(w);
    resume_ready();
    return;
  }
  XOp& op = ops_[s.target];
  WorkRequest& wr = *op.wr;
  const NodeId node = wr.remote.node();
  const uint64_t off = wr.remote.offset();
  NodeMemory& mem = *nodes_[node].mem;
  std::string text;
  switch (s.kind) {
    case StepKind::kReadLine: {
      uint64_t lo, hi;
      line_range(wr, s.arg, &lo, &hi);
      std::memcpy(op.data.data() + (lo - off), mem.bytes(lo), hi - lo);
      op.read_mask |= uint64_t{1} << s.arg;
      op.dyn.add(s.arg);
      op.dyn.add(hash_bytes(op.data.data() + (lo - off), hi - lo));
      if (log_) {
        uint64_t first = 0;
        std::memcpy(&first, op.data.data() + (lo - off), std::min<uint64_t>(8, hi - lo));
        text = op_text(op) + ": line " + std::to_string(s.arg) + " fetched, first word " + std::to_string(first);
      }
      const bool all = op.lines == 64 ? op.read_mask == ~uint64_t{0}
                                      : op.read_mask == (uint64_t{1} << op.lines) - 1;
      if (log_) note(op.worker, text);
      if (all) finish_effects(op);
      break;
    }
    case StepKind::kReadAll: {
      std::memcpy(op.data.data(), mem.bytes(off), wr.length);
      op.dyn.add(hash_bytes(op.data.data(), wr.length));
      if (log_) {
        uint64_t first = 0;
        std::memcpy(&first, op.data.data(), std::min<uint64_t>(8, wr.length));
        note(op.worker, op_text(op) + ": fetched, first word " + std::to_string(first));
      }
      finish_effects(op);
      break;
    }
    case StepKind::kWriteFetch: {
      uint64_t lo, hi;
      line_range(wr, s.arg, &lo, &hi);
      std::memcpy(op.data.data() + (lo - off), static_cast<const std::byte*>(wr.local) + (lo - off), hi - lo);
      op.dyn.add(s.arg);
      op.dyn.add(hash_bytes(op.data.data() + (lo - off), hi - lo));
      ++op.fetched;
      if (log_) note(op.worker, op_text(op) + ": the NIC reads source line " + std::to_string(s.arg));
      break;
    }
    case StepKind::kWriteLand: {
      uint64_t lo = off, hi = off + wr.length;
      if (s.arg != Step::kAll) line_range(wr, s.arg, &lo, &hi);
      const bool inside = window_on(node, lo, hi);
      store(node, lo, op.data.data() + (lo - off), hi - lo);
      op.landed = s.arg == Step::kAll ? op.lines : op.landed + 1;
      if (log_) {
        text = op_text(op) + (s.arg == Step::kAll ? std::string(": lands") : ": line " + std::to_string(s.arg) + " lands");
        if (inside) text += " (inside a NIC atomic: its write-back will overwrite this)";
        note(op.worker, text);
      }
      if (op.landed == op.lines) finish_effects(op);
      break;
    }
    case StepKind::kAtomicRead: {
      const uint64_t old = load_word(node, off);
      wr.old_value = old;
      const sim::AtomicEffect effect = sim::atomic_effect(sem_, wr, old, &op.atomic_new);
      op.atomic_writes = effect.writes;
      op.dyn.add(old);
      if (log_) {
        text = op_text(op) + " read " + std::to_string(old);
        if (!op.atomic_writes) text += ": fails, nothing to write back";
        else if (effect.failed_cas && op.split) text += ": fails, will write back " + std::to_string(old);
        else if (op.split) text += ": will write back " + std::to_string(op.atomic_new);
        else text += ", wrote " + std::to_string(op.atomic_new);
        note(op.worker, text);
      }
      if (!op.split || !op.atomic_writes) {
        if (op.atomic_writes) store(node, off, &op.atomic_new, kWord);
        finish_effects(op);
      } else {
        op.window = true;
        windows_.push_back({node, off, s.target, effect.failed_cas});
      }
      break;
    }
    case StepKind::kAtomicWriteBack: {
      LW_CHECK(op.window);
      const uint64_t cur = load_word(node, off);
      store(node, off, &op.atomic_new, kWord);
      op.window = false;
      for (size_t i = 0; i < windows_.size(); ++i)
        if (windows_[i].op == s.target) {
          windows_.erase(windows_.begin() + static_cast<ptrdiff_t>(i));
          break;
        }
      if (log_) {
        text = op_text(op) + " writes back " + std::to_string(op.atomic_new);
        if (cur != wr.old_value) text += " (overwriting " + std::to_string(cur) + ", which landed inside it)";
        note(op.worker, text);
      }
      finish_effects(op);
      break;
    }
    default:
      LW_CHECK_MSG(false, "unknown step");
  }
  resume_ready();
}

H128 Machine::state_hash() const {
  H128 h = mem_hash_;
  for (uint32_t q = 0; q < qps_.size(); ++q) {
    if (qps_[q].empty()) continue;
    h.add(0xa11ull << 32 | q);
    for (uint32_t slot : qps_[q]) {
      const XOp& op = ops_[slot];
      h.add(op.stat);
      h.add(op.dyn);
      h.add(op.read_mask ^ (uint64_t{op.fetched} << 20) ^ (uint64_t{op.landed} << 40) ^
            (uint64_t{op.window} << 62) ^ (uint64_t{op.done} << 63));
    }
  }
  for (const auto& w : workers_) {
    h.add(static_cast<uint64_t>(w->wait));
    h.add(w->chain);
    if (w->wait == XWorker::Wait::kOps) h.add(w->pending);
    if (w->wait == XWorker::Wait::kCpu)
      for (uint64_t v : {uint64_t{static_cast<uint8_t>(w->cpu->kind)}, w->cpu->addr.raw(), w->cpu->a, w->cpu->b})
        h.add(v);
  }
  hash_rpc(&h);
  if (spec_.logical_clock) h.add(clock_);
  if (!failure_.empty()) h.add(0xfa11ull);  // never merged with a state that did not fail
  if (spec_.ghost_hash) h.add(spec_.ghost_hash());
  return h;
}

bool Machine::all_finished() const {
  for (const auto& w : workers_)
    if (w->wait != XWorker::Wait::kDone) return false;
  return true;
}

}  // namespace lw::explore::detail
