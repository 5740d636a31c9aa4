// Conformance cases "results": what each verb returns and leaves in memory,
// one coroutine at a time.
#include <atomic>
#include <chrono>
#include <cstring>

#include "conformance_internal.h"
#include "latchwork/verbs/rpc_builtin.h"

namespace lw::conformance {
namespace {

// Writes `v` to the word at `x`; false (recorded) if the WRITE failed.
Task<bool> set_word(Worker& w, Check& check, RemoteAddr x, uint64_t v) {
  co_return check.status("WRITE " + hex(v) + " (set-up)", co_await w.write(x, &v, 8), Status::kOk);
}

// Runs an atomic, checks its status and returned old value, then READs the
// word back and checks it.
Task<void> atomic_step(Worker& w, Check& check, std::string what, Worker::AtomicAwaiter op,
                       uint64_t want_old, uint64_t want_after) {
  const RemoteAddr x = op.wr.remote;
  Result<uint64_t> r = co_await op;
  if (!check.status(what, r.status, Status::kOk)) co_return;
  check.eq(what + ": returned old value", r.value, want_old);
  uint64_t seen = 0;
  if (check.status(what + ": READ after", co_await w.read(&seen, x, 8), Status::kOk))
    check.eq(what + ": word after", seen, want_after);
}

// An atomic the backend does not support: kUnsupported, word unchanged.
Task<void> unsupported_step(Worker& w, Check& check, std::string what, Worker::AtomicAwaiter op,
                            uint64_t word) {
  const RemoteAddr x = op.wr.remote;
  Result<uint64_t> r = co_await op;
  check.status(what + " (capabilities().masked_atomics is false)", r.status, Status::kUnsupported);
  uint64_t seen = 0;
  if (check.status(what + ": READ after", co_await w.read(&seen, x, 8), Status::kOk))
    check.eq(what + ": word after (must be unchanged)", seen, word);
}

// One coroutine on a one-thread cluster running `body(w, x)` on a fresh word
// region of `bytes`.
template <typename Body>
void run_single(Env& env, uint64_t bytes, Body body) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  RemoteAddr x = env.alloc(*b, 0, bytes);
  if (x.is_null()) return;
  b->spawn(at(0), [x, body](Worker& w) -> Task<void> { co_await body(w, x); });
  require_within_budget(b->run());
}

constexpr uint32_t kSizes[] = {1, 8, 63, 64, 65, 200, 4096, 65536};
constexpr uint32_t kOffsets[] = {0, 3, 61};  // line-aligned, odd, odd and crossing a line
constexpr uint64_t kGuard = kCacheLine;      // bytes checked on either side of a WRITE
constexpr uint64_t kRegion = align_up(kGuard + 61 + 65536 + kGuard, kCacheLine);

void read_write_sizes(Env& env) {
  Check& check = env.check;
  run_single(env, kRegion, [&check](Worker& w, RemoteAddr x) -> Task<void> {
    std::vector<uint8_t> mirror(kRegion);  // what the region must hold
    fill_pattern(&mirror, 1000);
    if (!check.status("WRITE of the whole region", co_await w.write(x, mirror.data(), kRegion),
                      Status::kOk))
      co_return;
    uint64_t salt = 0;
    for (uint32_t size : kSizes) {
      for (uint32_t off : kOffsets) {
        const std::string what = std::to_string(size) + " B at offset +" + std::to_string(off);
        const uint64_t at = kGuard + off;
        std::vector<uint8_t> data(size), back(size), around(size + 2 * kGuard);
        fill_pattern(&data, ++salt);
        if (!check.status("WRITE " + what, co_await w.write(x + at, data.data(), size),
                          Status::kOk))
          continue;
        std::memcpy(mirror.data() + at, data.data(), size);
        if (check.status("READ " + what, co_await w.read(back.data(), x + at, size), Status::kOk))
          check.bytes("READ " + what + " after WRITE", back.data(), data.data(), size);
        // The bytes on either side of the WRITE are untouched.
        if (check.status("READ around " + what,
                         co_await w.read(around.data(), x + (at - kGuard), around.size()),
                         Status::kOk))
          check.bytes("READ of " + what + " with 64 B either side", around.data(),
                      mirror.data() + (at - kGuard), around.size());
      }
    }
    std::vector<uint8_t> all(kRegion);
    if (check.status("READ of the whole region", co_await w.read(all.data(), x, kRegion),
                     Status::kOk))
      check.bytes("READ of the whole region at the end", all.data(), mirror.data(), kRegion);
  });
}

void host_access(Env& env) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  RemoteAddr x = env.alloc(*b, 0, 1024);
  if (x.is_null()) return;
  Check& check = env.check;
  std::vector<uint8_t> host_data(300), verb_data(200);
  fill_pattern(&host_data, 1);
  fill_pattern(&verb_data, 2);
  const RemoteAddr by_host = x + 5, by_verb = x + 517, word = x + 768;
  const uint64_t word_value = 0x1122334455667788ull;
  b->host_write(by_host, host_data.data(), host_data.size());
  b->host_store(word, word_value);
  b->spawn(at(0), [&](Worker& w) -> Task<void> {
    std::vector<uint8_t> seen(host_data.size());
    if (check.status("READ of host_write data", co_await w.read(seen.data(), by_host, 300),
                     Status::kOk))
      check.bytes("READ of 300 B written by host_write", seen.data(), host_data.data(), 300);
    check.status("WRITE 200 B", co_await w.write(by_verb, verb_data.data(), 200), Status::kOk);
    Result<uint64_t> r = co_await w.faa(word, 1);
    if (check.status("FAA on a word set by host_store", r.status, Status::kOk))
      check.eq("FAA on a word set by host_store: returned old value", r.value, word_value);
  });
  require_within_budget(b->run());
  std::vector<uint8_t> seen(300);
  b->host_read(by_verb, seen.data(), 200);
  check.bytes("host_read of 200 B written by WRITE", seen.data(), verb_data.data(), 200);
  b->host_read(by_host, seen.data(), 300);
  check.bytes("host_read of 300 B written by host_write", seen.data(), host_data.data(), 300);
  check.eq("host_load of a word after FAA +1", b->host_load(word), word_value + 1);
}

