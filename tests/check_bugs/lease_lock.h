// A crash-tolerant lock and record (issue 43, item 5), with two broken twins.
//
// A lease lock: the lock word names its holder and when its lease expires;
// a waiter may take a lock whose lease has expired, so a holder that crashed
// delays the others by at most one lease. A holder writes only while well
// inside its lease (half of it left), so a slow holder never writes after a
// waiter took over. The record it guards is copy-on-write: two slots of four
// lines and a pointer word. A holder writes the new count into the slot the
// pointer does not name, awaits it, then flips the pointer: a crash that
// lands a prefix of the slot's lines leaves a half-written slot nobody reads.
//
// Twins, each correct without crashes and broken by one:
//   kNoExpiry: the lease never expires (a plain CAS lock): a crash while
//     holding leaves the lock held forever, the survivors give up.
//   kInPlace:  the count is written over the slot the pointer names: a crash
//     that lands a prefix of its lines leaves a torn record.
#pragma once

#include <set>

#include "bug_suite.h"

namespace lw::check::bugs {

enum class LeaseVariant { kTolerant, kNoExpiry, kInPlace };

// The lock, one line:
//   0        8                                                   64
//   +--------+----------------------------------------------------+
//   | lease  | unused                                             |
//   +--------+----------------------------------------------------+
// lease: 0 = free; else (holder + 1) << 48 | expiry (virtual ns < 2^48).
struct LeaseLine {
  uint64_t lease;
  uint64_t unused[7];
};
static_assert(sizeof(LeaseLine) == kCacheLine && alignof(LeaseLine) == 8);

// The record: a pointer line, then two slots of four lines whose every word
// holds the slot's count.
//   0       8          64            320           576
//   +-------+----------+-------------+-------------+
//   | cur   | unused   | slot 0      | slot 1      |
//   +-------+----------+-------------+-------------+
inline constexpr uint32_t kSlotWords = 4 * kCacheLine / 8;
struct Slot {
  uint64_t count[kSlotWords];
};
struct Record {
  uint64_t cur;  // 0 or 1: the slot that holds the count
  uint64_t unused[7];
  Slot slot[2];
};
static_assert(sizeof(Slot) == 4 * kCacheLine && sizeof(Record) == 9 * kCacheLine);
static_assert(offsetof(Record, slot) == kCacheLine, "slots start on a line");

template <LeaseVariant kVariant>
struct LeaseCounter : Workload {
  static constexpr Nanos kLease = 500'000;           // far above a critical section's few µs
  static constexpr Nanos kMargin = kLease / 2;       // write only with this much lease left
  static constexpr uint64_t kExpiryMask = (uint64_t{1} << 48) - 1;
  static constexpr uint32_t kAttempts = 4000;        // acquire tries before an operation gives up

  RemoteAddr lock_at, record_at;
  uint64_t committed = 0;          // operations whose pointer flip (or write) completed
  std::set<uint32_t> in_section;   // workers between their acquire and their op's end

  void setup(SeedRun& run) override {
    lock_at = run.backend().allocate(0, sizeof(LeaseLine), kCacheLine);
    record_at = run.backend().allocate(0, sizeof(Record), kCacheLine);
    if (lock_at.is_null() || record_at.is_null()) run.fail("setup", "allocation failed");
  }

  static uint64_t lease_of(uint64_t holder, Nanos expiry) { return (holder + 1) << 48 | (expiry & kExpiryMask); }

  // Returns the lease it took, or 0 after kAttempts tries.
  Task<uint64_t> acquire(Worker& w, uint64_t me) {
    Nanos backoff = 200;
    for (uint32_t i = 0; i < kAttempts; ++i) {
      uint64_t seen = 0;
      (void)co_await w.read(&seen, lock_at, 8);
      const bool expired = kVariant != LeaseVariant::kNoExpiry && (seen & kExpiryMask) < w.now();
      if (seen == 0 || expired) {
        const uint64_t mine = lease_of(me, w.now() + kLease);
        Result<uint64_t> r = co_await w.cas(lock_at, seen, mine);
        if (r.ok() && r.value == seen) co_return mine;
      }
      co_await w.sleep(backoff + w.rng().below(backoff));
      backoff = std::min<Nanos>(backoff * 2, 4000);
    }
    co_return 0;
  }

  Task<void> run(SeedRun& run, Worker& w) override {
    const uint32_t me = run.worker_index(w);
    for (uint32_t i = 0; i < run.ops_per_worker(); ++i) {
      const uint64_t lease = co_await acquire(w, me);
      if (lease == 0) {
        run.gave_up(w, "increment: the lease was never free nor expired");
        continue;
      }
      const Nanos acquired = w.now();
      const Nanos expiry = lease & kExpiryMask;
      in_section.insert(me);
      uint64_t cur = 0;
      (void)co_await w.read(&cur, record_at, 8);
      Slot s;
      (void)co_await w.read(&s, record_at + kCacheLine + (cur & 1) * sizeof(Slot), sizeof s);
      uint64_t count = 0;
      if (!whole(&s, sizeof s, &count))
        run.fail("torn-record", describe(w.placement()) + " read slot " + std::to_string(cur & 1) +
                                    " half-written under the lock at " + std::to_string(w.now()) + " ns");
      fill(&s, sizeof s, count + 1);
      const uint64_t target = kVariant == LeaseVariant::kInPlace ? (cur & 1) : 1 - (cur & 1);
      bool done = false;
      if (w.now() + kMargin < expiry) {
        (void)co_await w.write(record_at + kCacheLine + target * sizeof(Slot), &s, sizeof s);
        if (kVariant == LeaseVariant::kInPlace) {
          done = true;
        } else if (w.now() + kMargin < expiry) {
          (void)co_await w.write(record_at, &target, 8);  // the commit: the pointer flip
          done = true;
        }
      }
      if (done) ++committed;
      in_section.erase(me);
      // Certainly held until the release is posted (a lease overrun would be
      // the lock's bug, and the hold model would see it overlap).
      run.holds().exclusive(0, acquired, w.now(), w.placement());
      (void)co_await w.cas(lock_at, lease, 0);
      run.op_done(w);
    }
  }

  void check(SeedRun& run) override {
    Record r;
    run.backend().host_read(record_at, &r, sizeof r);
    uint64_t count = 0;
    if (!whole(&r.slot[r.cur & 1], sizeof(Slot), &count)) {
      run.fail("torn-record", "the slot the pointer names (" + std::to_string(r.cur & 1) + ") is half-written");
      return;
    }
    // A worker that crashed inside its section may or may not have committed.
    const uint64_t maybe = in_section.size();
    if (count < committed || count > committed + maybe)
      run.fail(count < committed ? "lost-update" : "phantom-update",
               "the count is " + std::to_string(count) + " after " + std::to_string(committed) +
                   " committed increments (" + std::to_string(maybe) + " cut by the crash)");
  }

  // A worker that died inside its section: its lease outlived it, and the
  // survivors had to wait for it to expire.
  std::string after_crash(SeedRun& run) override {
    (void)run;
    if (in_section.empty()) return {};
    return "worker " + std::to_string(*in_section.begin()) + " died inside its critical section";
  }

  std::string still_held(SeedRun& run) override {
    const uint64_t v = run.backend().host_load(lock_at);
    if (v == 0) return {};
    return "the lock word names worker " + std::to_string((v >> 48) - 1) + " with a lease to " +
           std::to_string(v & kExpiryMask) + " ns";
  }
};

}  // namespace lw::check::bugs
