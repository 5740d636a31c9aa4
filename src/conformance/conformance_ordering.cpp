// Conformance cases "ordering": what coroutines may rely on about the order in
// which operations act and complete. Only guarantees of both RDMA hardware
// and the spec profile are checked (see litmus.cpp for the outcomes spec
// forbids); READs posted together unfenced are never assumed ordered.
#include <algorithm>
#include <cstring>

#include "conformance_internal.h"

namespace lw::conformance {
namespace {

using Words = std::vector<uint64_t>;

// Round v (< 256) as a word of 8 bytes equal to v. Bytes only grow, so even a
// READ that tears a word byte by byte (software RDMA copying with the CPU)
// sees each byte at v or later: min_byte() is a lower bound it may rely on.
constexpr uint64_t bytes_of(uint64_t v) { return v * 0x0101010101010101ull; }
uint64_t min_byte(uint64_t w) {
  uint64_t m = 0xFF;
  for (int i = 0; i < 8; ++i) m = std::min(m, (w >> (8 * i)) & 0xFF);
  return m;
}

// Writer: [WRITE data := v (4 lines), WRITE flag := v] in one batch, for
// increasing v (as bytes_of(v)). Reader on another thread: READ flag, then READ data (awaited
// one after the other, or fenced in one batch). WRITEs on one queue pair land
// in posting order, so flag v implies data >= v.
void write_order(Env& env) {
  constexpr uint64_t kRounds = 250, kMaxReads = 2000, kDataWords = 32;
  auto b = env.backend(env.shape(2, 1));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr data = env.alloc(*b, 0, kDataWords * 8), flag = env.alloc(*b, 0, 64),
                   start = env.alloc(*b, 0, 64);
  if (data.is_null() || flag.is_null() || start.is_null()) return;
  b->spawn(at(0), [&check, data, flag, start](Worker& w) -> Task<void> {
    co_await rendezvous(w, start, 2, check);
    Words line(kDataWords);
    for (uint64_t v = 1; v <= kRounds; ++v) {
      const uint64_t word = bytes_of(v);
      std::fill(line.begin(), line.end(), word);
      Batch batch;
      batch.write(data, line.data(), kDataWords * 8);
      batch.write(flag, &word, 8);
      if (!check.status("writer batch [WRITE data, WRITE flag]", co_await w.execute(batch),
                        Status::kOk))
        co_return;
    }
  });
  b->spawn(at(1), [&check, data, flag, start](Worker& w) -> Task<void> {
    co_await rendezvous(w, start, 2, check);
    Words seen(kDataWords);
    uint64_t last = 0;
    for (uint64_t i = 0; i < kMaxReads && last < kRounds; ++i) {
      uint64_t flag_word = 0;
      if (i % 2 == 0) {
        // Two awaited READs: the second starts after the first completed.
        if (!check.status("reader READ flag", co_await w.read(&flag_word, flag, 8), Status::kOk))
          co_return;
        if (!check.status("reader READ data", co_await w.read(seen.data(), data, kDataWords * 8),
                          Status::kOk))
          co_return;
      } else {
        // One batch; the fence holds the data READ until the flag READ is
        // done, with a much narrower gap between the two.
        Batch reads;
        reads.read(&flag_word, flag, 8);
        reads.read(seen.data(), data, kDataWords * 8).fence = true;
        if (!check.status("reader batch [READ flag, fenced READ data]", co_await w.execute(reads),
                          Status::kOk))
          co_return;
      }
      const uint64_t f = min_byte(flag_word);
      if (f < last) check.fail("flag went back from round " + hex(last) + " to " + hex(flag_word));
      last = std::max(last, f);
      for (uint64_t k = 0; k < kDataWords; ++k)
        if (min_byte(seen[k]) < f) {
          check.fail("data word " + std::to_string(k) + " is " + hex(seen[k]) + " after flag was " +
                     hex(flag_word) + " (WRITEs of one batch landed out of order)");
          break;
        }
    }
  });
  require_within_budget(b->run());
}

// [FAA x, READ x] and [CAS x, READ x] in one batch: the READ sees the atomic.
void atomic_before_read(Env& env) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr x = env.alloc(*b, 0, 8, 8);
  if (x.is_null()) return;
  b->spawn(at(0), [&check, x](Worker& w) -> Task<void> {
    uint64_t cur = 0;
    check.status("WRITE 0 (set-up)", co_await w.write(x, &cur, 8), Status::kOk);
    for (int i = 0; i < 60; ++i) {
      uint64_t seen = ~uint64_t{0};
      const std::string what = "round " + std::to_string(i) + ": ";
      Batch batch;
      uint64_t want = cur;
      if (i % 3 == 0) {
        batch.faa(x, 1);
        want = cur + 1;
      } else if (i % 3 == 1) {
        batch.cas(x, cur, cur + 100);
        want = cur + 100;
      } else {
        batch.cas(x, cur + 1, 7);  // fails: the READ sees the word unchanged
      }
      batch.read(&seen, x, 8);
      if (!check.status(what + "batch [atomic, READ]", co_await w.execute(batch), Status::kOk))
        co_return;
      check.eq(what + to_string(batch[0].opcode) + " returned old value", batch[0].old_value, cur);
      check.eq(what + "READ after " + to_string(batch[0].opcode) + " in the same batch", seen,
               want);
      cur = want;
    }
  });
  require_within_budget(b->run());
}

// Coroutines of one thread post operations of different sizes to one memory
// node (one queue pair); they must resume in the order they posted.
void completion_order(Env& env) {
  constexpr uint32_t kCoroutines = 6, kOps = 12;
  auto b = env.backend(env.shape(1, kCoroutines));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr big = env.alloc(*b, 0, 4096), own = env.alloc(*b, 0, kCoroutines * 2048);
  if (big.is_null() || own.is_null()) return;
  // Only this thread's coroutines touch these, one at a time.
  std::vector<uint32_t> posted, resumed;
  for (uint32_t k = 0; k < kCoroutines; ++k) {
    b->spawn(at(0, k), [&, k](Worker& w) -> Task<void> {
      std::vector<uint8_t> buf(4096), small(2048, static_cast<uint8_t>(k));
      const RemoteAddr mine = own + k * 2048;
      for (uint32_t i = 0; i < kOps; ++i) {
        const uint32_t token = k * kOps + i;
        const uint32_t kind = (k + i) % 5;
        Status s = Status::kOk;
        posted.push_back(token);
        if (kind == 0) {
          s = co_await w.read(buf.data(), big, 4096);
        } else if (kind == 1) {
          s = co_await w.read(buf.data(), big + 8 * k, 8);
        } else if (kind == 2) {
          s = co_await w.write(mine, small.data(), 2048);
        } else if (kind == 3) {
          s = (co_await w.faa(mine, 1)).status;
        } else {
          Batch batch;
          batch.write(mine + 64, small.data(), 8);
          batch.read(buf.data(), big, 4096);
          s = co_await w.execute(batch);
        }
        resumed.push_back(token);
        check.status("coroutine " + std::to_string(k) + " op " + std::to_string(i), s, Status::kOk);
      }
    });
  }
  require_within_budget(b->run());
  check.eq("completions seen", resumed.size(), posted.size());
  for (size_t n = 0; n < std::min(posted.size(), resumed.size()); ++n) {
    if (posted[n] == resumed[n]) continue;
    auto name = [](uint32_t t) {
      return "coroutine " + std::to_string(t / kOps) + " op " + std::to_string(t % kOps);
    };
    check.fail("resume #" + std::to_string(n) + " was " + name(resumed[n]) + ", but post #" +
               std::to_string(n) + " was " + name(posted[n]) +
               " (completions out of posting order)");
    break;
  }
}

// Unsignaled WRITEs (post) followed by an awaited WRITE or atomic on the same
// queue pair: once that completes, a READ sees the posted WRITEs.
void posted_writes_visible(Env& env) {
  constexpr int kRounds = 30;
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr x = env.alloc(*b, 0, 1024);
  if (x.is_null()) return;
  b->spawn(at(0), [&check, x](Worker& w) -> Task<void> {
    const RemoteAddr s0 = x, s1 = x + 64, s2 = x + 136, s3 = x + 448, other = x + 512,
                     counter = x + 576;
    for (int r = 0; r < kRounds; ++r) {
      const std::string what = "round " + std::to_string(r) + ": ";
      const uint64_t v0 = 0x1000 + r, v1 = 0x2000 + r, v3 = 0x3000 + r;
      std::vector<uint8_t> v2(200);  // crosses lines
      fill_pattern(&v2, 100 + r);
      Batch fire;
      fire.write(s0, &v0, 8);
      fire.write(s1, &v1, 8);
      fire.write(s2, v2.data(), 200);
      fire.write(s3, &v3, 8);
      if (!check.status(what + "post of 4 WRITEs", w.post(fire), Status::kOk)) co_return;
      Status s;
      const char* awaited = r % 3 == 0 ? "WRITE" : r % 3 == 1 ? "FAA" : "CAS";
      if (r % 3 == 0)
        s = co_await w.write(other, &v0, 8);
      else if (r % 3 == 1)
        s = (co_await w.faa(counter, 1)).status;
      else
        s = (co_await w.cas(counter, 0, 0)).status;  // fails or rewrites 0: either way fine
      if (!check.status(what + "awaited " + awaited, s, Status::kOk)) co_return;
      uint64_t seen0 = 0, seen1 = 0, seen3 = 0;
      std::vector<uint8_t> seen2(200);
      Batch reads;
      reads.read(&seen0, s0, 8);
      reads.read(&seen1, s1, 8);
      reads.read(seen2.data(), s2, 200);
      reads.read(&seen3, s3, 8);
      if (!check.status(what + "READs", co_await w.execute(reads), Status::kOk)) co_return;
      const std::string after = " posted before an awaited " + std::string(awaited);
      check.eq(what + "WRITE 1 of 4" + after, seen0, v0);
      check.eq(what + "WRITE 2 of 4" + after, seen1, v1);
      check.bytes(what + "WRITE 3 of 4 (200 B)" + after, seen2.data(), v2.data(), 200);
      check.eq(what + "WRITE 4 of 4" + after, seen3, v3);
    }
  });
  require_within_budget(b->run());
}

// A fenced operation waits for earlier READs: [READ x, fenced WRITE x] reads
// the old value; [WRITE x, fenced READ x] reads the new one.
void fence(Env& env) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr x = env.alloc(*b, 0, 8, 8);
  if (x.is_null()) return;
  b->spawn(at(0), [&check, x](Worker& w) -> Task<void> {
    uint64_t cur = 0;
    check.status("WRITE 0 (set-up)", co_await w.write(x, &cur, 8), Status::kOk);
    for (int r = 0; r < 30; ++r) {
      const std::string what = "round " + std::to_string(r) + ": ";
      uint64_t seen = ~uint64_t{0};
      const uint64_t v1 = cur + 1, v2 = cur + 2;
      Batch read_first;
      read_first.read(&seen, x, 8);
      read_first.write(x, &v1, 8).fence = true;
      if (!check.status(what + "[READ, fenced WRITE]", co_await w.execute(read_first), Status::kOk))
        co_return;
      check.eq(what + "READ before a fenced WRITE", seen, cur);
      Batch write_first;
      write_first.write(x, &v2, 8);
      write_first.read(&seen, x, 8).fence = true;
      if (!check.status(what + "[WRITE, fenced READ]", co_await w.execute(write_first),
                        Status::kOk))
        co_return;
      check.eq(what + "fenced READ after a WRITE", seen, v2);
      cur = v2;
    }
  });
  require_within_budget(b->run());
}