void cas_success(Env& env) {
  Check& check = env.check;
  run_single(env, 8, [&check](Worker& w, RemoteAddr x) -> Task<void> {
    const uint64_t v0 = 0x8000000000000001ull, v1 = 0xFEDCBA9876543210ull;
    if (!co_await set_word(w, check, x, v0)) co_return;
    co_await atomic_step(w, check, "CAS " + hex(v0) + "->" + hex(v1), w.cas(x, v0, v1), v0, v1);
    co_await atomic_step(w, check, "CAS " + hex(v1) + "->0", w.cas(x, v1, 0), v1, 0);
  });
}

void cas_failure(Env& env) {
  Check& check = env.check;
  run_single(env, 8, [&check](Worker& w, RemoteAddr x) -> Task<void> {
    const uint64_t v0 = 0x0123456789ABCDEFull;
    if (!co_await set_word(w, check, x, v0)) co_return;
    co_await atomic_step(w, check, "CAS expecting " + hex(v0 ^ 1) + " (low bit differs)",
                         w.cas(x, v0 ^ 1, 0x42), v0, v0);
    const uint64_t top = v0 ^ (uint64_t{1} << 63);
    co_await atomic_step(w, check, "CAS expecting " + hex(top) + " (top bit differs)",
                         w.cas(x, top, 0x42), v0, v0);
  });
}

