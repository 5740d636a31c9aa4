#include "span_ring.h"

#include "latchwork/base/assert.h"
#include "latchwork/base/layout.h"

namespace lw::rdma {

bool SpanRing::take(uint64_t len, uint64_t* offset) {
  len = align_up(len == 0 ? 1 : len, kAlign);
  if (len > cap_) return false;
  uint64_t at = 0;
  if (!live_.empty()) {
    const uint64_t tail = live_.front().offset;                    // oldest span
    const uint64_t head = live_.back().offset + live_.back().len;  // end of newest
    if (head > tail) {           // not wrapped: room after the newest, or at the start
      if (head + len <= cap_) at = head;
      else if (len <= tail) at = 0;
      else return false;
    } else if (head + len <= tail) {  // wrapped: room up to the oldest
      at = head;
    } else {
      return false;
    }
  }
  live_.push_back({at, len, false});
  *offset = at;
  return true;
}

void SpanRing::give_back(uint64_t offset) {
  bool found = false;
  for (Span& s : live_)
    if (s.offset == offset && !s.done) {
      s.done = true;
      found = true;
      break;
    }
  LW_CHECK_MSG(found, "span given back twice or never taken");
  while (!live_.empty() && live_.front().done) live_.pop_front();
}

}  // namespace lw::rdma
