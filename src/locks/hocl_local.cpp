// HOCL's local lock table: FIFO ticket locks with handover and abandoned
// tickets (hocl_impl.h draws the entry and the rules).
#include <atomic>
#include <string>
#include <thread>

#include "hocl_impl.h"

namespace lw::locks::hocl {

// Holds an entry's guard. Holders never suspend and run a few instructions,
// so a waiter spins briefly (it yields the OS thread every 1024 tries, for
// runs with more threads than cores) and a guard never taken back within
// 2^32 tries is a lost release: a bug.
class LocalTable::Guard {
 public:
  explicit Guard(Entry& e) : flag_(e.guard) {
    for (uint64_t tries = 0; flag_.exchange(1, std::memory_order_acquire) != 0; ++tries) {
      LW_CHECK_MSG(tries < (uint64_t{1} << 32), "an LLT entry's guard was never released");
      if (tries % 1024 == 1023) std::this_thread::yield();
    }
  }
  ~Guard() { flag_.store(0, std::memory_order_release); }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  std::atomic_ref<uint8_t> flag_;
};

std::unique_ptr<LocalTable> LocalTable::create(uint64_t entries) {
  LW_CHECK(entries > 0);
  // calloc: zeroed (every lock free) and mapped lazily by the OS.
  auto* p = static_cast<Entry*>(std::calloc(entries, sizeof(Entry)));
  if (p == nullptr) return nullptr;
  std::unique_ptr<LocalTable> t(new LocalTable());
  t->entries_.reset(p);
  t->size_ = entries;
  return t;
}

LocalTable::Arrival LocalTable::arrive(uint64_t e) {
  LW_CHECK(e < size_);
  Entry& x = entries_.get()[e];
  Guard g(x);
  // Tickets wrap; a queue of 2^31 is far beyond any worker count.
  LW_CHECK_MSG(x.next - x.serving < (uint32_t{1} << 31), "LLT queue overflow");
  Arrival a{x.next, x.next == x.serving};
  ++x.next;
  return a;
}

Turn LocalTable::poll(uint64_t e, uint32_t ticket) {
  Entry& x = entries_.get()[e];
  Guard g(x);
  if (x.serving != ticket) return Turn::kWaiting;
  if (x.flags & kHanded) {
    x.flags = static_cast<uint8_t>(x.flags & ~kHanded);
    return Turn::kMineHanded;
  }
  return Turn::kMine;
}

bool LocalTable::abandon(uint64_t e, uint32_t ticket) {
  Entry& x = entries_.get()[e];
  Guard g(x);
  if (x.serving == ticket) return false;  // the turn came: take it
  LW_CHECK_MSG(ticket - x.serving < x.next - x.serving, "abandoning a ticket not in the queue");
  if ((x.flags & kHanding) || x.abandoned == UINT16_MAX) return false;
  {
    std::lock_guard<std::mutex> m(abandoned_mu_);
    LW_CHECK(abandoned_.insert(key(e, ticket)).second);
  }
  ++x.abandoned;
  return true;
}

bool LocalTable::decide(uint64_t e, uint32_t ticket, bool handover, uint32_t max_handover) {
  Entry& x = entries_.get()[e];
  Guard g(x);
  LW_CHECK_MSG(x.serving == ticket && x.next != x.serving,
               "releasing local ticket " + std::to_string(ticket) + " while serving " + std::to_string(x.serving));
  LW_CHECK_MSG(!(x.flags & kReleasing), "release_global called twice for one grant");
  const uint32_t live = x.next - x.serving - 1 - x.abandoned;
  x.flags = static_cast<uint8_t>(x.flags | kReleasing);
  // Fig. 6 lines 24-28: hand over while a waiter is queued, at most
  // max_handover times in a row; a release to the GLT restarts the count.
  if (handover && live > 0 && x.depth < max_handover) {
    ++x.depth;
    x.flags = static_cast<uint8_t>(x.flags | kHanding);
    return true;
  }
  x.depth = 0;
  return false;
}

void LocalTable::pass(uint64_t e, uint32_t ticket, bool released) {
  Entry& x = entries_.get()[e];
  Guard g(x);
  LW_CHECK_MSG(x.serving == ticket && x.next != x.serving,
               "passing local ticket " + std::to_string(ticket) + " while serving " + std::to_string(x.serving));
  LW_CHECK_MSG(released == static_cast<bool>(x.flags & kReleasing),
               released ? "release_local without release_global" : "giving up a lock being released");
  LW_CHECK(!(x.flags & kHanded));
  const bool handing = x.flags & kHanding;
  x.flags = static_cast<uint8_t>(x.flags & ~(kReleasing | kHanding));
  ++x.serving;
  // Skip the tickets whose waiters gave up; each is skipped once.
  for (uint32_t skipped = 0; x.abandoned > 0 && x.serving != x.next; ++skipped) {
    LW_CHECK(skipped <= UINT16_MAX);
    {
      std::lock_guard<std::mutex> m(abandoned_mu_);
      if (abandoned_.erase(key(e, x.serving)) == 0) break;
    }
    --x.abandoned;
    ++x.serving;
  }
  if (handing) {
    // Nobody abandons while a handover is pending, so the recipient is there.
    LW_CHECK_MSG(x.serving != x.next, "a handover found no waiter");
    x.flags = static_cast<uint8_t>(x.flags | kHanded);
  } else if (x.serving == x.next) {
    LW_CHECK(x.abandoned == 0);
  }
}

Entry LocalTable::snapshot(uint64_t e) {
  LW_CHECK(e < size_);
  Entry& x = entries_.get()[e];
  Guard g(x);
  Entry copy{};
  copy.flags = x.flags;
  copy.depth = x.depth;
  copy.next = x.next;
  copy.serving = x.serving;
  copy.abandoned = x.abandoned;
  return copy;
}

}  // namespace lw::locks::hocl