void faa_adds(Env& env) {
  Check& check = env.check;
  run_single(env, 8, [&check](Worker& w, RemoteAddr x) -> Task<void> {
    if (!co_await set_word(w, check, x, 0xFFFFFFFF)) co_return;
    co_await atomic_step(w, check, "FAA +1 carrying into bit 32", w.faa(x, 1), 0xFFFFFFFF,
                         0x100000000ull);
    co_await atomic_step(w, check, "FAA +0x100000000", w.faa(x, 0x100000000ull), 0x100000000ull,
                         0x200000000ull);
    co_await atomic_step(w, check, "FAA +0", w.faa(x, 0), 0x200000000ull, 0x200000000ull);
  });
}

void faa_wraps(Env& env) {
  Check& check = env.check;
  run_single(env, 8, [&check](Worker& w, RemoteAddr x) -> Task<void> {
    if (!co_await set_word(w, check, x, 0xFFFFFFFFFFFFFFFEull)) co_return;
    co_await atomic_step(w, check, "FAA +3 wrapping past 2^64", w.faa(x, 3), 0xFFFFFFFFFFFFFFFEull,
                         1);
    co_await atomic_step(w, check, "FAA +(2^64-1), i.e. -1", w.faa(x, ~uint64_t{0}), 1, 0);
  });
}

void masked_cas(Env& env) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  RemoteAddr x = env.alloc(*b, 0, 8, 8);
  if (x.is_null()) return;
  const bool supported = b->capabilities().masked_atomics;
  Check& check = env.check;
  b->spawn(at(0), [&check, x, supported](Worker& w) -> Task<void> {
    const uint64_t v0 = 0xAAAABBBBCCCCDDDDull, v1 = 0xAAAABBBB3333DDDDull;
    if (!co_await set_word(w, check, x, v0)) co_return;
    // Compares the top 16 bits only, swaps bits 16..31 only.
    auto match = w.masked_cas(x, 0xAAAA123456789ABCull, 0x1111222233334444ull,
                              0xFFFF000000000000ull, 0x00000000FFFF0000ull);
    // Compares the low 16 bits, which differ.
    auto differ = w.masked_cas(x, 0xDDDE, 0, 0xFFFF, ~uint64_t{0});
    if (!supported) {
      co_await unsupported_step(w, check, "masked CAS", match, v0);
      co_await unsupported_step(w, check, "masked CAS", differ, v0);
      co_return;
    }
    co_await atomic_step(w, check, "masked CAS matching in the compared bits", match, v0, v1);
    co_await atomic_step(w, check, "masked CAS differing in the compared bits", differ, v1, v1);
  });
  require_within_budget(b->run());
  if (!supported && !check.failed()) check.note("unsupported, as reported");
}

void masked_faa(Env& env) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  RemoteAddr x = env.alloc(*b, 0, 8, 8);
  if (x.is_null()) return;
  const bool supported = b->capabilities().masked_atomics;
  Check& check = env.check;
  b->spawn(at(0), [&check, x, supported](Worker& w) -> Task<void> {
    const uint64_t halves = (uint64_t{1} << 31) | (uint64_t{1} << 63);
    const uint64_t bytes = 0x8080808080808080ull;
    struct Step {
      const char* what;
      uint64_t before, add, fields, after;
    };
    const Step steps[] = {
        {"masked FAA +1 on the low 32-bit field, wrapping without carry", 0x00000005FFFFFFFFull, 1,
         halves, 0x0000000500000000ull},
        {"masked FAA adding to both 32-bit fields", 0x0000000500000000ull, 0x0000000100000001ull,
         halves, 0x0000000600000001ull},
        {"masked FAA +1 on each byte", 0x01FF7F8000FF0102ull, 0x0101010101010101ull, bytes,
         0x0200808101000203ull},
        {"masked FAA with no field bits: a 64-bit add", ~uint64_t{0}, 2, 0, 1},
    };
    for (const Step& s : steps) {
      if (!co_await set_word(w, check, x, s.before)) co_return;
      auto op = w.masked_faa(x, s.add, s.fields);
      if (supported)
        co_await atomic_step(w, check, s.what, op, s.before, s.after);
      else
        co_await unsupported_step(w, check, s.what, op, s.before);
    }
  });
  require_within_budget(b->run());
  if (!supported && !check.failed()) check.note("unsupported, as reported");
}

