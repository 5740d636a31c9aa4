// The NIC's atomic unit keeps atomics on one word from overlapping. Entries
// for words whose atomics ended stay until a bulk sweep (sim_ops.cpp,
// release_atomic_unit); these runs touch many more words than the sweep
// threshold (1,024), with hot words shared, so sweeps happen while atomics
// on the hot words are in flight.
#include <gtest/gtest.h>

#include <vector>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

struct Outcome {
  std::vector<uint64_t> words;
  RunStats stats;
};

// 16 threads (each its own queue pair, so their atomics can meet on a word)
// x 2 coroutines; each FAA adds 1 to a hot word (one of 2) or to a cold one
// (one of 8,192), alternating, and CASes cold words.
Outcome run(const char* profile, const char* nic, uint64_t seed) {
  ClusterConfig c;
  c.set_profile(profile);
  if (nic != nullptr) c.nic.profile = nic;
  c.seed = seed;
  c.threads_per_node = 16;
  c.coroutines_per_thread = 2;
  c.memory_node_bytes = 1 << 20;
  SimBackend sim(c);
  constexpr uint64_t kCold = 8192, kHot = 2;
  const RemoteAddr cold = sim.allocate(0, kCold * 8), hot = sim.allocate(0, kHot * 8);
  sim.spawn_compute([&](Worker& w) -> Task<void> {
    for (int i = 0; i < 200; ++i) {
      const RemoteAddr at = i % 2 ? hot + 8 * w.rng().below(kHot) : cold + 8 * w.rng().below(kCold);
      EXPECT_EQ((co_await w.faa(at, 1)).status, Status::kOk);
      const RemoteAddr c2 = cold + 8 * w.rng().below(kCold);
      EXPECT_EQ((co_await w.cas(c2, 0, 0)).status, Status::kOk);  // writes back 0 over 0 only
    }
  });
  Outcome o;
  o.stats = sim.run();
  o.words.resize(kCold + kHot);
  sim.host_read(cold, o.words.data(), kCold * 8);
  sim.host_read(hot, o.words.data() + kCold, kHot * 8);
  return o;
}

uint64_t sum(const std::vector<uint64_t>& v, size_t from, size_t to) {
  uint64_t s = 0;
  for (size_t i = from; i < to; ++i) s += v[i];
  return s;
}

class AtomicUnit : public ::testing::TestWithParam<const char*> {};

// No increment is lost to an overlap, and the run is deterministic. Where
// atomics have a read/write-back window (connectx, spec), an overlap stops
// the run ("two NIC atomics overlapped on one word"): a sweep that dropped
// entries still in use fails here that way.
TEST_P(AtomicUnit, NoAtomicIsLostAcrossSweeps) {
  for (const char* nic : {static_cast<const char*>(nullptr), "cx6-200g"}) {
    const Outcome a = run(GetParam(), nic, 7);
    // 32 workers x 100 FAAs to hot words, 100 to cold ones. A CAS(0, 0) on a
    // cold word that an FAA made non-zero fails and writes nothing.
    EXPECT_EQ(sum(a.words, 8192, 8194), 32u * 100) << (nic ? nic : "simple");
    EXPECT_EQ(sum(a.words, 0, 8192), 32u * 100) << (nic ? nic : "simple");
    const Outcome b = run(GetParam(), nic, 7);
    EXPECT_EQ(a.stats.trace_hash, b.stats.trace_hash);
  }
}

INSTANTIATE_TEST_SUITE_P(Profiles, AtomicUnit, ::testing::Values("sequential", "connectx", "spec"));

}  // namespace
}  // namespace lw
