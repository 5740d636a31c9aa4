// Work requests in the simulator: scheduling them by the contract's ordering
// rules when posted, their effects on memory when their events fire, and the
// event loop that fires them (here, so that the handlers inline into it).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "atomic_effect.h"
#include "sim_impl.h"

namespace lw {

using sim::EventKind;
using sim::kAllLines;
using sim::Op;

namespace {
// write_payload_late: a kWriteLine event whose arg carries this bit is the
// NIC's DMA read of that line of the source, not its landing. Line indices
// stay below 2^18 (kMaxTransferBytes / 64), so no index and not kAllLines
// is confused with it.
constexpr uint32_t kFetchLine = uint32_t{1} << 31;
static_assert(kMaxTransferBytes / kCacheLine < kFetchLine, "line indices fit below the fetch bit");
static_assert(kMaxTransferBytes / kCacheLine < sim::kPrefixLines && sim::kPrefixLines < kFetchLine,
              "line indices fit below the crash prefix bit");

uint64_t first_line(const WorkRequest& wr) { return line_of(wr.remote.offset()); }
uint32_t line_count(const WorkRequest& wr) {
  uint64_t len = is_atomic(wr.opcode) ? 8 : wr.length;
  return static_cast<uint32_t>(line_of(wr.remote.offset() + len - 1) - first_line(wr) + 1);
}
// The part of the request's byte range that falls in its `i`-th line.
void line_range(const WorkRequest& wr, uint32_t i, uint64_t* lo, uint64_t* hi) {
  uint64_t begin = wr.remote.offset(), end = begin + wr.length;
  uint64_t line_lo = (first_line(wr) + i) * kCacheLine;
  *lo = std::max(begin, line_lo);
  *hi = std::min(end, line_lo + kCacheLine);
}
// A copy of `n` bytes; 8 (a word, the commonest verb) is one load and store
// instead of a library call.
inline void copy_bytes(void* dst, const void* src, size_t n) {
  if (n == kWord) std::memcpy(dst, src, kWord); else std::memcpy(dst, src, n);
}
// What a verb's record shows: an atomic's old value, the first 8 bytes a READ
// fetched or a WRITE carried (little-endian, fewer for shorter transfers).
uint64_t seen_value(const Op& op) {
  const WorkRequest& wr = *op.wr;
  if (is_atomic(wr.opcode)) return wr.old_value;
  if (wr.status != Status::kOk) return 0;
  uint64_t v = 0;
  const size_t n = std::min<size_t>(wr.length, sizeof v);
  const void* src = nullptr;
  if (wr.opcode == Opcode::kRead) src = wr.local;
  // A WRITE's source may be gone (unsignaled posts): use the NIC's copy.
  if (wr.opcode == Opcode::kWrite && op.payload.size() >= n) src = op.payload.data();
  if (src == nullptr) return 0;
  copy_bytes(&v, src, n);
  return v;
}
}  // namespace

void SimBackend::Impl::prefetch_next() {
  // With thousands of requests in flight, the ops of the coming events and
  // the node memory they touch are rarely in cache. A line takes longer to
  // arrive than an event takes to run, so the prefetches run ahead: the op
  // six events ahead; three ahead (its op fetched three pops ago) its memory
  // and work request; the next event's as before. At 32 compute nodes x 64
  // workers this took 6% off each verb (six and three beat two and one, and
  // twelve and six); one node's cost did not move. Since the sixteenth round
  // also a completion's waiter three ahead and its coroutine frame, which
  // the resume reads first, for the next (3-5% off smart-fig7 and fig8), and
  // a waiting load's word and thread three ahead.
  // A small agenda's ops and memory stay in cache: nothing to gain there.
  if (events.size() < 512) return;
  sim::Event next;
  if (!events.peek_near(&next)) return;
  constexpr uint32_t kOpAhead = 6, kMemoryAhead = 3;
  void* ahead[kOpAhead];
  EventKind kinds[kOpAhead];
  const uint32_t n = events.peek_after_next(kOpAhead, ahead, kinds);
  if (n == kOpAhead) __builtin_prefetch(ahead[kOpAhead - 1]);
  if (n >= kMemoryAhead) {
    switch (kinds[kMemoryAhead - 1]) {
      case EventKind::kReadLines: case EventKind::kWriteLine:
      case EventKind::kAtomicRead: case EventKind::kAtomicWriteBack: {
        const Op* op = static_cast<const Op*>(ahead[kMemoryAhead - 1]);
        __builtin_prefetch(op->target);
        __builtin_prefetch(op->wr);
        break;
      }
      case EventKind::kComplete: {
        // Its waiter, whose frame the next look reaches through it.
        const Op* op = static_cast<const Op*>(ahead[kMemoryAhead - 1]);
        if (op->waiter != nullptr) __builtin_prefetch(op->waiter);
        break;
      }
      case EventKind::kCpuAccess: {
        // A waiting load reads its word and checks its thread.
        const auto* c = static_cast<const sim::Coroutine*>(ahead[kMemoryAhead - 1]);
        if (c->wait.word != nullptr) __builtin_prefetch(c->wait.word);
        __builtin_prefetch(c->thread);
        break;
      }
      default: break;
    }
  }
  switch (next.kind) {
    case EventKind::kReadLines:
    case EventKind::kWriteLine:
    case EventKind::kAtomicRead:
    case EventKind::kAtomicWriteBack: {
      const Op* op = static_cast<const Op*>(next.target);
      __builtin_prefetch(op->wr);
      if (op->target != nullptr) __builtin_prefetch(op->target);
      break;
    }
    case EventKind::kComplete: {
      const Op* op = static_cast<const Op*>(next.target);
      __builtin_prefetch(op->qp);
      if (op->waiter != nullptr) __builtin_prefetch(op->waiter->resume_point.address());
      break;
    }
    default:
      __builtin_prefetch(next.target);
      break;
  }
}

bool SimBackend::Impl::submit(sim::Coroutine* c, WorkRequest* wrs, uint32_t n,
                              std::coroutine_handle<> waiter) {
  if (!post_requests(c, wrs, n, static_cast<bool>(waiter)) || !waiter) return false;
  LW_CHECK(c->awaiting == 0);
  c->awaiting = 1;
  c->resume_point = waiter;
  if (c == crash_victim) [[unlikely]] note_victim_post(c);
  return true;
}

bool SimBackend::Impl::submit_all(sim::Coroutine* c, Batch* const* batches, uint32_t k,
                                  std::coroutine_handle<> waiter) {
  LW_CHECK(waiter && c->awaiting == 0);
  uint32_t posted = 0;
  for (uint32_t b = 0; b < k; ++b) posted += post_requests(c, batches[b]->data(), batches[b]->size(), true);
  if (posted == 0) return false;
  c->awaiting = posted;
  c->resume_point = waiter;
  if (c == crash_victim) [[unlikely]] note_victim_post(c);
  return true;
}

bool SimBackend::Impl::post_requests(sim::Coroutine* c, WorkRequest* wrs, uint32_t n, bool awaited) {
  LW_CHECK(n > 0 && c->thread->running);
  const NodeId node = wrs[0].remote.node();
  if (node >= memory.size()) {
    for (uint32_t i = 0; i < n; ++i) wrs[i].status = Status::kWrongNode;
    return false;
  }
  // Usually the target node's QP; a switch version register rides its
  // tuple's storage QP (switch_program.h).
  const NodeId qp_node = qp_node_for(node, wrs[0]);
  sim::QueuePair& qp = c->thread->qps[qp_node];
  if (qp.outstanding + n > cfg.queue_depth) {
    for (uint32_t i = 0; i < n; ++i) wrs[i].status = Status::kQueueFull;
    return false;
  }
  sim::Thread* t = c->thread;
  t->route.memory_node = qp_node;
  timing->set_horizon(now);
  // The batch's WQEs are written and one doorbell rung before the NIC sees any.
  t->cur = timed([&](auto& m) { return m.post_batch(t->route, wrs, n, t->cur); });
  const Nanos posted = t->cur;
  for (uint32_t i = 0; i < n; ++i) {
    // The first request chose the node and the queue pair.
    LW_CHECK_MSG(i == 0 || wrs[i].remote.node() == node, "one submission goes to one memory node");
    LW_CHECK_MSG(i == 0 || qp_node_for(node, wrs[i]) == qp_node, "one submission uses one queue pair");
    Op* op = new_op();
    op->id = next_op_id++;
    op->qp = &qp;
    if (awaited) {
      op->wr = &wrs[i];
    } else {
      op->own = wrs[i];
      op->wr = &op->own;
    }
    op->wr->status = Status::kOk;
    op->wr->old_value = 0;
    if (op->wr->opcode == Opcode::kWrite && op->wr->length <= kMaxTransferBytes &&
        op->wr->local != nullptr) {
      // The source as it is at post. With write_payload_late each line is
      // read again when the NIC fetches it (on_write_fetch); the copy is
      // what a changed buffer is compared against.
      op->payload.assign(static_cast<const std::byte*>(op->wr->local),
                         static_cast<const std::byte*>(op->wr->local) + op->wr->length);
    }
    op->waiter = (awaited && i == n - 1) ? c : nullptr;
    op->route = t->route;
    op->poster = c;
    op->posted = posted;
    schedule(op, posted);
  }
  return true;
}

void SimBackend::Impl::schedule(Op* op, Nanos posted) {
  WorkRequest& wr = *op->wr;
  sim::QueuePair& qp = *op->qp;
  sim::MemoryNode& m = *memory[wr.remote.node()];
  if (m.kind != sim::NodeKind::kMemory) {
    schedule_on_device(op, posted);
    return;
  }
  const bool watched = cfg.network.programmable_switch.optimistic_latching();
  if (watched) switch_forwarded(op);
  ++verbs;
  ++qp.outstanding;
  const Nanos request = timed([&](auto& m) { return m.request_path(op->route, wr, posted, rng); });
  const Nanos arrive = std::max(request, qp.last_arrival);
  qp.last_arrival = arrive;

  Status s = m.mem.check(wr);
  if (s == Status::kOk && wr.opcode == Opcode::kWrite && wr.local == nullptr) s = Status::kBadLength;
  if (s == Status::kOk && wr.opcode == Opcode::kRead && wr.local == nullptr) s = Status::kBadLength;
  wr.status = s;

  Nanos done = arrive;
  if (s == Status::kOk) {
    const bool device = m.mem.is_device(wr.remote.offset());
    // The access happens at a later event, after hundreds of others: start
    // pulling its first line into the cache now (host timing only).
    op->target = m.mem.bytes(wr.remote.offset());
    __builtin_prefetch(op->target);
    op->device = device;
    const uint32_t lines = line_count(wr);
    // Ordering constrains when effects happen, not how requests pipeline: an
    // ordered request may start its access early, but its effect (a READ's
    // fetch, a WRITE's landing) is held back behind the effects it must
    // follow. An atomic is a barrier: later requests start after it.
    Nanos e = std::max(arrive, qp.atomics_done);
    if (wr.fence) e = std::max(e, qp.reads_done);
    if (wr.opcode == Opcode::kRead) {
      // The lines fetched wait in the NIC until the response reaches the
      // requester (on_complete): RC delivers READ responses in posting order
      // per QP (IBA Vol 1, ch. 9.5, transaction ordering), whatever order
      // the responder fetched them in.
      op->payload.resize(wr.length);
      op->staged_read = true;
      Nanos floor = qp.writes_done + 1;  // nothing overtakes a WRITE or atomic
      if (!sem.reads_unordered) floor = std::max(floor, qp.reads_done + 1);
      const AccessTimes at = timed([&](auto& m) { return m.access(op->route, wr, device, e); });
      // The model's fetch interval, or the contract's window when it has none.
      const Nanos spread = at.end > at.begin ? at.end - at.begin : sem.read_spread_ns;
      const Nanos base = at.end > at.begin ? at.begin : at.end;
      Nanos first_fetch = ~Nanos{0};
      // Effects follow sem; draws and delays follow tsem (hold_timing): a
      // held switch's READ fetches in order, at `fetched`, and answers at
      // `done` as late as the relaxation would have made it.
      Nanos fetched = 0;
      if (tsem.read_lines_unordered && lines > 1) {
        // Each line is fetched on its own, at its own instant.
        const bool each = sem.read_lines_unordered;
        std::vector<Nanos> line_times;  // for the relaxation log
        for (uint32_t i = 0; i < lines; ++i) {
          Nanos when = std::max(base + draw(spread + 1), floor);
          if (each) events.push(when, EventKind::kReadLines, op, i);
          done = std::max(done, when);
          first_fetch = std::min(first_fetch, when);
          if (log && each) line_times.push_back(when);
        }
        if (log && each) log_line_order(op, line_times);
        fetched = done;
        if (!each) {
          const bool lag = sem.read_overtaken || sem.reads_unordered;
          fetched = lag ? done : std::max(at.end, floor);
          events.push(fetched, EventKind::kReadLines, op, kAllLines);
          first_fetch = fetched;
        }
      } else {
        // One snapshot; it may lag so that later requests overtake it.
        const bool lag = sem.read_overtaken || sem.reads_unordered;
        const bool timed_lag = tsem.read_overtaken || tsem.reads_unordered;
        Nanos when = std::max(at.end + (timed_lag ? draw(sem.read_spread_ns + 1) : 0), floor);
        fetched = lag ? when : std::max(at.end, floor);
        events.push(fetched, EventKind::kReadLines, op, kAllLines);
        done = when;
        first_fetch = fetched;
      }
      if (log) log_read_order(op, first_fetch, fetched);
      // Later requests are ordered after the fetch, not the answer.
      qp.reads_done = std::max(qp.reads_done, fetched);
    } else {
      Nanos floor = qp.writes_done + 1;  // WRITEs land in posting order
      if (!sem.read_overtaken) floor = std::max(floor, qp.reads_done + 1);
      if (wr.opcode == Opcode::kWrite) {
        const AccessTimes at = timed([&](auto& m) { return m.access(op->route, wr, device, e); });
        const Nanos first = std::max(at.begin, floor);
        const Nanos last = std::max(at.end, first);
        // write_payload_late: the NIC reads each line of the source at a
        // drawn instant, in address order, no later than the line lands.
        Nanos fetch = op->posted;
        // Under the §5.5 program the switch rewrites a WRITE's header in
        // flight (on_switch_request): its source is read at post.
        const bool copied = !watched && op->payload.size() == wr.length;
        const bool late = sem.write_payload_late && copied;
        const bool timed_late = tsem.write_payload_late && copied;
        auto fetch_line = [&](uint32_t i, Nanos lands) {
          LW_CHECK(lands >= fetch);
          fetch += draw(lands - fetch + 1);
          if (late) events.push(fetch, EventKind::kWriteLine, op, kFetchLine | i);  // before its landing
        };
        if (tsem.write_lines_staggered && lines > 1) {
          // Lines land one by one in increasing address order (held: all
          // of them at the last line's instant).
          const bool each = sem.write_lines_staggered;
          const Nanos step = last > first ? (last - first) / lines : 0;
          Nanos when = first;
          for (uint32_t i = 0; i < lines; ++i) {
            if (i > 0) when += 1 + (step ? draw(2 * step) : draw(sem.write_line_gap_ns));
            if (timed_late) fetch_line(i, when);
            if (each) events.push(when, EventKind::kWriteLine, op, i);
          }
          if (!each) {
            // A held payload fetch is the copy made at post.
            events.push(when, EventKind::kWriteLine, op, kAllLines);
          }
          done = when;
          if (log) log_overtaking(op, each ? first : when);
        } else {
          for (uint32_t i = 0; timed_late && i < lines; ++i) fetch_line(i, last);
          events.push(last, EventKind::kWriteLine, op, kAllLines);
          done = last;
          if (log) log_overtaking(op, last);
        }
      } else {
        // The atomic reads after everything before it on the QP has acted.
        schedule_atomic(m, op, device, std::max(e, floor));
        if (log) log_overtaking(op, op->access.begin);
        done = op->access.end;
        qp.atomics_done = std::max(qp.atomics_done, done);
      }
      qp.writes_done = std::max(qp.writes_done, done);
    }
  }
  const Nanos response = timed([&](auto& m) { return m.response_path(op->route, wr, done, rng); });
  Nanos completion = std::max(response, qp.last_completion + 1);
  if (watched && s == Status::kOk) completion = switch_watch(op, posted, arrive, done, completion);
  qp.last_completion = completion;
  events.push(completion, EventKind::kComplete, op);
}

void SimBackend::Impl::schedule_atomic(sim::MemoryNode& m, Op* op, bool device, Nanos e) {
  const WorkRequest& wr = *op->wr;
  AccessTimes at = timed([&](auto& m) { return m.atomic(op->route, wr, device, e); });
  // An entry of atomic_words that ended by now (kept by release_unit_entry
  // or left for a sweep) must never delay this one.
  LW_CHECK(at.begin >= now);
  op->booked = at;
  // Whatever the model does, atomics on one word never overlap (the contract:
  // NIC atomics are atomic against each other).
  const uint64_t word = wr.remote.offset();
  sim::AtomicWord* busy = m.atomic_words.find(word);
  if (busy != nullptr && busy->busy_until > at.begin) {
    const Nanos shift = busy->busy_until - at.begin;
    at.begin += shift;
    at.end += shift;
  }
  // The read and the write-back are separate PCIe transactions; on device
  // memory they are one step on the NIC. The simple model has no window of
  // its own, so the contract's window stands in for it.
  const bool split = !device && (tsem.atomic_loses_write || tsem.atomic_loses_cpu || tsem.failed_cas_writes_back);
  if (at.end == at.begin && split) at.end = at.begin + 1 + draw(sem.atomic_window_ns);
  op->access = at;
  op->has_window = at.end > at.begin;
  events.push(at.begin, EventKind::kAtomicRead, op);
  if (op->has_window) events.push(at.end, EventKind::kAtomicWriteBack, op);
  // `busy` is still valid: nothing touched the map since the lookup.
  if (busy != nullptr) {
    busy->busy_until = at.end;
    return;
  }
  m.atomic_words.insert_absent(word, sim::AtomicWord{at.end, nullptr});
  if (m.atomic_words.size() > m.atomic_sweep_at) {
    // In a large map entries leave with their atomics (release_unit_entry);
    // this bounds it should any stay behind. Entries that ended by now delay nobody
    // (every atomic booked from now on starts at or after now): drop them,
    // and sweep again when the map has doubled.
    m.atomic_words.erase_if(
        [this](const sim::AtomicWord& a) { return a.busy_until <= now && a.open == nullptr; });
    m.atomic_sweep_at = std::max<size_t>(1024, 2 * m.atomic_words.size());
  }
}

void SimBackend::Impl::on_read_lines(Op* op, uint32_t line) {
  const WorkRequest& wr = *op->wr;
  sim::MemoryNode& m = *memory[wr.remote.node()];
  // Into the staged response; on_complete delivers it.
  LW_CHECK(op->staged_read && op->payload.size() == wr.length);
  LW_CHECK(op->target == m.mem.bytes(wr.remote.offset()));
  std::byte* dst = op->payload.data();
  if (line == kAllLines) {
    if (log && !m.partial_writes.empty())
      log_partial_fetch(m, op, wr.remote.offset(), wr.remote.offset() + wr.length);
    copy_bytes(dst, op->target, wr.length);
    return;
  }
  uint64_t lo, hi;
  line_range(wr, line, &lo, &hi);
  if (log && !m.partial_writes.empty()) log_partial_fetch(m, op, lo, hi);
  const uint64_t at = lo - wr.remote.offset();
  std::memcpy(dst + at, op->target + at, hi - lo);
}

void SimBackend::Impl::on_write_line(Op* op, uint32_t line) {
  if (line != kAllLines && (line & kFetchLine)) {
    on_write_fetch(op, line & ~kFetchLine);
    return;
  }
  const WorkRequest& wr = *op->wr;
  sim::MemoryNode& m = *memory[wr.remote.node()];
  uint64_t lo = wr.remote.offset(), hi = lo + wr.length;
  if (line != kAllLines) {
    if (line & sim::kPrefixLines) [[unlikely]] {
      // A crash cut this WRITE (sim_crash.cpp): only its first lines land.
      hi = std::min(hi, (first_line(wr) + (line & ~sim::kPrefixLines)) * kCacheLine);
      line = kAllLines;  // one landing, as far as the log and atomics are concerned
    } else {
      line_range(wr, line, &lo, &hi);
    }
  }
  LW_CHECK(op->target == m.mem.bytes(wr.remote.offset()));
  const uint64_t at = lo - wr.remote.offset();
  copy_bytes(op->target + at, op->payload.data() + at, hi - lo);
  m.mem.note_written(lo, hi);
  if (log && line != kAllLines) log_write_line(m, op, line);
  // Most stores meet no open atomic: skip building the record.
  if (m.open_windows != 0)
    note_store(m, lo, hi, sem.atomic_loses_write, {op->who(), "WRITE", wr.remote, wr.length, now});
}

void SimBackend::Impl::on_write_fetch(Op* op, uint32_t line) {
  // The source must still be alive and, on real NICs, unchanged: whatever is
  // there now is what the NIC sends.
  const WorkRequest& wr = *op->wr;
  uint64_t lo, hi;
  line_range(wr, line, &lo, &hi);
  const uint64_t at = lo - wr.remote.offset();
  const std::byte* src = static_cast<const std::byte*>(wr.local) + at;
  if (log && std::memcmp(op->payload.data() + at, src, hi - lo) != 0)
    log_payload_late(op, line, at, at + (hi - lo));
  std::memcpy(op->payload.data() + at, src, hi - lo);
}

void SimBackend::Impl::note_store(sim::MemoryNode& m, uint64_t lo, uint64_t hi, bool losable,
                                  const sim::StoreSource& src) {
  // A losable store needs no bookkeeping unless the log wants to name it.
  if (m.open_windows == 0 || (losable && !log)) return;
  for (uint64_t w = lo / kWord * kWord; w < hi; w += kWord) {
    const sim::AtomicWord* a = m.atomic_words.find(w);
    if (a == nullptr || a->open == nullptr) continue;
    sim::AtomicWindow* win = &a->open->window;
    if (losable || win->failed_cas) {
      if (!log) continue;
      win->lost.push_back(src);
    } else {
      // Stores before it are overwritten by it, not lost to the atomic.
      win->protected_store_seen = true;
      win->lost.clear();
    }
  }
}

void SimBackend::Impl::on_atomic_read(Op* op) {
  uint64_t* word = reinterpret_cast<uint64_t*>(op->target);
  WorkRequest& wr = *op->wr;
  sim::MemoryNode& m = *memory[wr.remote.node()];
  LW_CHECK(word == m.mem.word(wr.remote.offset()));
  const uint64_t old = *word;
  wr.old_value = old;
  const sim::AtomicEffect effect = sim::atomic_effect(sem, wr, old, &op->atomic_new);
  op->atomic_writes = effect.writes;
  if (!op->has_window) {
    if (op->atomic_writes) {
      *word = op->atomic_new;
      m.mem.note_written(wr.remote.offset(), wr.remote.offset() + kWord);
    }
    release_atomic_unit(m, wr.remote.offset(), op);
    return;
  }
  if (!op->atomic_writes) {
    // A failed CAS writes nothing back (unless failed_cas_writes_back); it is
    // complete at its read. The NIC saves the second PCIe transaction
    // (Sherman §3.2.2).
    op->has_window = false;
    timing->set_horizon(now);
    // The model gives back what it booked: the access may have been moved
    // past another atomic on the word since (bookings are the model's own).
    timing->skip_write_back(op->route, wr, op->device, op->booked);
    release_atomic_unit(m, wr.remote.offset(), op);
    return;
  }
  op->window.protected_store_seen = false;
  op->window.failed_cas = effect.failed_cas;
  op->window.lost.clear();
  // schedule_atomic made the entry, and this atomic has not released it.
  sim::AtomicWord* a = m.atomic_words.find(wr.remote.offset());
  LW_CHECK(a != nullptr);
  LW_CHECK_MSG(a->open == nullptr, "two NIC atomics overlapped on one word");
  a->open = op;
  ++m.open_windows;
}

void SimBackend::Impl::on_atomic_write_back(Op* op) {
  if (!op->has_window) return;  // a failed CAS closed at its read
  WorkRequest& wr = *op->wr;
  sim::MemoryNode& m = *memory[wr.remote.node()];
  const uint64_t off = wr.remote.offset();
  uint64_t* word = reinterpret_cast<uint64_t*>(op->target);
  LW_CHECK(word == m.mem.word(off));
  sim::AtomicWord* a = m.atomic_words.find(off);
  LW_CHECK(a != nullptr && a->open == op);
  sim::AtomicWindow* win = &op->window;
  if (win->protected_store_seen) {
    // Linearise the atomic after the store it may not lose.
    const uint64_t cur = *word;
    wr.old_value = cur;
    op->atomic_writes = sim::atomic_effect(sem, wr, cur, &op->atomic_new).writes;
  }
  // FAA always writes back; CAS when it succeeded (or, under
  // failed_cas_writes_back, always). Whatever landed on the word since the
  // read is overwritten: that is the lost update.
  if (op->atomic_writes) {
    *word = op->atomic_new;
    m.mem.note_written(off, off + kWord);
  }
  if (log && op->atomic_writes && !win->lost.empty()) log_lost_stores(op, win->lost);
  a->open = nullptr;
  --m.open_windows;
  release_unit_entry(m, a, op);
}

void SimBackend::Impl::release_atomic_unit(sim::MemoryNode& m, uint64_t word, const Op* op) {
  sim::AtomicWord* a = m.atomic_words.find(word);
  if (a != nullptr) release_unit_entry(m, a, op);
}

void SimBackend::Impl::release_unit_entry(sim::MemoryNode& m, sim::AtomicWord* a, const Op* op) {
  // Only the last atomic booked on the word ends its reservation; one booked
  // behind it keeps the entry and releases it in turn. What the last
  // reserved ends now (a failed CAS gives back the rest), and an entry that
  // ends by now delays no later atomic (they all start at or after now).
  if (a->busy_until != op->access.end) return;
  LW_CHECK(a->open == nullptr);
  if (m.atomic_words.size() <= kLingeringWords) {
    // A few words, used again and again (locks, counters): the entry stays,
    // which saves an erase and an insert per atomic.
    a->busy_until = now;
    return;
  }
  // Many words (atomics spread over a table): the entry leaves, so the map
  // holds the words with an atomic in flight and the sweep in
  // schedule_atomic is a bound, not a routine.
  m.atomic_words.erase_found(a);
}

// Liveness bookkeeping (sim_tracking.h): the poster's last completions. It
// only reads the simulation.
void SimBackend::Impl::note_completion(Op* op) {
  sim::WorkerTrack& t = op->poster->track;
  sim::SeenVerb& v = t.seen[t.count++ % sim::WorkerTrack::kKeep];
  const WorkRequest& wr = *op->wr;
  v.opcode = wr.opcode;
  v.status = wr.status;
  v.length = sim::verb_length(wr);
  v.addr = wr.remote;
  v.value = seen_value(*op);
  v.at = now;
  t.last_completion = now;
  if (verb_trace != nullptr) [[unlikely]] trace_completion(op, v.value);
}

void SimBackend::Impl::on_complete(Op* op) {
  LW_CHECK(op->qp->outstanding > 0);
  --op->qp->outstanding;
  timed([&](auto& m) { m.completed(op->route); });
  if (op->staged_read) {
    // The READ response arrives: only now does the requester see the data.
    copy_bytes(op->wr->local, op->payload.data(), op->wr->length);
  }
  note_completion(op);
  sim::Coroutine* waiter = op->waiter;
  free_op(op);
  if (waiter) {
    // The last of the submissions it awaits (Worker::execute_all) resumes it.
    LW_CHECK(waiter->awaiting > 0);
    if (--waiter->awaiting == 0) make_ready(waiter, waiter->resume_point);
  }
}

void SimBackend::Impl::on_cpu_access(sim::Coroutine* c) {
  CpuAccess& op = *c->pending_cpu;
  c->pending_cpu = nullptr;
  sim::MemoryNode& m = *memory[op.addr.node()];
  const uint64_t off = op.addr.offset();
  uint64_t* word = m.mem.word(off);
  const uint64_t old = *word;
  op.old_value = old;
  op.status = Status::kOk;
  bool stores = false;
  const char* kind = "CPU store";
  switch (op.kind) {
    case CpuAccess::Kind::kLoad: break;
    case CpuAccess::Kind::kStore: *word = op.a; stores = true; break;
    case CpuAccess::Kind::kCas:
      kind = "CPU CAS";
      if (old == op.a) {
        *word = op.b;
        stores = true;
      }
      break;
    case CpuAccess::Kind::kFaa: kind = "CPU FAA"; *word = old + op.a; stores = true; break;
  }
  if (stores) {
    m.mem.note_written(off, off + kWord);
    note_store(m, off, off + kWord, sem.atomic_loses_cpu,
               {c->worker.placement(), kind, op.addr, 8, now});
  }
  make_ready(c, c->resume_point);
}

// Here, beside the handlers it calls, so they inline into it.
void SimBackend::Impl::dispatch(const sim::Event& e) {
  prefetch_next();
  if (verb_trace != nullptr) [[unlikely]] note_access(e);
  switch (e.kind) {
    case EventKind::kReadLines: on_read_lines(static_cast<sim::Op*>(e.target), e.arg); break;
    case EventKind::kWriteLine: on_write_line(static_cast<sim::Op*>(e.target), e.arg); break;
    case EventKind::kAtomicRead: on_atomic_read(static_cast<sim::Op*>(e.target)); break;
    case EventKind::kAtomicWriteBack: on_atomic_write_back(static_cast<sim::Op*>(e.target)); break;
    case EventKind::kComplete: on_complete(static_cast<sim::Op*>(e.target)); break;
    case EventKind::kCpuAccess:
      if (e.arg == 0) {
        on_cpu_access(static_cast<sim::Coroutine*>(e.target));
      } else {
        on_cpu_poll(static_cast<sim::Coroutine*>(e.target));
      }
      break;
    case EventKind::kDeviceOp: on_device_op(static_cast<sim::Op*>(e.target)); break;
    case EventKind::kSwitchRequest: on_switch_request(static_cast<sim::Op*>(e.target)); break;
    case EventKind::kSwitchResponse: on_switch_response(static_cast<sim::Op*>(e.target)); break;
    case EventKind::kSwitchDuplicate: on_switch_duplicate(e.arg); break;
    case EventKind::kRpcArrive: on_rpc_arrive(static_cast<sim::RpcMsg*>(e.target)); break;
    case EventKind::kRpcServe: on_rpc_serve(static_cast<sim::RpcMsg*>(e.target)); break;
    case EventKind::kRpcDone: on_rpc_done(static_cast<sim::RpcMsg*>(e.target)); break;
    case EventKind::kRpcReply: on_rpc_reply(static_cast<sim::RpcMsg*>(e.target)); break;
    case EventKind::kWake: {
      auto* c = static_cast<sim::Coroutine*>(e.target);
      make_ready(c, c->resume_point);
      break;
    }
    case EventKind::kThreadRun: {
      auto* t = static_cast<sim::Thread*>(e.target);
      t->run_scheduled = false;
      LW_CHECK(!t->ready.empty());
      sim::Coroutine* c = t->ready.front();
      t->ready.pop_front();
      run_now(c);
      if (!t->ready.empty()) {
        t->run_scheduled = true;
        events.push(std::max(now, t->cpu_free_at), EventKind::kThreadRun, t);
      }
      break;
    }
  }
}

// The event loop, here so that dispatch and its handlers inline into it (a
// call per event saved and restored a dozen registers).
uint64_t SimBackend::Impl::run_events(std::chrono::steady_clock::time_point wall_start,
                                      std::string* exhausted, std::string* stalled) {
  uint64_t processed = 0;
  // Progress on stderr for long runs: the wall clock is only read here, every
  // 2^16 events, to decide when to print; no simulated decision depends on it.
  auto next_progress = wall_start + std::chrono::seconds(cfg.budget.progress_seconds);
  // The event budget and the progress check share one test per event: the
  // count at which either is next due.
  constexpr uint64_t kProgressEvery = uint64_t{1} << 16;
  uint64_t next_look = std::min(event_limit, kProgressEvery);
  while (!events.empty()) {
    if (processed >= next_look) [[unlikely]] {
      if (processed >= event_limit) {
        std::ostringstream os;
        os << "the run reached its event budget of " << event_limit << " events at virtual time "
           << now << " ns with " << finished << " of " << coroutines.size()
           << " workers finished (a livelock, or a workload too large for the budget): raise "
           << "--max-events or \"budget\": {\"max_events\"} in the config, or shrink the workload "
           << "(--ops, --threads, --coroutines, --compute-nodes)";
        *exhausted = os.str();
        break;
      }
      next_look = std::min(event_limit, processed + kProgressEvery);
      if (cfg.budget.progress_seconds != 0) {
        auto wall = std::chrono::steady_clock::now();
        if (wall >= next_progress) {
          next_progress = wall + std::chrono::seconds(cfg.budget.progress_seconds);
          std::fprintf(stderr,
                       "latchwork sim: %llu events (budget %llu), virtual time %.3f ms, %u of %zu "
                       "workers finished, %.0f s wall\n",
                       static_cast<unsigned long long>(processed),
                       static_cast<unsigned long long>(event_limit),
                       static_cast<double>(now) / 1e6, static_cast<unsigned>(finished),
                       coroutines.size(), std::chrono::duration<double>(wall - wall_start).count());
        }
      }
    }
    const sim::Event e = events.pop();
    // Events after the last worker finished (late duplicates, timers) still
    // run: the virtual-time budget bounds the workers.
    if (e.time > cfg.budget.max_virtual_ns && finished < coroutines.size()) [[unlikely]] {
      std::ostringstream os;
      os << "the run reached its virtual-time budget of " << cfg.budget.max_virtual_ns
         << " ns after " << processed << " events with " << finished << " of "
         << coroutines.size() << " workers finished: raise "
         << "--max-virtual-ms or \"budget\": {\"max_virtual_ns\"} in the config, or shrink "
         << "the workload or the timing fields";
      *exhausted = os.str();
      events.push(e.time, e.kind, e.target, e.arg);  // run() frees it with the rest
      break;
    }
    // The watchdog: one test per event while set. `*watch_progress` may run
    // ahead of the clock (a coroutine's CPU time), hence the first test.
    if (watch_progress != nullptr && e.time > *watch_progress &&
        e.time - *watch_progress > watch_span && finished < coroutines.size()) [[unlikely]] {
      std::ostringstream os;
      os << "stalled: no progress for more than " << watch_span << " ns (the watchdog's span; "
         << "last progress at " << *watch_progress << " ns, next event at " << e.time
         << " ns) with " << finished << " of " << coroutines.size()
         << " workers finished: a lost wake-up or a livelock";
      *stalled = os.str();
      events.push(e.time, e.kind, e.target, e.arg);  // run() frees it with the rest
      break;
    }
    LW_CHECK(e.time >= now);
    now = e.time;
    // One mix per event: its time, spread by an odd multiplier, with its
    // push order and kind (two mixes were 2% of a simple-model verb).
    trace.mix((e.time * 0x9e3779b97f4a7c15ull) ^ ((e.seq << 4) | static_cast<uint64_t>(e.kind)));
    dispatch(e);
    ++processed;
  }
  return processed;
}

}  // namespace lw