void batch_mixed(Env& env) {
  Check& check = env.check;
  run_single(env, 512, [&check](Worker& w, RemoteAddr x) -> Task<void> {
    const RemoteAddr a = x, bw = x + 128, c = x + 192, d = x + 256, e = x + 320;
    std::vector<uint8_t> data(100), preset(64), seen_a(100), seen_e(64);
    fill_pattern(&data, 7);
    fill_pattern(&preset, 8);
    Batch setup;
    const uint64_t b0 = 0x10, c0 = 10, d0 = 0x77;
    setup.write(bw, &b0, 8);
    setup.write(c, &c0, 8);
    setup.write(d, &d0, 8);
    setup.write(e, preset.data(), 64);
    if (!check.status("set-up batch of 4 WRITEs", co_await w.execute(setup), Status::kOk))
      co_return;
    uint64_t seen_c = 0;
    Batch batch;
    batch.write(a, data.data(), 100);
    batch.cas(bw, 0x10, 0x20);
    batch.faa(c, 5);
    batch.cas(d, 0x76, 0x99);  // fails: d holds 0x77
    batch.read(seen_e.data(), e, 64);
    batch.read(seen_a.data(), a, 100);  // after the WRITE on the same queue pair
    batch.faa(c, 7);
    batch.read(&seen_c, c, 8);  // after both FAAs
    if (!check.status("mixed batch of 8", co_await w.execute(batch), Status::kOk)) co_return;
    for (uint32_t i = 0; i < batch.size(); ++i)
      check.status(
          "mixed batch request " + std::to_string(i) + " (" + to_string(batch[i].opcode) + ")",
          batch[i].status, Status::kOk);
    check.eq("batch CAS 0x10->0x20: returned old value", batch[1].old_value, 0x10);
    check.eq("batch first FAA +5: returned old value", batch[2].old_value, 10);
    check.eq("batch failing CAS 0x76->0x99: returned old value", batch[3].old_value, 0x77);
    check.bytes("batch READ of 64 preset bytes", seen_e.data(), preset.data(), 64);
    check.bytes("batch READ after batch WRITE of 100 B", seen_a.data(), data.data(), 100);
    check.eq("batch second FAA +7: returned old value", batch[6].old_value, 15);
    check.eq("batch READ after both FAAs", seen_c, 22);
    uint64_t after[3] = {};
    Batch reads;
    reads.read(&after[0], bw, 8);
    reads.read(&after[1], c, 8);
    reads.read(&after[2], d, 8);
    if (!check.status("READs after the batch", co_await w.execute(reads), Status::kOk)) co_return;
    check.eq("word after batch CAS", after[0], 0x20);
    check.eq("word after batch FAAs", after[1], 22);
    check.eq("word after failed batch CAS (unchanged)", after[2], 0x77);
  });
}

// A name no earlier run used: allocate_shared names may outlive a process on
// a verbs memory node.
std::string fresh_shared_name() {
  static std::atomic<uint64_t> counter{0};
  const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
  return "conformance.shared." + hex(static_cast<uint64_t>(ticks)) + "." +
         std::to_string(counter++);
}

