// A 4-ary min-heap of events on the key (time, seq): the agenda's store for
// events too far ahead for its timing wheel (event_queue.h).
//
// Half the depth of a binary heap, and a node's four children share one or two
// cache lines. Keys are unique (seq is), so the pop order is the total order on
// (time, seq) whatever the heap's shape.
#pragma once

#include <vector>

#include "event.h"
#include "latchwork/base/assert.h"

namespace lw::sim {

class EventHeap {
 public:
  void push(const Event& e) {
    heap_.emplace_back();
    // Sift the hole up by the key alone and write the entry once: copying a
    // just-written struct back as a whole stalls store forwarding.
    size_t i = heap_.size() - 1;
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (event_before(heap_[parent], e)) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const {
    LW_CHECK(!heap_.empty());
    return heap_[0];
  }
  Event pop() {
    LW_CHECK(!heap_.empty());
    const Event top = heap_[0];
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return top;
  }

 private:
  static constexpr size_t kArity = 4;
  // Places `e` from the root down (the root's old entry is gone).
  void sift_down(const Event& e) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t first = i * kArity + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = first + kArity < n ? first + kArity : n;
      for (size_t c = first + 1; c < end; ++c)
        if (event_before(heap_[c], heap_[best])) best = c;
      if (!event_before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
};

}  // namespace lw::sim