// A writer fills two lines with uniform words; a reader on another thread
// READs both with one request. Each aligned line is seen whole (never torn),
// and a line never goes back to an older value.
void line_atomicity(Env& env) {
  constexpr uint64_t kRounds = 300, kMaxReads = 2000;
  auto b = env.backend(env.shape(2, 1));
  if (!b) return;
  Check& check = env.check;
  if (!b->capabilities().line_atomic) {
    check.skip(
        "the backend does not guarantee 64-byte line atomicity "
        "(capabilities().line_atomic is false, e.g. software RDMA)");
    return;
  }
  const RemoteAddr x = env.alloc(*b, 0, 128), start = env.alloc(*b, 0, 64);
  if (x.is_null() || start.is_null()) return;
  b->spawn(at(0), [&check, x, start](Worker& w) -> Task<void> {
    co_await rendezvous(w, start, 2, check);
    Words lines(16);
    for (uint64_t v = 1; v <= kRounds; ++v) {
      std::fill(lines.begin(), lines.end(), v);
      if (!check.status("writer WRITE 128 B", co_await w.write(x, lines.data(), 128), Status::kOk))
        co_return;
    }
  });
  b->spawn(at(1), [&check, x, start](Worker& w) -> Task<void> {
    co_await rendezvous(w, start, 2, check);
    Words seen(16);
    uint64_t last[2] = {0, 0};
    for (uint64_t i = 0; i < kMaxReads && std::min(last[0], last[1]) < kRounds; ++i) {
      if (!check.status("reader READ 128 B", co_await w.read(seen.data(), x, 128), Status::kOk))
        co_return;
      for (int l = 0; l < 2; ++l) {
        const uint64_t* line = seen.data() + 8 * l;
        for (int k = 1; k < 8; ++k)
          if (line[k] != line[0]) {
            check.fail("line " + std::to_string(l) + " torn: word 0 is " + hex(line[0]) +
                       ", word " + std::to_string(k) + " is " + hex(line[k]));
            break;
          }
        if (line[0] < last[l])
          check.fail("line " + std::to_string(l) + " went back from " + hex(last[l]) + " to " +
                     hex(line[0]));
        last[l] = std::max(last[l], line[0]);
      }
    }
  });
  require_within_budget(b->run());
}

}  // namespace

std::vector<CaseDef> ordering_cases() {
  return {
      {"ordering", "write-order",
       "WRITEs of one batch land in posting order: a reader seeing the flag sees the data",
       write_order},
      {"ordering", "atomic-before-read", "an atomic executes before a later READ on the queue pair",
       atomic_before_read},
      {"ordering", "completion-order",
       "coroutines of one thread resume in posting order (completions in order per queue pair)",
       completion_order},
      {"ordering", "posted-writes-visible",
       "unsignaled WRITEs are visible once a later signaled WRITE/atomic completed",
       posted_writes_visible},
      {"ordering", "fence",
       "a fenced op waits for earlier READs; a fenced READ sees an earlier WRITE", fence},
      {"ordering", "line-atomicity",
       "an aligned 64-byte line is never seen torn and never goes back in time", line_atomicity},
  };
}

}  // namespace lw::conformance