void allocate_shared(Env& env) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  Check& check = env.check;
  const std::string name = fresh_shared_name();
  const RemoteAddr first = b->allocate_shared(0, name, 256);
  if (first.is_null()) {
    check.fail("allocate_shared(0, \"" + name + "\", 256) returned null");
    return;
  }
  check.eq("allocate_shared again with the same name and size: address",
           b->allocate_shared(0, name, 256).raw(), first.raw());
  check.eq("allocate_shared with the same name, size 512: address (must be null)",
           b->allocate_shared(0, name, 512).raw(), 0);
  const RemoteAddr other = b->allocate_shared(0, name + ".other", 256);
  if (other.is_null()) {
    check.fail("allocate_shared of a second name returned null");
    return;
  }
  if (other.node() != first.node() ||
      (other.offset() < first.offset() + 256 && first.offset() < other.offset() + 256))
    check.fail("allocate_shared of two names overlap: " + first.to_string() + " and " +
               other.to_string() + ", 256 B each");
  b->spawn(at(0), [&check, first, other](Worker& w) -> Task<void> {
    std::vector<uint8_t> zeros(256, 0), seen(256), data(256);
    fill_pattern(&data, 3);
    if (check.status("READ of a shared region", co_await w.read(seen.data(), first, 256),
                     Status::kOk))
      check.bytes("a fresh shared region", seen.data(), zeros.data(), 256);
    check.status("WRITE to a shared region", co_await w.write(first, data.data(), 256),
                 Status::kOk);
    if (check.status("READ back a shared region", co_await w.read(seen.data(), first, 256),
                     Status::kOk))
      check.bytes("a shared region after WRITE", seen.data(), data.data(), 256);
    if (check.status("READ of the other shared region", co_await w.read(seen.data(), other, 256),
                     Status::kOk))
      check.bytes("the other shared region after a WRITE to the first", seen.data(), zeros.data(),
                  256);
  });
  require_within_budget(b->run());
}

// Structures skip writing zeros at set-up (an initial image is written only
// where it is not zero), so every backend must hand out zeroed host memory.
void allocate_zeroed(Env& env) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  Check& check = env.check;
  constexpr uint64_t kBytes = 3 * 4096 + 192;  // pages and a partial page
  const RemoteAddr small = env.alloc(*b, 0, 64);
  const RemoteAddr large = env.alloc(*b, 0, kBytes, 4096);
  if (small.is_null() || large.is_null()) return;
  std::vector<uint8_t> zeros(kBytes, 0), seen(kBytes, 0xee);
  b->host_read(large, seen.data(), kBytes);
  check.bytes("host_read of a fresh allocation", seen.data(), zeros.data(), kBytes);
  b->spawn(at(0), [&check, &zeros, small, large](Worker& w) -> Task<void> {
    std::vector<uint8_t> got(kBytes, 0xee);
    if (check.status("READ of a fresh 64 B allocation", co_await w.read(got.data(), small, 64),
                     Status::kOk))
      check.bytes("a fresh 64 B allocation", got.data(), zeros.data(), 64);
    if (check.status("READ of a fresh allocation", co_await w.read(got.data(), large, kBytes),
                     Status::kOk))
      check.bytes("a fresh allocation", got.data(), zeros.data(), kBytes);
  });
  require_within_budget(b->run());
}

void device_memory(Env& env) {
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  Check& check = env.check;
  if (!b->capabilities().device_memory) {
    check.skip("the backend has no device memory (capabilities().device_memory is false)");
    return;
  }
  const RemoteAddr dm = b->allocate_device_memory(0, 64);
  if (dm.is_null()) {
    check.fail("allocate_device_memory(0, 64) returned null though capabilities().device_memory");
    return;
  }
  b->spawn(at(0), [&check, dm](Worker& w) -> Task<void> {
    if (!co_await set_word(w, check, dm, 5)) co_return;
    co_await atomic_step(w, check, "device memory FAA +3", w.faa(dm, 3), 5, 8);
    co_await atomic_step(w, check, "device memory CAS 8->0xabcdef", w.cas(dm, 8, 0xABCDEF), 8,
                         0xABCDEF);
    co_await atomic_step(w, check, "device memory failing CAS", w.cas(dm, 8, 1), 0xABCDEF,
                         0xABCDEF);
    std::vector<uint8_t> data(56), seen(56);
    fill_pattern(&data, 4);
    check.status("device memory WRITE 56 B", co_await w.write(dm + 8, data.data(), 56),
                 Status::kOk);
    if (check.status("device memory READ 56 B", co_await w.read(seen.data(), dm + 8, 56),
                     Status::kOk))
      check.bytes("device memory READ after WRITE", seen.data(), data.data(), 56);
  });
  require_within_budget(b->run());
}

