// Conformance cases "misuse": a bad request completes with the status a NIC
// would give (the statuses NodeMemory::check assigns), touches no memory, and
// leaves the queue pair usable for the next request.
#include <cstring>

#include "conformance_internal.h"

namespace lw::conformance {
namespace {

// One coroutine with a 64-byte region `x` and a scratch word for the
// usability probes; `body(w, x, scratch)`.
template <typename Body>
void run_misuse(Env& env, const ClusterConfig& c, Body body) {
  auto b = env.backend(c);
  if (!b) return;
  const RemoteAddr x = env.alloc(*b, 0, 64), scratch = env.alloc(*b, 0, 64);
  if (x.is_null() || scratch.is_null()) return;
  b->spawn(at(0), [x, scratch, body](Worker& w) -> Task<void> { co_await body(w, x, scratch); });
  require_within_budget(b->run());
}

// READs `n` bytes at `x` and compares them with `want`.
Task<void> expect_bytes(Worker& w, Check& check, std::string what, RemoteAddr x, const void* want,
                        uint32_t n) {
  std::vector<uint8_t> seen(n);
  if (check.status("READ of " + what, co_await w.read(seen.data(), x, n), Status::kOk))
    check.bytes(what, seen.data(), want, n);
}

void out_of_bounds(Env& env) {
  Check& check = env.check;
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  // The end of the registered host memory, as the config describes the node.
  const uint64_t end = align_up(b->config().memory_node_bytes, kCacheLine);
  const RemoteAddr scratch = env.alloc(*b, 0, 64);
  if (scratch.is_null()) return;
  if (scratch.offset() + 64 > end) {
    check.fail("allocate returned " + scratch.to_string() + ", beyond the node's end at " +
               hex(end) + " (config().memory_node_bytes = " + hex(b->config().memory_node_bytes) +
               ")");
    return;
  }
  const RemoteAddr last = RemoteAddr(0, end - 8);
  // Where the end comes from, for a failure on a node of another size.
  const std::string whose = " (node end " + hex(end) + " from config().memory_node_bytes)";
  b->spawn(at(0), [&check, scratch, last, whose](Worker& w) -> Task<void> {
    uint64_t before = 0, buf[2] = {0, 0};
    const uint64_t v = 0xBADBADBADBADull;
    if (!check.status("READ of the node's last word at " + last.to_string() + whose,
                      co_await w.read(&before, last, 8), Status::kOk))
      co_return;
    check.status("READ of 16 B at " + last.to_string() + " past the node's end" + whose,
                 co_await w.read(buf, last, 16), Status::kOutOfBounds);
    co_await expect_usable(w, scratch, check, "an out-of-bounds READ");
    check.status("WRITE of 8 B at " + (last + 4).to_string() + " past the node's end" + whose,
                 co_await w.write(last + 4, &v, 8), Status::kOutOfBounds);
    co_await expect_usable(w, scratch, check, "an out-of-bounds WRITE");
    co_await expect_bytes(w, check, "the last word after a rejected WRITE over it", last, &before,
                          8);
  });
  require_within_budget(b->run());
}

void misaligned_atomic(Env& env) {
  Check& check = env.check;
  run_misuse(
      env, env.shape(1, 1), [&check](Worker& w, RemoteAddr x, RemoteAddr scratch) -> Task<void> {
        const uint64_t init[2] = {0x1111111111111111ull, 0x2222222222222222ull};
        if (!check.status("WRITE 16 B (set-up)", co_await w.write(x, init, 16), Status::kOk))
          co_return;
        check.status("CAS at offset +4", (co_await w.cas(x + 4, 0x11111111, 1)).status,
                     Status::kMisaligned);
        co_await expect_usable(w, scratch, check, "a misaligned CAS");
        check.status("FAA at offset +1", (co_await w.faa(x + 1, 1)).status, Status::kMisaligned);
        co_await expect_usable(w, scratch, check, "a misaligned FAA");
        check.status("FAA at offset +12", (co_await w.faa(x + 12, 1)).status, Status::kMisaligned);
        co_await expect_usable(w, scratch, check, "a misaligned FAA");
        co_await expect_bytes(w, check, "16 B after rejected misaligned atomics", x, init, 16);
      });
}

void zero_length(Env& env) {
  Check& check = env.check;
  run_misuse(env, env.shape(1, 1),
             [&check](Worker& w, RemoteAddr x, RemoteAddr scratch) -> Task<void> {
               uint64_t buf = 0;
               check.status("READ of 0 B", co_await w.read(&buf, x, 0), Status::kBadLength);
               co_await expect_usable(w, scratch, check, "a zero-length READ");
             });
}

void wrong_node(Env& env) {
  Check& check = env.check;
  const NodeId missing = static_cast<NodeId>(env.base.memory_nodes);
  run_misuse(env, env.shape(1, 1),
             [&check, missing](Worker& w, RemoteAddr x, RemoteAddr scratch) -> Task<void> {
               const RemoteAddr bad(missing, x.offset());
               uint64_t buf = 0, v = 1;
               const std::string where =
                   " on node " + std::to_string(missing) + " (no such memory node)";
               check.status("READ" + where, co_await w.read(&buf, bad, 8), Status::kWrongNode);
               co_await expect_usable(w, scratch, check, "a READ to a missing node");
               check.status("WRITE" + where, co_await w.write(bad, &v, 8), Status::kWrongNode);
               co_await expect_usable(w, scratch, check, "a WRITE to a missing node");
               check.status("FAA" + where, (co_await w.faa(bad, 1)).status, Status::kWrongNode);
               co_await expect_usable(w, scratch, check, "an FAA to a missing node");
             });
}

void batch_two_nodes(Env& env) {
  Check& check = env.check;
  auto b = env.backend(env.shape(1, 1));
  if (!b) return;
  const RemoteAddr x = env.alloc(*b, 0, 64), scratch = env.alloc(*b, 0, 64);
  // A second real node when there is one, else a node id that exists nowhere.
  const RemoteAddr other = env.base.memory_nodes >= 2
                               ? env.alloc(*b, 1, 64)
                               : RemoteAddr(static_cast<NodeId>(env.base.memory_nodes), 4096);
  if (x.is_null() || scratch.is_null() || other.is_null()) return;
  b->spawn(at(0), [&check, x, scratch, other](Worker& w) -> Task<void> {
    const uint64_t v0 = 0x0F0F0F0F, v1 = 0xF0F0F0F0;
    uint64_t buf = 0;
    if (!check.status("WRITE (set-up)", co_await w.write(x, &v0, 8), Status::kOk)) co_return;
    Batch mixed;
    mixed.write(x, &v1, 8);
    mixed.read(&buf, other, 8);
    check.status("execute of [WRITE node 0, READ node " + std::to_string(other.node()) + "]",
                 co_await w.execute(mixed), Status::kWrongNode);
    co_await expect_usable(w, scratch, check, "a batch spanning two nodes");
    check.status("post of [WRITE node 0, READ node " + std::to_string(other.node()) + "]",
                 w.post(mixed), Status::kWrongNode);
    co_await expect_usable(w, scratch, check, "a posted batch spanning two nodes");
    co_await expect_bytes(w, check, "word after rejected two-node batches", x, &v0, 8);
  });
  require_within_budget(b->run());
}

void queue_full(Env& env) {
  Check& check = env.check;
  ClusterConfig c = env.shape(1, 1);
  c.queue_depth = 4;
  run_misuse(env, c, [&check](Worker& w, RemoteAddr x, RemoteAddr scratch) -> Task<void> {
    const uint64_t zeros[5] = {}, ones[5] = {1, 2, 3, 4, 5};
    if (!check.status("WRITE 40 B (set-up)", co_await w.write(x, zeros, 40), Status::kOk))
      co_return;
    Batch five;
    for (int i = 0; i < 5; ++i) five.write(x + 8 * i, &ones[i], 8);
    check.status("execute of 5 WRITEs with queue_depth 4", co_await w.execute(five),
                 Status::kQueueFull);
    co_await expect_usable(w, scratch, check, "a batch deeper than the queue");
    co_await expect_bytes(w, check, "40 B after a rejected 5-WRITE batch", x, zeros, 40);
    check.status("post of 5 WRITEs with queue_depth 4", w.post(five), Status::kQueueFull);
    co_await expect_usable(w, scratch, check, "a posted batch deeper than the queue");
    co_await expect_bytes(w, check, "40 B after a rejected posted 5-WRITE batch", x, zeros, 40);
    Batch four;
    for (int i = 0; i < 4; ++i) four.write(x + 8 * i, &ones[i], 8);
    check.status("execute of 4 WRITEs with queue_depth 4", co_await w.execute(four), Status::kOk);
    const uint64_t want[5] = {1, 2, 3, 4, 0};
    co_await expect_bytes(w, check, "40 B after a 4-WRITE batch", x, want, 40);
  });
}

void null_address(Env& env) {
  Check& check = env.check;
  run_misuse(env, env.shape(1, 1),
             [&check](Worker& w, RemoteAddr, RemoteAddr scratch) -> Task<void> {
               uint64_t buf = 0, v = 1;
               // Offsets below 4096 are reserved so that no valid address is null.
               for (uint64_t off : {uint64_t{0}, uint64_t{8}, uint64_t{4088}}) {
                 const RemoteAddr a(0, off);
                 check.status("READ at reserved " + a.to_string(), co_await w.read(&buf, a, 8),
                              Status::kUnregistered);
                 co_await expect_usable(w, scratch, check, "a READ of a reserved address");
               }
               check.status("WRITE at reserved offset 64",
                            co_await w.write(RemoteAddr(0, 64), &v, 8), Status::kUnregistered);
               co_await expect_usable(w, scratch, check, "a WRITE to a reserved address");
               check.status("FAA at the null address", (co_await w.faa(RemoteAddr(), 1)).status,
                            Status::kUnregistered);
               co_await expect_usable(w, scratch, check, "an FAA on the null address");
             });
}

}  // namespace

std::vector<CaseDef> misuse_cases() {
  return {
      {"misuse", "out-of-bounds", "READ/WRITE past the node's registered end: out_of_bounds",
       out_of_bounds},
      {"misuse", "misaligned-atomic", "CAS/FAA not 8-byte aligned: misaligned, memory unchanged",
       misaligned_atomic},
      {"misuse", "zero-length-read", "a zero-length READ: bad_length", zero_length},
      {"misuse", "wrong-node", "READ/WRITE/FAA to a memory node that does not exist: wrong_node",
       wrong_node},
      {"misuse", "batch-two-nodes", "a batch naming two memory nodes: wrong_node, nothing executed",
       batch_two_nodes},
      {"misuse", "queue-full", "a batch deeper than queue_depth: queue_full, nothing executed",
       queue_full},
      {"misuse", "null-address", "READ/WRITE/FAA at reserved offsets 0..4095: unregistered",
       null_address},
  };
}

}  // namespace lw::conformance
