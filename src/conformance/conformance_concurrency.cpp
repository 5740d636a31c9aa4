// Conformance cases "concurrency": many coroutines on several threads racing
// through NIC atomics; counters and winners must come out exact.
#include <vector>

#include "conformance_internal.h"

namespace lw::conformance {
namespace {

using Words = std::vector<uint64_t>;

constexpr uint32_t kThreads = 4, kCoroutines = 4;

uint32_t slot_of(const Worker& w, uint32_t coroutines) {
  return w.placement().thread * coroutines + w.placement().coroutine;
}

// T threads x C coroutines FAA one counter N times: the final count is exact
// and the old values returned are 0 .. total-1, each once.
void faa_counter(Env& env) {
  constexpr uint32_t kAdds = 100, kTotal = kThreads * kCoroutines * kAdds;
  auto b = env.backend(env.shape(kThreads, kCoroutines));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr ctr = env.alloc(*b, 0, 8, 8), start = env.alloc(*b, 0, 64);
  if (ctr.is_null() || start.is_null()) return;
  std::vector<Words> olds(kThreads * kCoroutines);  // one per coroutine: no sharing
  for (uint32_t t = 0; t < kThreads; ++t)
    for (uint32_t c = 0; c < kCoroutines; ++c)
      b->spawn(at(t, c), [&check, &olds, ctr, start](Worker& w) -> Task<void> {
        co_await rendezvous(w, start, kThreads * kCoroutines, check);
        Words& mine = olds[slot_of(w, kCoroutines)];
        for (uint32_t i = 0; i < kAdds; ++i) {
          Result<uint64_t> r = co_await w.faa(ctr, 1);
          if (!check.status("FAA +1", r.status, Status::kOk)) co_return;
          mine.push_back(r.value);
        }
      });
  require_within_budget(b->run());
  check.eq("counter after " + std::to_string(kTotal) + " concurrent FAA +1", b->host_load(ctr),
           kTotal);
  std::vector<bool> returned(kTotal);
  for (const Words& list : olds)
    for (uint64_t v : list) {
      if (v >= kTotal)
        check.fail("FAA returned " + hex(v) + ", beyond the " + hex(kTotal) + " adds");
      else if (returned[v])
        check.fail("FAA returned old value " + hex(v) + " twice");
      else
        returned[v] = true;
    }
}

// A CAS spin lock (bounded) protecting a READ-modify-WRITE counter.
void cas_lock_counter(Env& env) {
  constexpr uint32_t kThreadsHere = 4, kCoroutinesHere = 2, kIncrements = 25, kMaxAttempts = 20000;
  constexpr uint64_t kTotal = kThreadsHere * kCoroutinesHere * kIncrements;
  auto b = env.backend(env.shape(kThreadsHere, kCoroutinesHere));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr lock = env.alloc(*b, 0, 64), guard = env.alloc(*b, 0, 64),
                   counter = env.alloc(*b, 0, 64), start = env.alloc(*b, 0, 64);
  if (lock.is_null() || guard.is_null() || counter.is_null() || start.is_null()) return;
  for (uint32_t t = 0; t < kThreadsHere; ++t)
    for (uint32_t c = 0; c < kCoroutinesHere; ++c)
      b->spawn(at(t, c), [&check, lock, guard, counter, start](Worker& w) -> Task<void> {
        co_await rendezvous(w, start, kThreadsHere * kCoroutinesHere, check);
        const uint64_t id = 1 + slot_of(w, kCoroutinesHere);
        for (uint32_t i = 0; i < kIncrements; ++i) {
          bool held = false;
          for (uint32_t attempt = 0; attempt < kMaxAttempts && !held; ++attempt) {
            Result<uint64_t> r = co_await w.cas(lock, 0, id);
            if (!check.status("lock CAS", r.status, Status::kOk)) co_return;
            held = r.value == 0;
            if (!held) co_await w.sleep(100 + w.rng().below(900));  // back off
          }
          if (!held) {
            check.fail("lock not acquired in " + std::to_string(kMaxAttempts) +
                       " CAS attempts (retry_exhausted)");
            co_return;
          }
          Result<uint64_t> in = co_await w.faa(guard, 1);
          if (check.status("guard FAA +1", in.status, Status::kOk))
            check.eq("holders already inside the lock", in.value, 0);
          uint64_t v = 0;
          if (!check.status("counter READ", co_await w.read(&v, counter, 8), Status::kOk))
            co_return;
          ++v;
          if (!check.status("counter WRITE", co_await w.write(counter, &v, 8), Status::kOk))
            co_return;
          Result<uint64_t> out = co_await w.faa(guard, ~uint64_t{0});
          if (check.status("guard FAA -1", out.status, Status::kOk))
            check.eq("holders inside the lock at release", out.value, 1);
          Result<uint64_t> un = co_await w.cas(lock, id, 0);
          if (check.status("unlock CAS", un.status, Status::kOk))
            check.eq("lock word at unlock (the holder's id)", un.value, id);
        }
      });
  require_within_budget(b->run());
  check.eq("counter after " + std::to_string(kTotal) + " locked increments", b->host_load(counter),
           kTotal);
}

// Many coroutines CAS(0 -> own id) one word per round: exactly one wins, the
// word holds its id, and every loser is told the winner's id.
void cas_one_winner(Env& env) {
  constexpr uint32_t kRounds = 20, kSlots = kThreads * kCoroutines;
  auto b = env.backend(env.shape(kThreads, kCoroutines));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr words = env.alloc(*b, 0, kRounds * kCacheLine), start = env.alloc(*b, 0, 64);
  if (words.is_null() || start.is_null()) return;
  std::vector<Words> olds(kSlots, Words(kRounds, ~uint64_t{0}));
  for (uint32_t t = 0; t < kThreads; ++t)
    for (uint32_t c = 0; c < kCoroutines; ++c)
      b->spawn(at(t, c), [&check, &olds, words, start](Worker& w) -> Task<void> {
        co_await rendezvous(w, start, kSlots, check);
        const uint32_t slot = slot_of(w, kCoroutines);
        for (uint32_t r = 0; r < kRounds; ++r) {
          Result<uint64_t> res = co_await w.cas(words + r * kCacheLine, 0, 1 + slot);
          if (!check.status("CAS 0->id", res.status, Status::kOk)) co_return;
          olds[slot][r] = res.value;
        }
      });
  require_within_budget(b->run());
  for (uint32_t r = 0; r < kRounds; ++r) {
    const std::string what = "round " + std::to_string(r) + ": ";
    uint32_t winners = 0;
    uint64_t winner = 0;
    for (uint32_t s = 0; s < kSlots; ++s)
      if (olds[s][r] == 0) {
        ++winners;
        winner = 1 + s;
      }
    if (!check.eq(what + "CAS(0 -> id) winners among " + std::to_string(kSlots), winners, 1))
      continue;
    check.eq(what + "word after the race (the winner's id)", b->host_load(words + r * kCacheLine),
             winner);
    for (uint32_t s = 0; s < kSlots; ++s)
      if (olds[s][r] != 0) check.eq(what + "old value a loser saw", olds[s][r], winner);
  }
}

}  // namespace

std::vector<CaseDef> concurrency_cases() {
  return {
      {"concurrency", "faa-counter", "4x4 coroutines FAA one counter: exact, each old value once",
       faa_counter},
      {"concurrency", "cas-lock-counter",
       "a bounded CAS spin lock keeps a READ-modify-WRITE counter exact", cas_lock_counter},
      {"concurrency", "cas-one-winner", "exactly one of 16 racing CAS(0 -> id) wins",
       cas_one_winner},
  };
}

}  // namespace lw::conformance
