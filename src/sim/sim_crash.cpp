// Crash injection (latchwork/sim/crash.h): the victim stops at its chosen
// submission, with its node when asked; the dead workers' requests resolve
// at a drawn cut in posting order; the agenda loses what they would still
// have done. Runs once per run, off the hot path (one pointer test per
// awaited submission while a victim is set).
#include <algorithm>
#include <unordered_map>

#include "sim_impl.h"

namespace lw {

using sim::Coroutine;
using sim::Event;
using sim::EventKind;
using sim::Op;

namespace {

uint32_t crash_lines_of(const WorkRequest& wr) {
  const uint64_t len = is_atomic(wr.opcode) ? kWord : wr.length;
  const uint64_t lo = wr.remote.offset();
  return static_cast<uint32_t>(line_of(lo + len - 1) - line_of(lo) + 1);
}

// A kWriteLine event that lands lines (not write_payload_late's source fetch,
// sim_ops.cpp's top bit).
bool crash_lands(const Event& e) {
  return e.kind == EventKind::kWriteLine && (e.arg == sim::kAllLines || (e.arg >> 31) == 0);
}

// A dead worker's request whose effect on memory is still to come.
struct CutVerb {
  Op* op = nullptr;
  uint32_t lines = 1;
  uint32_t pending_lines = 0;  // line landings still queued (kAllLines: every line)
  bool atomic_read_pending = false;
  uint32_t keep = 0;  // lines (atomics: 0 or 1) the cut lets act
};

}  // namespace

void SimBackend::Impl::note_victim_post(Coroutine* c) {
  if (++victim_posts == crash_spec.at_submission) crash_now(c);
}

void SimBackend::Impl::crash_now(Coroutine* victim) {
  crash_victim = nullptr;
  CrashRecord& rec = crash_record;
  rec.happened = true;
  rec.at = victim->thread->cur;
  const Placement vp = victim->worker.placement();
  for (auto& co : coroutines) {
    const Placement& p = co->worker.placement();
    const bool dies = co.get() == victim || (crash_spec.whole_node && !p.on_memory_node() && p.node == vp.node);
    if (!dies || co->finished) continue;
    co->crashed = true;
    co->finished = true;  // the run ends when the survivors do
    ++finished;
    rec.stopped.push_back(p);
  }
  // Dead coroutines leave the ready queues; a thread left with none to run
  // loses its pending run event.
  std::vector<const sim::Thread*> idle;
  for (auto& t : threads) {
    std::erase_if(t->ready, [](const Coroutine* c) { return c->crashed; });
    if (t->ready.empty() && t->run_scheduled) {
      t->run_scheduled = false;
      idle.push_back(t.get());
    }
  }
  std::vector<Event> all = events.take_all();
  // The dead workers' requests with effects to come, found on the agenda.
  std::unordered_map<const Op*, CutVerb> pending;
  for (const Event& e : all) {
    if (!(crash_lands(e) || e.kind == EventKind::kAtomicRead || e.kind == EventKind::kComplete)) continue;
    Op* op = static_cast<Op*>(e.target);
    if (!op->poster->crashed) continue;
    if (e.kind == EventKind::kComplete) {
      op->waiter = nullptr;  // nobody is resumed by it
      continue;
    }
    CutVerb& p = pending[op];
    p.op = op;
    p.lines = crash_lines_of(*op->wr);
    if (e.kind == EventKind::kAtomicRead) p.atomic_read_pending = true;
    else p.pending_lines += e.arg == sim::kAllLines ? p.lines : 1;
  }
  std::vector<CutVerb*> order;
  for (auto& [op, p] : pending) order.push_back(&p);
  std::sort(order.begin(), order.end(), [](const CutVerb* a, const CutVerb* b) { return a->op->id < b->op->id; });
  // The cut: before it whole, at it whole / a prefix / nothing, after it nothing.
  const uint64_t cut = order.empty() ? 0 : draw(order.size() + 1);
  for (size_t i = 0; i < order.size(); ++i) {
    CutVerb& p = *order[i];
    const uint32_t whole = p.atomic_read_pending ? 1 : p.pending_lines;
    if (i < cut) {
      p.keep = whole;
    } else if (i == cut) {
      // A prefix needs two lines still to land; it keeps 1 .. pending - 1 of them.
      const bool can_cut = !p.atomic_read_pending && p.pending_lines >= 2;
      const uint64_t pick = draw(can_cut ? 3 : 2);
      p.keep = pick == 0 ? whole : pick == 1 ? 0 : 1 + static_cast<uint32_t>(draw(p.pending_lines - 1));
    }
    const WorkRequest& wr = *p.op->wr;
    CrashedVerb v;
    v.who = p.op->who();
    v.opcode = wr.opcode;
    v.remote = wr.remote;
    v.length = sim::verb_length(wr);
    v.posted = p.op->posted;
    v.lines = p.atomic_read_pending ? 1 : p.lines;
    v.landed = p.atomic_read_pending ? p.keep : p.lines - p.pending_lines + p.keep;
    rec.in_flight.push_back(v);
  }
  // The agenda without what the dead would still do: their wake-ups and
  // loads, idle threads' runs, and the landings the cut removed.
  std::vector<Event> kept;
  kept.reserve(all.size());
  for (Event e : all) {
    if ((e.kind == EventKind::kWake || e.kind == EventKind::kCpuAccess) &&
        static_cast<const Coroutine*>(e.target)->crashed)
      continue;
    if (e.kind == EventKind::kThreadRun &&
        std::find(idle.begin(), idle.end(), static_cast<const sim::Thread*>(e.target)) != idle.end())
      continue;
    if (crash_lands(e) || e.kind == EventKind::kAtomicRead || e.kind == EventKind::kAtomicWriteBack) {
      const auto it = pending.find(static_cast<const Op*>(e.target));
      if (it != pending.end()) {
        CutVerb& p = it->second;
        if (p.atomic_read_pending) {
          if (p.keep == 0) continue;  // the atomic never reaches its word
        } else if (e.kind == EventKind::kWriteLine) {
          if (p.keep == 0) continue;
          if (e.arg == sim::kAllLines) {
            if (p.keep < p.lines) e.arg = sim::kPrefixLines | p.keep;
            p.keep = 0;
          } else {
            --p.keep;  // staggered lines are queued in address order
          }
        }
      }
    }
    kept.push_back(e);
  }
  events.restore(kept);
}

}  // namespace lw
