// The MCS lock of programs 9 and 13: its remote layout and the spin both
// use. Line 0: the tail (worker id + 1, 0 = free); line 1: the counter the
// lock guards; then one queue node per worker, a line each:
//   0        8        16                64
//   +--------+--------+-----------------+
//   | locked | next   | (unused)        |
//   +--------+--------+-----------------+
#pragma once

#include "bug_suite.h"

namespace lw::check::bugs {

struct QNode {
  uint64_t locked;
  uint64_t next;  // worker id + 1, 0 = none
  uint64_t unused[6];
};
static_assert(sizeof(QNode) == kCacheLine);

struct McsLayout {
  RemoteAddr tail, counter, nodes;
  RemoteAddr node(uint64_t id) const { return nodes + (id - 1) * sizeof(QNode); }

  void allocate(SeedRun& run) {
    tail = run.backend().allocate(0, 2 * kCacheLine + run.workers() * sizeof(QNode), 64);
    counter = tail + kCacheLine;
    nodes = tail + 2 * kCacheLine;
  }

  // READ my `next`; if none, CAS(tail, me -> 0). When that CAS fails a
  // successor swapped itself in and has not linked yet: wait for its link
  // (or, the bug of program 9, return without waking it).
  Task<void> release(Worker& w, uint64_t me, bool wait_for_link) {
    uint64_t next = 0;
    (void)co_await w.read(&next, node(me) + offsetof(QNode, next), 8);
    if (next == 0) {
      if (value_of(co_await w.cas(tail, me, 0)) == me) co_return;  // nobody queued
      if (!wait_for_link) co_return;  // program 9's bug: a successor is linking right now
      next = co_await spin(w, node(me) + offsetof(QNode, next), [](uint64_t n) { return n != 0; });
    }
    const uint64_t unlocked = 0;
    (void)co_await w.write(node(next) + offsetof(QNode, locked), &unlocked, 8);
  }

  // Spins with READs until the word at `a` satisfies `done`; returns it.
  template <typename Pred>
  static Task<uint64_t> spin(Worker& w, RemoteAddr a, Pred done) {
    uint64_t v = 0;
    for (Nanos backoff = 100;; backoff = std::min<Nanos>(2 * backoff, 10'000)) {
      (void)co_await w.read(&v, a, 8);
      if (done(v)) co_return v;
      co_await w.sleep(backoff);
    }
  }
};

}  // namespace lw::check::bugs
