// The simulator's agenda: events ordered by virtual time, ties broken by the
// order they were scheduled in (so runs are deterministic).
//
// A two-level timing wheel over a 4-ary heap:
// - Level 1: 4,096 slots of one nanosecond, holding the events of the current
//   block, the aligned 4,096 ns that contain the last event popped. A slot is
//   a FIFO of the events at exactly its time.
// - Level 2: 4,096 buckets of one block each, holding the events of the next
//   4,095 blocks (16.7 ms), unsorted FIFOs.
// - Further ahead: a 4-ary heap (event_heap.h).
// When the clock enters a new block, that block's bucket is spread over the
// level-1 slots, and heap events now within level 2's reach move in, in
// (time, seq) order. Why the pop order is exactly (time, seq): events are
// pushed in seq order, and an event reaches a level only through the route
// its time allows when it is pushed, which only narrows as the clock
// advances. So every event that waited in a further level for a slot or
// bucket was pushed before anything pushed directly into it, and moves in
// before such a push can happen: each slot's FIFO is in seq order. The
// differential test in tests/sim/event_queue_test.cpp holds it to a plain
// priority queue.
//
// Why: the agenda was the simulator's largest cost (a heap's sift-down takes
// mispredicted branches per level; with ten thousand events in flight every
// level misses the cache). Here a push is an append and a pop a bit search,
// in 66 KB of tables that stay in cache.
#pragma once

#include <cstdint>
#include <vector>

#include "event_heap.h"

namespace lw::sim {

class EventQueue {
 public:
  EventQueue() : slots_(kSlots), buckets_(kSlots) {}

