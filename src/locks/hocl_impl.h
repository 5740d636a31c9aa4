// Internals of HOCL (locks/hocl.h): the shared state behind a Hocl handle and
// the local lock table (LLT) of one compute node.
//
// A local lock is a FIFO ticket lock of 16 bytes. Its fields are plain
// integers changed only under `guard`, a spin flag held for a few
// instructions and never across a co_await: the threads and verbs backends
// run a compute node's threads in parallel, and one guard keeps every
// transition (arrive, pass, hand over, abandon) atomic without a protocol.
// Plain integers (reached through std::atomic_ref) let the table be calloc'd:
// 131,072 locks per memory node are mapped only where they are used.
//
//   byte 0      1      2      3      4          8          12        14   16
//      +------+------+------+------+----------+----------+---------+----+
//      |guard |flags |depth | pad  |  next    | serving  |abandoned|pad |
//      +------+------+------+------+----------+----------+---------+----+
//   next:      the ticket the next arrival takes.
//   serving:   the holder's ticket; serving == next: free.
//   abandoned: tickets in (serving, next) whose waiters gave up (listed in
//              LocalTable::abandoned_); a pass skips them.
//   depth:     consecutive handovers (Fig. 6 handover_depth).
//   flags:     kReleasing between release_global and release_local;
//              kHanding when that release hands the global lock over;
//              kHanded from the pass until the new holder sees it.
//
// Giving up (max_spins): a waiter marks its ticket abandoned and leaves; the
// holder passing on skips it. A waiter does not abandon while a handover is
// pending (kHanding): release_global counted it as the recipient, and the
// pass is one batch away, so it keeps polling (a wait the holder bounds).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "latchwork/locks/hocl.h"

namespace lw::locks {

namespace hocl {

struct Entry {
  uint8_t guard;
  uint8_t flags;
  uint8_t depth;
  uint8_t pad0;
  uint32_t next;
  uint32_t serving;
  uint16_t abandoned;
  uint16_t pad1;
};
static_assert(sizeof(Entry) == 16);

inline constexpr uint8_t kReleasing = 1;
inline constexpr uint8_t kHanding = 2;
inline constexpr uint8_t kHanded = 4;

// What a waiter's poll found.
enum class Turn : uint8_t { kWaiting, kMine, kMineHanded };

// The LLT of one compute node: one Entry per (memory node, index).
class LocalTable {
 public:
  // Null when the table cannot be allocated.
  static std::unique_ptr<LocalTable> create(uint64_t entries);

  struct Arrival {
    uint32_t ticket = 0;
    bool holder = false;  // the lock was free: the caller holds it at once
  };
  Arrival arrive(uint64_t e);
  Turn poll(uint64_t e, uint32_t ticket);
  // Gives up `ticket`; false when it cannot (its turn came, or a handover is
  // pending): the caller keeps polling.
  bool abandon(uint64_t e, uint32_t ticket);
  // release_global's decision for the holder of `ticket`: true to hand the
  // global lock over (a live waiter queued, depth < max_handover).
  bool decide(uint64_t e, uint32_t ticket, bool handover, uint32_t max_handover);
  // Passes the local lock of `ticket` to the next live ticket; `released`:
  // after decide() (else the holder gives up before taking the global lock).
  void pass(uint64_t e, uint32_t ticket, bool released);

  // For tests: a copy of the entry's fields, read under its guard.
  Entry snapshot(uint64_t e);

 private:
  struct Free {
    void operator()(Entry* p) const { std::free(p); }
  };
  class Guard;
  LocalTable() = default;
  static uint64_t key(uint64_t e, uint32_t ticket) { return (e << 32) | ticket; }

  std::unique_ptr<Entry, Free> entries_;
  uint64_t size_ = 0;
  std::mutex abandoned_mu_;  // taken inside an entry's guard, never the reverse
  std::unordered_set<uint64_t> abandoned_;
};

}  // namespace hocl

struct Hocl::State {
  HoclConfig cfg;
  bool on_chip = false;
  // Host-memory GLT words are freed with a CAS id -> 0 where a failed CAS may
  // write back (Capabilities::failed_cas_writes_back), with a WRITE of 0
  // elsewhere (Sherman's release): a waiter's failing CAS would rewrite its
  // id over the WRITE. On-chip locks need neither: no PCIe window.
  bool release_by_cas = false;
  std::string fallback;
  uint32_t memory_nodes = 0;
  uint32_t compute_nodes = 0;
  std::vector<RemoteAddr> glt;  // per memory node
  std::vector<std::unique_ptr<hocl::LocalTable>> llt;  // per compute node (hierarchical)
  // The source of every release WRITE: read when the NIC executes it, so it
  // lives as long as the lock and is never written.
  const uint64_t zero[1] = {0};

  std::atomic<uint64_t> acquisitions{0}, handovers{0}, global_cas{0}, global_cas_failed{0},
      local_waits{0}, gave_up{0};

  uint64_t entry(NodeId node, uint32_t index) const { return uint64_t{node} * cfg.locks_per_node + index; }
  hocl::LocalTable& local(uint32_t compute_node) const {
    LW_CHECK_MSG(compute_node < llt.size() && llt[compute_node], "no LLT for compute node " +
                                                                     std::to_string(compute_node));
    return *llt[compute_node];
  }
};

}  // namespace lw::locks