void two_nodes(Env& env) {
  if (env.base.memory_nodes < 2) {
    env.check.skip("needs 2 memory nodes, the config has 1");
    return;
  }
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr x0 = env.alloc(*b, 0, 64), x1 = env.alloc(*b, 1, 64);
  if (x0.is_null() || x1.is_null()) return;
  b->spawn(at(0), [&check, x0, x1](Worker& w) -> Task<void> {
    std::vector<uint8_t> d0(64), d1(64), seen(64);
    fill_pattern(&d0, 10);
    fill_pattern(&d1, 11);
    check.status("WRITE to node 0", co_await w.write(x0, d0.data(), 64), Status::kOk);
    check.status("WRITE to node 1", co_await w.write(x1, d1.data(), 64), Status::kOk);
    if (check.status("READ from node 0", co_await w.read(seen.data(), x0, 64), Status::kOk))
      check.bytes("node 0 after WRITEs to both nodes", seen.data(), d0.data(), 64);
    if (check.status("READ from node 1", co_await w.read(seen.data(), x1, 64), Status::kOk))
      check.bytes("node 1 after WRITEs to both nodes", seen.data(), d1.data(), 64);
    uint64_t w0, w1;
    std::memcpy(&w0, d0.data(), 8);
    std::memcpy(&w1, d1.data(), 8);
    co_await atomic_step(w, check, "FAA +1 on node 0", w.faa(x0, 1), w0, w0 + 1);
    co_await atomic_step(w, check, "FAA +2 on node 1", w.faa(x1, 2), w1, w1 + 2);
  });
  require_within_budget(b->run());
}

// Worker::execute_all: batches to two nodes (and a second one to node 0)
// posted together, awaited once: each request gets its own result, and the
// await ends after the last. A mixed-node batch fails the await untouched.
void execute_all_nodes(Env& env) {
  if (env.base.memory_nodes < 2) {
    env.check.skip("needs 2 memory nodes, the config has 1");
    return;
  }
  auto b = env.backend(env.shape(1, 2));
  if (!b) return;
  Check& check = env.check;
  const RemoteAddr x0 = env.alloc(*b, 0, 64), y0 = env.alloc(*b, 0, 64), x1 = env.alloc(*b, 1, 64);
  if (x0.is_null() || y0.is_null() || x1.is_null()) return;
  b->spawn(at(0), [&check, x0, y0, x1](Worker& w) -> Task<void> {
    std::vector<uint8_t> d0(64), d1(64), seen0(64), seen1(64);
    fill_pattern(&d0, 20);
    fill_pattern(&d1, 21);
    Batch writes0, writes1;
    writes0.write(x0, d0.data(), 64);
    writes0.faa(y0, 5);
    writes1.write(x1, d1.data(), 64);
    Batch* both[] = {&writes0, &writes1};
    if (!check.status("execute_all of WRITEs to nodes 0 and 1", co_await w.execute_all(both), Status::kOk))
      co_return;
    check.eq("FAA's old value in the first batch", writes0[1].old_value, 0);
    Batch reads0, reads1, more0;
    reads0.read(seen0.data(), x0, 64);
    reads1.read(seen1.data(), x1, 64);
    more0.faa(y0, 1);
    Batch* three[] = {&reads0, &reads1, &more0};
    if (check.status("execute_all of READs from both nodes and an FAA", co_await w.execute_all(three),
                     Status::kOk)) {
      check.bytes("node 0 read back", seen0.data(), d0.data(), 64);
      check.bytes("node 1 read back", seen1.data(), d1.data(), 64);
      check.eq("FAA after FAA +5", more0[0].old_value, 5);
    }
    Batch mixed;
    uint64_t buf = 0;
    mixed.read(&buf, x0, 8);
    mixed.read(&buf, x1, 8);
    Batch* bad[] = {&reads0, &mixed};
    check.status("execute_all with a two-node batch", co_await w.execute_all(bad), Status::kWrongNode);
    check.status("execute_all of nothing", co_await w.execute_all({}), Status::kBadLength);
    std::vector<Batch*> too_many(Worker::kMaxBatchesAwaited + 1, &reads0);
    check.status("execute_all of more than kMaxBatchesAwaited batches", co_await w.execute_all(too_many),
                 Status::kBadLength);
  });
  // The other coroutine keeps the thread busy meanwhile: the await must not
  // resume early on its completions.
  b->spawn(at(0, 1), [&check, y0](Worker& w) -> Task<void> {
    uint64_t v = 0;
    for (int i = 0; i < 20; ++i) check.status("READ by a neighbour", co_await w.read(&v, y0, 8), Status::kOk);
  });
  require_within_budget(b->run());
}

