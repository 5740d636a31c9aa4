// When the simulator's NIC touches requester memory: a WRITE's source is read
// at post, or (write_payload_late) when the NIC executes it, line by line in
// address order; a READ's destination is written when its response arrives,
// in posting order per queue pair, never at fetch time.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "latchwork/sim/relaxation_log.h"
#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

constexpr Placement compute(uint32_t node) { return {Placement::Kind::kCompute, node, 0, 0}; }

ClusterConfig small(const std::string& profile, uint64_t seed) {
  ClusterConfig c;
  EXPECT_EQ(c.set_profile(profile), "");
  c.seed = seed;
  c.compute_nodes = 1;
  c.threads_per_node = 1;
  c.coroutines_per_thread = 1;
  c.memory_nodes = 1;
  c.memory_node_bytes = 1 << 16;
  return c;
}

struct Sent {
  std::array<uint64_t, 4> lines{};  // the first word of each line that landed
  size_t late_events = 0;           // write_payload_late events logged
  uint64_t hash = 0;
};

// Posts a 4-line WRITE of 1s unsignaled, waits `change_after` ns, overwrites
// the source with 2s, then completes the WRITE with a READ on the same queue
// pair (the source stays alive until then).
Sent write_then_change(const ClusterConfig& c, Nanos change_after) {
  SimBackend sim(c);
  RelaxationLog log;
  sim.set_relaxation_log(&log);
  RemoteAddr x = sim.allocate(0, 256, 64);
  sim.spawn(compute(0), [x, change_after](Worker& w) -> Task<void> {
    std::vector<uint64_t> src(32, 1);
    uint64_t sink = 0;
    Batch b;
    b.write(x, src.data(), 256);
    EXPECT_EQ(w.post(b), Status::kOk);
    if (change_after > 0) co_await w.sleep(change_after);
    std::fill(src.begin(), src.end(), 2);
    EXPECT_EQ(co_await w.read(&sink, x, 8), Status::kOk);
  });
  Sent s;
  s.hash = sim.run().trace_hash;
  for (int i = 0; i < 4; ++i) s.lines[i] = sim.host_load(x + 64 * i);
  s.late_events = log.count("write_payload_late");
  return s;
}

TEST(WritePayloadLate, AChangeRightAfterPostIsSentOnlyWithTheSwitch) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    // The NIC reads no earlier than the post; the change is made before the
    // coroutine yields, so with the switch every line carries it.
    Sent spec = write_then_change(small("spec", seed), 0);
    EXPECT_EQ(spec.lines, (std::array<uint64_t, 4>{2, 2, 2, 2})) << "seed " << seed;
    EXPECT_EQ(spec.late_events, 4u);
    for (const char* profile : {"sequential"}) {
      Sent s = write_then_change(small(profile, seed), 0);
      EXPECT_EQ(s.lines, (std::array<uint64_t, 4>{1, 1, 1, 1})) << profile;
      EXPECT_EQ(s.late_events, 0u);
    }
    ClusterConfig off = small("spec", seed);
    off.semantics.write_payload_late = false;
    Sent o = write_then_change(off, 0);
    EXPECT_EQ(o.lines, (std::array<uint64_t, 4>{1, 1, 1, 1}));
    EXPECT_EQ(o.late_events, 0u);
  }
}

TEST(WritePayloadLate, LinesAreReadInAddressOrderSoAChangeSplitsThemOldThenNew) {
  // A change while the NIC reads: an old prefix and a new suffix, never the
  // reverse (the DMA reads the lines in address order).
  uint64_t mixed = 0, all_old = 0, all_new = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    ClusterConfig c = small("spec", seed);
    Sent s = write_then_change(c, 100 + seed * 13 % 2000);
    const auto first_new = std::find(s.lines.begin(), s.lines.end(), 2u);
    EXPECT_TRUE(std::all_of(s.lines.begin(), first_new, [](uint64_t v) { return v == 1; }) &&
                std::all_of(first_new, s.lines.end(), [](uint64_t v) { return v == 2; }))
        << "seed " << seed << ": " << s.lines[0] << s.lines[1] << s.lines[2] << s.lines[3];
    const size_t changed = static_cast<size_t>(s.lines.end() - first_new);
    EXPECT_EQ(s.late_events, changed) << "each line sent changed is logged";
    if (changed == 0) ++all_old;
    else if (changed == 4) ++all_new;
    else ++mixed;
  }
  EXPECT_GT(mixed, 0u);
  EXPECT_GT(all_old, 0u);
  EXPECT_GT(all_new, 0u);
}

TEST(WritePayloadLate, OffLeavesTracesOfProgramsWithoutWritesAlone) {
  // The switch draws only for WRITEs: a READ-only run is the same execution.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    uint64_t hashes[2];
    for (int on = 0; on < 2; ++on) {
      ClusterConfig c = small("spec", seed);
      c.semantics.write_payload_late = on == 1;
      SimBackend sim(c);
      RemoteAddr x = sim.allocate(0, 1024);
      sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
        std::vector<std::byte> buf(1024);
        for (int i = 0; i < 8; ++i) EXPECT_EQ(co_await w.read(buf.data(), x, 1024), Status::kOk);
      });
      hashes[on] = sim.run().trace_hash;
    }
    EXPECT_EQ(hashes[0], hashes[1]) << "seed " << seed;
  }
}

// Posts an unsignaled READ of 8 ones and polls the destination every 10 ns:
// returns how long after the post the data became visible.
Nanos read_visible_after(const ClusterConfig& c) {
  SimBackend sim(c);
  RemoteAddr x = sim.allocate(0, 64);
  sim.host_store(x, 1);
  Nanos visible = 0;
  sim.spawn(compute(0), [x, &visible](Worker& w) -> Task<void> {
    uint64_t v = 0;
    Batch b;
    b.read(&v, x, 8);
    const Nanos posted = w.now();
    EXPECT_EQ(w.post(b), Status::kOk);
    for (int i = 0; i < 100'000 && v == 0; ++i) co_await w.sleep(10);
    EXPECT_EQ(v, 1u);
    visible = w.now() - posted;
  });
  sim.run();
  return visible;
}

TEST(ReadResponse, DestinationIsWrittenWhenTheResponseArrivesNotAtFetch) {
  // Request and response each cross the network once: the data cannot be at
  // the requester before two one-way latencies (it used to appear after one,
  // when the responder fetched it).
  for (const char* profile : {"spec", "connectx", "sequential"}) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      ClusterConfig c = small(profile, seed);
      c.timing.jitter_ns = 0;
      EXPECT_GE(read_visible_after(c), 2 * c.timing.one_way_ns) << profile << " seed " << seed;
    }
  }
}

}  // namespace
}  // namespace lw