  // Events are never scheduled before the last one popped: the clock only
  // moves forward.
  // Always inlined, with what it calls: a call's register saves cost as much
  // as the push itself.
  [[gnu::always_inline]] void push(Nanos time, EventKind kind, void* target, uint32_t arg = 0) {
    LW_CHECK_MSG(time >= floor_, "an event was scheduled in the past");
    const uint64_t seq = next_seq_++;
    ++size_;
    if ((time >> kBits) - block_ >= kSlots) {
      far_.push(Event{time, seq, target, arg, kind});
      return;
    }
    place(time, new_node(time, seq, target, arg, kind));
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // The event pop() would return now when it is in the current block (the
  // usual case); false otherwise, or when there is none. A hint for
  // prefetching: finding the first of an unsorted bucket costs a scan.
  bool peek_near(Event* out) const {
    if (!near_.any()) return false;
    const uint32_t slot = near_.first();
    *out = event_of(nodes_[slots_[slot].head], (block_ << kBits) | slot);
    return true;
  }

  // The targets and kinds of up to `k` events after the next, in pop order,
  // as far as the current block holds them; returns how many. A hint for
  // prefetching further ahead.
  uint32_t peek_after_next(uint32_t k, void** targets, EventKind* kinds) const {
    if (!near_.any()) return 0;
    uint32_t slot = near_.first();
    uint32_t at = nodes_[slots_[slot].head].next;
    uint32_t got = 0;
    while (got < k) {
      if (at == kNil) {
        if (slot + 1 == kSlots) break;
        const uint32_t later = near_.first_from(slot + 1);
        if (later <= slot) break;  // first_from wrapped: nothing after `slot`
        slot = later;
        at = slots_[slot].head;
      }
      targets[got] = nodes_[at].target;
      kinds[got] = nodes_[at].kind;
      ++got;
      at = nodes_[at].next;
    }
    return got;
  }

  // Every event, in pop order, leaving the queue empty at its clock (so
  // that restore() may put any of them back). Off the hot path: crash
  // injection rewrites the agenda once per run with it.
  std::vector<Event> take_all() {
    const uint64_t block = block_;
    const Nanos floor = floor_;
    std::vector<Event> all;
    all.reserve(size_);
    while (size_ > 0) all.push_back(pop());
    block_ = block;
    floor_ = floor;
    return all;
  }
  // Puts events back with their own seq, in the order given, which must be
  // pop order (time, then seq; equal pairs keep the order given): so every
  // FIFO stays in seq order and the run goes on as if they had never left.
  void restore(const std::vector<Event>& events) {
    for (const Event& e : events) {
      LW_CHECK_MSG(e.time >= floor_ && e.seq < next_seq_, "restore() takes events of this queue");
      ++size_;
      if ((e.time >> kBits) - block_ >= kSlots) {
        far_.push(e);
      } else {
        place(e.time, new_node(e.time, e.seq, e.target, e.arg, e.kind));
      }
    }
  }

  [[gnu::always_inline]] Event pop() {
    LW_CHECK(size_ > 0);
    if (!near_.any()) enter_block(next_.any() ? next_block() : far_.top().time >> kBits);
    const uint32_t slot = near_.first();
    Fifo& s = slots_[slot];
    const uint32_t index = s.head;
    Node& n = nodes_[index];
    const Event e = event_of(n, (block_ << kBits) | slot);
    s.head = n.next;
    if (s.head == kNil) near_.clear(slot);
    n.next = free_;
    free_ = index;
    --size_;
    floor_ = e.time;
    return e;
  }

 private:
  static constexpr unsigned kBits = 12;
  static constexpr uint64_t kSlots = uint64_t{1} << kBits;  // also level 2's buckets
  static constexpr uint64_t kMask = kSlots - 1;
  static constexpr uint32_t kNil = ~uint32_t{0};

  // An event below the heap: its time is its block's start plus `low`.
  struct Node {
    uint64_t seq;
    void* target;
    uint32_t arg;
    uint32_t next;  // the FIFO's next node, or kNil; the free list's link
    uint16_t low;   // time within its block
    EventKind kind;
  };
  static_assert(sizeof(Node) == 32);
  static_assert(kMask <= UINT16_MAX);
  struct Fifo {
    uint32_t head = kNil;  // valid only while the FIFO's bit is set
    uint32_t tail = kNil;
  };

  // 4,096 bits with a summary word: which FIFOs are not empty.
  class Bits {
   public:
    bool any() const { return summary_ != 0; }
    bool test(uint32_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
    void set(uint32_t i) {
      words_[i >> 6] |= uint64_t{1} << (i & 63);
      summary_ |= uint64_t{1} << (i >> 6);
    }
    void clear(uint32_t i) {
      uint64_t& w = words_[i >> 6];
      w &= ~(uint64_t{1} << (i & 63));
      if (w == 0) summary_ &= ~(uint64_t{1} << (i >> 6));
    }
    uint32_t first() const {  // the lowest set bit; some bit must be set
      const uint32_t w = static_cast<uint32_t>(__builtin_ctzll(summary_));
      return (w << 6) | static_cast<uint32_t>(__builtin_ctzll(words_[w]));
    }
    // The first set bit at or after `from`, circularly; some bit must be set.
    uint32_t first_from(uint32_t from) const {
      const uint32_t w = from >> 6;
      if (const uint64_t m = words_[w] & (~uint64_t{0} << (from & 63)); m != 0)
        return (w << 6) | static_cast<uint32_t>(__builtin_ctzll(m));
      const uint64_t later = w == 63 ? 0 : summary_ & (~uint64_t{0} << (w + 1));
      const uint32_t v = static_cast<uint32_t>(__builtin_ctzll(later != 0 ? later : summary_));
      // v == w only when w's set bits all lie below `from`: the wrap-around.
      return (v << 6) | static_cast<uint32_t>(__builtin_ctzll(words_[v]));
    }

   private:
    uint64_t words_[kSlots / 64] = {};
    uint64_t summary_ = 0;
  };
  static_assert(kSlots == 64 * 64, "one summary word");

  static Event event_of(const Node& n, Nanos time) { return Event{time, n.seq, n.target, n.arg, n.kind}; }

  [[gnu::always_inline]] uint32_t new_node(Nanos time, uint64_t seq, void* target, uint32_t arg, EventKind kind) {
    uint32_t index = free_;
    if (index != kNil) {
      free_ = nodes_[index].next;
    } else {
      LW_CHECK_MSG(nodes_.size() < kNil, "more than 2^32 events pending");
      index = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    Node& n = nodes_[index];
    n.seq = seq;
    n.target = target;
    n.arg = arg;
    n.low = static_cast<uint16_t>(time & kMask);
    n.kind = kind;
    return index;
  }

  [[gnu::always_inline]] static void append(Fifo& f, Bits& bits, uint32_t i, std::vector<Node>& nodes,
                                            uint32_t index) {
    nodes[index].next = kNil;
    if (bits.test(i)) {
      nodes[f.tail].next = index;
    } else {
      bits.set(i);
      f.head = index;
    }
    f.tail = index;
  }

  // Files node `index` (time `time`, within level 2's reach) in its level.
  [[gnu::always_inline]] void place(Nanos time, uint32_t index) {
    const uint64_t block = time >> kBits;
    if (block == block_) {
      append(slots_[time & kMask], near_, static_cast<uint32_t>(time & kMask), nodes_, index);
    } else {
      append(buckets_[block & kMask], next_, static_cast<uint32_t>(block & kMask), nodes_, index);
    }
  }

  // The first non-empty bucket after the current block.
  uint64_t next_block() const {
    const uint32_t from = static_cast<uint32_t>((block_ + 1) & kMask);
    const uint32_t b = next_.first_from(from);
    return block_ + 1 + ((b - from) & kMask);
  }

  // The clock enters `block` (level 1 is empty): its bucket spreads over the
  // slots in FIFO order, then heap events now within reach move in.
  void enter_block(uint64_t block) {
    LW_CHECK(block > block_);
    block_ = block;
    const uint32_t b = static_cast<uint32_t>(block & kMask);
    if (next_.test(b)) {
      next_.clear(b);
      for (uint32_t i = buckets_[b].head; i != kNil;) {
        const uint32_t after = nodes_[i].next;
        append(slots_[nodes_[i].low], near_, nodes_[i].low, nodes_, i);
        i = after;
      }
    }
    while (!far_.empty() && (far_.top().time >> kBits) - block_ < kSlots) {
      const Event e = far_.pop();
      place(e.time, new_node(e.time, e.seq, e.target, e.arg, e.kind));
    }
  }

  std::vector<Fifo> slots_;    // level 1: the current block, a FIFO per nanosecond
  std::vector<Fifo> buckets_;  // level 2: a FIFO per block
  Bits near_, next_;           // their non-empty FIFOs
  std::vector<Node> nodes_;    // the events below the heap, and free nodes
  uint32_t free_ = kNil;
  EventHeap far_;              // events 4,096 blocks ahead or more
  uint64_t block_ = 0;         // the current block: floor_ >> kBits between calls
  size_t size_ = 0;
  uint64_t next_seq_ = 0;
  Nanos floor_ = 0;  // time of the last event popped
};

}  // namespace lw::sim