// Worker::call_all: calls to two nodes (two to each) sent together, awaited
// once: every call gets its own status and reply, and the await ends after
// the last reply. A one-way call, none, or too many fail the await untouched.
void call_all_nodes(Env& env) {
  if (env.base.memory_nodes < 2) {
    env.check.skip("needs 2 memory nodes, the config has 1");
    return;
  }
  auto b = env.backend(env.shape(1, 2));
  if (!b) return;
  if (!b->capabilities().rpc) {
    env.check.skip("the backend has no RPC (capabilities().rpc is false)");
    return;
  }
  Check& check = env.check;
  const RemoteAddr x0 = env.alloc(*b, 0, 64), x1 = env.alloc(*b, 1, 64);
  if (x0.is_null() || x1.is_null()) return;
  b->spawn(at(0), [&check, x0, x1](Worker& w) -> Task<void> {
    std::array<std::byte, 200> req0{}, req1{}, rep0{}, rep1{};
    for (size_t k = 0; k < req0.size(); ++k) {
      req0[k] = static_cast<std::byte>(k * 3 + 1);
      req1[k] = static_cast<std::byte>(k * 5 + 2);
    }
    for (uint64_t round = 0; round < 2; ++round) {
      const uint64_t add0[2] = {x0.offset(), 4}, add1[2] = {x1.offset(), 3};
      uint64_t old0 = 99, old1 = 99;
      RpcCall echo0{.node = 0, .handler = kEchoHandler, .request = std::span(req0.data(), 17), .reply = rep0};
      RpcCall echo1{.node = 1, .handler = kEchoHandler, .request = req1, .reply = rep1};
      RpcCall fa0{.node = 0, .handler = kFetchAddHandler, .request = std::as_bytes(std::span(add0)),
                  .reply = std::as_writable_bytes(std::span(&old0, 1))};
      RpcCall fa1{.node = 1, .handler = kFetchAddHandler, .request = std::as_bytes(std::span(add1)),
                  .reply = std::as_writable_bytes(std::span(&old1, 1))};
      RpcCall* all[] = {&echo0, &fa1, &echo1, &fa0};
      if (!check.status("call_all of echo and fetch_add to nodes 0 and 1", co_await w.call_all(all), Status::kOk))
        co_return;
      check.eq("echo to node 0: reply bytes", echo0.reply_bytes, 17);
      check.bytes("echo to node 0: reply", rep0.data(), req0.data(), 17);
      check.eq("echo to node 1: reply bytes", echo1.reply_bytes, req1.size());
      check.bytes("echo to node 1: reply", rep1.data(), req1.data(), req1.size());
      check.eq("fetch_add on node 0: old value", old0, 4 * round);
      check.eq("fetch_add on node 1: old value", old1, 3 * round);
    }
    uint64_t v0 = 0, v1 = 0;
    if (check.status("READ node 0's counter", co_await w.read(&v0, x0, 8), Status::kOk))
      check.eq("node 0's counter after two rounds", v0, 8);
    if (check.status("READ node 1's counter", co_await w.read(&v1, x1, 8), Status::kOk))
      check.eq("node 1's counter after two rounds", v1, 6);
    RpcCall one_way{.node = 0, .handler = kEchoHandler, .request = std::span(req0.data(), 8), .reply = {},
                    .one_way = true};
    RpcCall* bad[] = {&one_way};
    check.status("call_all with a one-way call", co_await w.call_all(bad), Status::kBadLength);
    check.status("call_all of nothing", co_await w.call_all({}), Status::kBadLength);
    RpcCall echo{.node = 0, .handler = kEchoHandler, .request = std::span(req0.data(), 8), .reply = rep0};
    std::vector<RpcCall*> too_many(Worker::kMaxCallsAwaited + 1, &echo);
    check.status("call_all of more than kMaxCallsAwaited calls", co_await w.call_all(too_many), Status::kBadLength);
  });
  // The other coroutine calls meanwhile: the await must not resume early on
  // its replies.
  b->spawn(at(0, 1), [&check](Worker& w) -> Task<void> {
    std::array<std::byte, 32> req{}, rep{};
    for (int i = 0; i < 20; ++i) {
      req[0] = static_cast<std::byte>(i);
      const Result<uint32_t> r = co_await w.call(static_cast<NodeId>(i % 2), kEchoHandler, req, rep);
      if (check.status("echo by a neighbour", r.status, Status::kOk))
        check.eq("its reply's first byte", static_cast<uint64_t>(rep[0]), static_cast<uint64_t>(req[0]));
    }
  });
  require_within_budget(b->run());
}

}  // namespace

