// What a finding's run shows about it, from the run's relaxation log and
// verb trace: the relaxations that touched the words of the finding's
// history, and for a hang the words its workers wait on and who wrote each
// last (the root: a waiter polls a word whose last write was not the one it
// waits for).
#include <algorithm>
#include <sstream>

#include "driver_internal.h"
#include "latchwork/check/history.h"
#include "latchwork/sim/blocked_worker.h"
#include "latchwork/sim/relaxation_log.h"
#include "latchwork/sim/verb_trace.h"

namespace lw::check::detail {
namespace {

constexpr size_t kMaxCauses = 4;
constexpr size_t kMaxWords = 8;     // awaited words reported per hang
constexpr size_t kMaxNamed = 6;     // waiters named per word

// Relaxations that lose or repeat a write: they can leave a word wrong
// after the run, wherever the reader was.
bool loses_writes(const RelaxationEvent& e) {
  return e.relaxation == "atomic_loses_write" || e.relaxation == "atomic_loses_cpu" ||
         e.relaxation == "failed_cas_writes_back" || e.relaxation == "switch_duplicate";
}

bool touches_any(const RelaxationEvent& e, const std::vector<Span>& spans) {
  for (const Span& s : spans)
    if (e.touches(s.addr, s.bytes)) return true;
  return false;
}

void add_cause(const RelaxationEvent& e, Finding* f) {
  if (f->causes.size() < kMaxCauses) f->causes.push_back(e.relaxation + ": " + e.what);
}

// What explain() may blame: relaxations on the finding's own addresses.
void add_touched(const RelaxationEvent& e, Finding* f) {
  f->addressed = true;
  if (std::find(f->touched.begin(), f->touched.end(), e.relaxation) == f->touched.end())
    f->touched.push_back(e.relaxation);
}

// The last request of `who` (by posting time): what a spinning or stuck
// worker waits on.
const VerbRecord* last_of(const VerbTrace& trace, const Placement& who) {
  const VerbRecord* last = nullptr;
  for (const VerbRecord& r : trace.records())
    if (same_worker(r.who, who) && (last == nullptr || r.posted >= last->posted)) last = &r;
  return last;
}

bool overlaps(const VerbRecord& r, const Span& s) {
  return r.remote.node() == s.addr.node() && r.remote.offset() < s.addr.offset() + s.bytes &&
         s.addr.offset() < r.remote.offset() + r.length;
}

// The last request that changed [s]: WRITEs, and atomics whose old value
// differs from what the waiters now read (a failed CAS changes nothing).
const VerbRecord* last_write(const VerbTrace& trace, const Span& s, uint64_t now_value) {
  const VerbRecord* last = nullptr;
  for (const VerbRecord& r : trace.records()) {
    if (r.opcode == Opcode::kRead || r.first_access == VerbRecord::kNever || !overlaps(r, s)) continue;
    if (r.opcode != Opcode::kWrite && r.value == now_value) continue;
    if (last == nullptr || r.first_access >= last->first_access) last = &r;
  }
  return last;
}

}  // namespace

std::vector<Span> spans_of(const VerbTrace& trace, const Placement& who, Nanos start, Nanos end) {
  std::vector<Span> spans;
  for (const VerbRecord& r : trace.records())
    if (same_worker(r.who, who) && r.posted >= start && r.posted <= end) {
      Span s{r.remote, r.length};
      if (std::find_if(spans.begin(), spans.end(), [&](const Span& x) {
            return x.addr == s.addr && x.bytes == s.bytes;
          }) == spans.end())
        spans.push_back(s);
    }
  return spans;
}

void add_interval_causes(const RelaxationLog& log, const VerbTrace* trace, const Placement& who, Nanos start,
                         Nanos end, Finding* f) {
  // The words the operation's requests touched: relaxations on them (its
  // own, a WRITE landing staggered under its READ, a lost update of the
  // latch it took) are its causes; elsewhere in the run they are not.
  const std::vector<Span> spans = trace ? spans_of(*trace, who, start, end) : std::vector<Span>{};
  if (spans.empty()) {
    // No words known (no trace): its own relaxations then, and anyone's
    // lost atomic updates and duplicated requests then.
    for (const RelaxationEvent& e : log.of(who, start, end)) add_cause(e, f);
    for (const RelaxationEvent& e : log.overlapping(start, end))
      if (!same_worker(e.who, who) && loses_writes(e)) add_cause(e, f);
    return;
  }
  f->addressed = true;
  for (const RelaxationEvent& e : log.of(who, start, end))
    if (touches_any(e, spans)) add_cause(e, f);
  for (const RelaxationEvent& e : log.overlapping(start, end)) {
    if (!touches_any(e, spans)) continue;
    add_touched(e, f);
    if (!same_worker(e.who, who)) add_cause(e, f);  // its own are listed above
  }
}

void add_final_causes(const RelaxationLog& log, Finding* f) {
  for (const RelaxationEvent& e : log.events())
    if (loses_writes(e)) add_cause(e, f);
}

void describe_hang(const std::vector<BlockedWorker>& blocked, const VerbTrace* trace,
                   const RelaxationLog* log, Finding* f) {
  if (trace == nullptr) {
    for (const BlockedWorker& b : blocked) f->blocked.push_back(b.describe());
    return;
  }
  // Alike waiters (the same word, the same value seen) are one line.
  struct Word {
    Span span;
    uint64_t seen = 0;
    std::vector<const BlockedWorker*> waiters;
  };
  std::vector<Word> words;
  std::vector<const BlockedWorker*> other;
  for (const BlockedWorker& b : blocked) {
    const VerbRecord* r = last_of(*trace, b.where);
    if (r == nullptr) {
      other.push_back(&b);
      continue;
    }
    const Span s{r->remote, r->length};
    auto it = std::find_if(words.begin(), words.end(), [&](const Word& w) {
      return w.span.addr == s.addr && w.span.bytes == s.bytes && w.seen == r->value;
    });
    if (it == words.end()) {
      if (words.size() == kMaxWords) {
        other.push_back(&b);
        continue;
      }
      words.push_back({s, r->value, {}});
      it = words.end() - 1;
    }
    it->waiters.push_back(&b);
  }
  for (const Word& w : words) {
    std::ostringstream os;
    os << w.waiters.size() << " worker(s) wait on " << w.span.bytes << " B at " << w.span.addr.to_string()
       << ", last seen 0x" << std::hex << w.seen << std::dec << ":";
    for (size_t i = 0; i < w.waiters.size() && i < kMaxNamed; ++i) os << (i ? ", " : " ") << to_string(w.waiters[i]->where);
    if (w.waiters.size() > kMaxNamed) os << ", ...";
    os << "\n  the word's last write: ";
    if (const VerbRecord* root = last_write(*trace, w.span, w.seen)) {
      os << root->describe();
    } else {
      os << "none by any request in this run (its set-up value stands)";
    }
    if (trace->dropped() > 0) os << " (the trace kept the first " << trace->records().size() << " requests only)";
    os << "\n  " << w.waiters.front()->describe();
    f->blocked.push_back(os.str());
    f->addressed = true;
    if (log)
      for (const RelaxationEvent& e : log->events())
        if (e.touches(w.span.addr, w.span.bytes)) {
          add_cause(e, f);
          add_touched(e, f);
        }
  }
  for (const BlockedWorker* b : other) f->blocked.push_back(b->describe());
}

}  // namespace lw::check::detail
