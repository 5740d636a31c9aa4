// The threads backend's request path: statuses equal to NodeMemory's check,
// byte-exact copies for any offset and length, atomics' results, 64-byte
// line atomicity and atomics that stay atomic among themselves under real
// concurrency, in normal and adversarial mode; sleeping coroutines wake.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "latchwork/base/assert.h"
#include "latchwork/threads/threads_backend.h"
#include "verbs/node_memory.h"

namespace lw {
namespace {

constexpr uint64_t kNodeBytes = 1 << 20;
constexpr uint64_t kDeviceBytes = 4096;

ClusterConfig config(bool adversarial) {
  ClusterConfig c;
  c.backend = "threads";
  c.memory_nodes = 2;
  c.memory_node_bytes = kNodeBytes;
  c.device_memory_bytes = kDeviceBytes;
  c.threads.adversarial = adversarial;
  return c;
}

class ThreadsMemory : public ::testing::TestWithParam<bool> {};

TEST_P(ThreadsMemory, StatusEqualsNodeMemoryCheck) {
  ThreadsBackend b(config(GetParam()));
  Rng rng(3);
  const uint64_t host = kNodeBytes, dev = NodeMemory::kDeviceBase;
  const std::vector<uint64_t> offsets = {0, 8, 4095, 4096, 4097, 4104, host - 64, host - 9, host - 8,
                                         host - 1, host, host + 8, dev - 8, dev, dev + 3, dev + 8,
                                         dev + kDeviceBytes - 8, dev + kDeviceBytes - 1,
                                         dev + kDeviceBytes, ~uint64_t{0} >> 17};
  const std::vector<uint32_t> lengths = {0, 1, 7, 8, 9, 63, 64, 65, 256, 4096,
                                         kMaxTransferBytes, kMaxTransferBytes + 1};
  std::vector<std::byte> buf(8192);
  int ok = 0;
  for (uint64_t off : offsets) {
    for (uint32_t len : lengths) {
      for (Opcode op : {Opcode::kRead, Opcode::kWrite, Opcode::kCas, Opcode::kFaa}) {
        WorkRequest wr{.opcode = op, .length = len, .remote = RemoteAddr(1, off), .local = buf.data()};
        const bool atomic = is_atomic(op);
        const Status want = NodeMemory::check_access(host, kDeviceBytes, off, atomic ? 8 : len, atomic);
        if (want == Status::kOk) {
          ASSERT_LE(atomic ? 8 : len, buf.size());
        }
        EXPECT_EQ(b.execute_now(wr, rng), want) << to_string(op) << " at " << off << " len " << len;
        EXPECT_EQ(wr.status, want);
        ok += want == Status::kOk;
      }
    }
  }
  EXPECT_GT(ok, 20);  // the grid reaches valid accesses too
  WorkRequest wrong{.opcode = Opcode::kRead, .length = 8, .remote = RemoteAddr(2, 4096), .local = buf.data()};
  EXPECT_EQ(b.execute_now(wrong, rng), Status::kWrongNode);
  WorkRequest no_buffer{.opcode = Opcode::kRead, .length = 8, .remote = RemoteAddr(0, 4096)};
  EXPECT_EQ(b.execute_now(no_buffer, rng), Status::kBadLength);
}

// Random READs and WRITEs at any offset and length against a shadow copy.
void check_copies(ThreadsBackend& b, RemoteAddr base, uint64_t area, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint8_t> shadow(area, 0), buf(area), got(area);
  b.host_write(base, shadow.data(), area);
  for (int i = 0; i < 4000; ++i) {
    const uint64_t off = rng.below(area);
    const uint32_t len = static_cast<uint32_t>(1 + rng.below(std::min<uint64_t>(300, area - off)));
    if (rng.below(2) == 0) {
      for (uint32_t k = 0; k < len; ++k) buf[k] = static_cast<uint8_t>(rng.next());
      WorkRequest wr{.opcode = Opcode::kWrite, .length = len, .remote = base + off, .local = buf.data()};
      ASSERT_EQ(b.execute_now(wr, rng), Status::kOk);
      std::memcpy(shadow.data() + off, buf.data(), len);
    } else {
      WorkRequest wr{.opcode = Opcode::kRead, .length = len, .remote = base + off, .local = got.data()};
      ASSERT_EQ(b.execute_now(wr, rng), Status::kOk);
      ASSERT_EQ(std::memcmp(got.data(), shadow.data() + off, len), 0) << "read at " << off << " len " << len;
    }
  }
  b.host_read(base, got.data(), area);
  EXPECT_EQ(std::memcmp(got.data(), shadow.data(), area), 0);
}

TEST_P(ThreadsMemory, CopiesAreByteExactAtAnyOffset) {
  ThreadsBackend b(config(GetParam()));
  check_copies(b, b.allocate(0, 2048), 2048, 11);
  check_copies(b, b.allocate_device_memory(1, 1024), 1024, 12);
}

TEST_P(ThreadsMemory, AtomicsReturnOldValueAndApply) {
  ThreadsBackend b(config(GetParam()));
  Rng rng(5);
  for (RemoteAddr a : {b.allocate(0, 64), b.allocate_device_memory(0, 64)}) {
    uint64_t shadow = 0;
    for (int i = 0; i < 2000; ++i) {
      WorkRequest wr{.opcode = static_cast<Opcode>(2 + rng.below(4)), .length = 8, .remote = a + 8};
      wr.compare = rng.below(2) ? shadow : rng.next();
      wr.operand = rng.next();
      wr.compare_mask = rng.next();
      wr.swap_mask = rng.next();
      wr.field_mask = rng.next();
      uint64_t want = shadow;
      const bool writes = apply_atomic(wr, shadow, &want);
      ASSERT_EQ(b.execute_now(wr, rng), Status::kOk);
      ASSERT_EQ(wr.old_value, shadow) << to_string(wr.opcode);
      if (writes) shadow = want;
    }
    uint64_t got[2];
    b.host_read(a, got, 16);
    EXPECT_EQ(got[0], 0u);  // the neighbour word is untouched
    EXPECT_EQ(got[1], shadow);
  }
}

// Every byte of a line written by one WRITE carries the same value, so a
// torn line shows as two different bytes in one line.
TEST_P(ThreadsMemory, LinesAreAtomicUnderConcurrentWritersAndReaders) {
  ThreadsBackend b(config(GetParam()));
  constexpr uint64_t kLines = 4;
  const RemoteAddr base = b.allocate(0, kLines * 64);
  const int reads_per_reader = GetParam() ? 3000 : 30000;  // adversarial mode yields per line
  std::atomic<int> readers_done{0};
  std::atomic<uint64_t> torn{0}, writes{0};
  std::vector<std::thread> threads;
  // Writers run until both readers are done (bounded).
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      Rng rng(100 + w);
      std::array<uint8_t, kLines * 64> buf;
      for (int i = 0; i < 100'000'000 && readers_done.load() < 2; ++i) {
        const uint64_t first = rng.below(kLines), n = 1 + rng.below(kLines - first);
        for (uint64_t l = 0; l < n; ++l) std::memset(buf.data() + l * 64, static_cast<int>(rng.next() & 0xff), 64);
        WorkRequest wr{.opcode = Opcode::kWrite, .length = static_cast<uint32_t>(n * 64),
                       .remote = base + first * 64, .local = buf.data()};
        LW_CHECK(b.execute_now(wr, rng) == Status::kOk);
        writes.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      Rng rng(200 + r);
      std::array<uint8_t, kLines * 64> buf;
      for (uint64_t spins = 0; writes.load() < 10; ++spins) {  // overlap the writers
        LW_CHECK(spins < (uint64_t{1} << 32));
        std::this_thread::yield();
      }
      for (int i = 0; i < reads_per_reader; ++i) {
        // Whole lines, or any span inside one line.
        const uint64_t line = rng.below(kLines);
        const uint64_t lo = r == 0 ? 0 : rng.below(64);
        const uint64_t len = r == 0 ? (kLines - line) * 64 : 1 + rng.below(64 - lo);
        WorkRequest wr{.opcode = Opcode::kRead, .length = static_cast<uint32_t>(len),
                       .remote = base + line * 64 + lo, .local = buf.data()};
        LW_CHECK(b.execute_now(wr, rng) == Status::kOk);
        for (uint64_t k = 0; k < len; ++k)
          if (buf[k] != buf[k / 64 * 64]) {
            torn.fetch_add(1);
            break;
          }
      }
      readers_done.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(torn.load(), 0u);
  EXPECT_GT(writes.load(), 0u);
}

// NIC atomics on one word are atomic with each other: no increment is lost.
TEST_P(ThreadsMemory, ConcurrentAtomicsLoseNoUpdate) {
  ThreadsBackend b(config(GetParam()));
  const RemoteAddr host = b.allocate(0, 64), dev = b.allocate_device_memory(0, 64);
  constexpr int kThreads = 4, kOps = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(300 + t);
      for (RemoteAddr a : {host, dev}) {
        for (int i = 0; i < kOps; ++i) {
          if (t % 2 == 0) {
            WorkRequest wr{.opcode = Opcode::kFaa, .length = 8, .remote = a, .operand = 1};
            LW_CHECK(b.execute_now(wr, rng) == Status::kOk);
            continue;
          }
          // CAS increment, retried until it lands (bounded).
          uint64_t seen = 0;
          for (int tries = 0;; ++tries) {
            LW_CHECK(tries < 10'000'000);
            WorkRequest wr{.opcode = Opcode::kCas, .length = 8, .remote = a, .compare = seen, .operand = seen + 1};
            LW_CHECK(b.execute_now(wr, rng) == Status::kOk);
            if (wr.old_value == seen) break;
            seen = wr.old_value;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (RemoteAddr a : {host, dev}) {
    uint64_t v = 0;
    b.host_read(a, &v, 8);
    EXPECT_EQ(v, uint64_t{kThreads} * kOps);
  }
}

// A sleeping coroutine wakes no earlier than asked while others keep working.
TEST_P(ThreadsMemory, SleepersWakeAfterTheirTime) {
  ClusterConfig c = config(GetParam());
  c.coroutines_per_thread = 3;
  ThreadsBackend b(c);
  const RemoteAddr a = b.allocate(0, 64);
  std::atomic<uint64_t> slept_ok{0};
  b.spawn_compute([&](Worker& w) -> Task<void> {
    if (w.placement().coroutine == 0) {
      for (int i = 0; i < 5; ++i) {
        const Nanos before = w.now();
        co_await w.sleep(200'000);
        if (w.now() >= before + 200'000) slept_ok.fetch_add(1);
      }
    } else {
      for (int i = 0; i < 1000; ++i) (void)co_await w.faa(a, 1);
    }
  });
  const RunStats s = b.run();
  EXPECT_EQ(slept_ok.load(), 5u);
  uint64_t v = 0;
  b.host_read(a, &v, 8);
  EXPECT_EQ(v, 2000u);
  EXPECT_EQ(s.verbs, 2000u);
}

INSTANTIATE_TEST_SUITE_P(Modes, ThreadsMemory, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "adversarial" : "normal"; });

}  // namespace
}  // namespace lw