std::vector<CaseDef> results_cases() {
  return {
      {"results", "read-write-sizes",
       "WRITE then READ at 1..65536 B, aligned and odd offsets; neighbouring bytes untouched",
       read_write_sizes},
      {"results", "host-access", "host_write/host_read/host_store agree with READ/WRITE/FAA",
       host_access},
      {"results", "cas-success", "a matching CAS returns the old value and swaps", cas_success},
      {"results", "cas-failure", "a failing CAS returns the current value and changes nothing",
       cas_failure},
      {"results", "faa", "FAA returns the old value and adds with 64-bit carries", faa_adds},
      {"results", "faa-wrap", "FAA wraps modulo 2^64", faa_wraps},
      {"results", "masked-cas",
       "masked CAS compares and swaps only the masked bits (or kUnsupported, as reported)",
       masked_cas},
      {"results", "masked-faa",
       "masked FAA adds within fields, dropping carries at field tops (or kUnsupported)",
       masked_faa},
      {"results", "batch-mixed", "each request of a mixed Batch gets its own result", batch_mixed},
      {"results", "allocate-shared",
       "allocate_shared: same name gives the same zeroed region, another size gives null",
       allocate_shared},
      {"results", "allocate-zeroed",
       "allocate hands out zeroed host memory (set-up writes only non-zero initial words)",
       allocate_zeroed},
      {"results", "device-memory", "device memory serves READ, WRITE, CAS and FAA", device_memory},
      {"results", "two-nodes", "two memory nodes keep their own data (needs 2 memory nodes)",
       two_nodes},
      {"results", "execute-all",
       "batches to several nodes awaited together: each request's result, one resume (needs 2 memory nodes)",
       execute_all_nodes},
      {"results", "call-all",
       "RPC calls to several nodes awaited together: each call's reply, one resume (needs 2 memory nodes)",
       call_all_nodes},
  };
}

}  // namespace lw::conformance
