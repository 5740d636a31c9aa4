#include "litmus/litmus.h"

#include <algorithm>
#include <array>

#include "latchwork/sim/sim_backend.h"

namespace lw {
namespace {

// Random start delays wide enough (a few round trips) for the racing
// operations of a test to overlap in some seeds and not in others.
constexpr Nanos kStartSpread = 3000;

// The trace hash of the execution a test just ran (its run returns only the
// outcome); run_litmus folds it into the report's hash.
thread_local uint64_t g_last_trace_hash = 0;
void record(const RunStats& stats) {
  require_within_budget(stats);
  g_last_trace_hash = stats.trace_hash;
}

ClusterConfig shape(const ClusterConfig& base, uint32_t compute_nodes, uint32_t coroutines,
                    uint32_t memory_threads = 0) {
  ClusterConfig c = base;
  c.backend = "sim";
  c.compute_nodes = compute_nodes;
  c.threads_per_node = 1;
  c.coroutines_per_thread = coroutines;
  c.memory_nodes = 1;
  c.memory_node_threads = memory_threads;
  c.memory_node_bytes = 1 << 16;
  return c;
}

constexpr Placement compute(uint32_t node, uint32_t coroutine = 0) {
  return {Placement::Kind::kCompute, node, 0, coroutine};
}

std::string bits(std::initializer_list<bool> values) {
  std::string s;
  for (bool b : values) s += b ? '1' : '0';
  return s;
}

// A line of 64 bytes all equal to `v`.
std::array<uint64_t, 8> line_of_value(uint64_t v) {
  std::array<uint64_t, 8> a;
  a.fill(v);
  return a;
}

// Is a 64-byte line uniformly `v`?
bool uniform(const uint64_t* line, uint64_t v) {
  return std::all_of(line, line + 8, [v](uint64_t x) { return x == v; });
}

std::string line_atomic(const ClusterConfig& base) {
  SimBackend sim(shape(base, 2, 1));
  RemoteAddr x = sim.allocate(0, 64);
  std::string outcome;
  sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    auto line = line_of_value(1);
    LW_CHECK(ok(co_await w.write(x, line.data(), 64)));
  });
  sim.spawn(compute(1), [x, &outcome](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    uint64_t line[8];
    LW_CHECK(ok(co_await w.read(line, x, 64)));
    outcome = uniform(line, 0) ? "old" : uniform(line, 1) ? "new" : "torn";
  });
  record(sim.run());
  return outcome;
}

// Writer: [WRITE line 1 := 1, WRITE line 0 := 1] on one queue pair (they land
// in that order). Reader: one 2-line READ. Outcome: line0 line1; "10" means
// the READ fetched line 1 before line 0.
std::string read_line_order(const ClusterConfig& base) {
  SimBackend sim(shape(base, 2, 1));
  RemoteAddr x = sim.allocate(0, 128);
  std::string outcome;
  sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    auto line = line_of_value(1);
    Batch b;
    b.write(x + 64, line.data(), 64);
    b.write(x, line.data(), 64);
    LW_CHECK(ok(co_await w.execute(b)));
  });
  sim.spawn(compute(1), [x, &outcome](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    uint64_t lines[16];
    LW_CHECK(ok(co_await w.read(lines, x, 128)));
    outcome = bits({lines[0] == 1, lines[8] == 1});
  });
  record(sim.run());
  return outcome;
}

// Writer: one 16-line WRITE. Reader: [READ line 0, fenced READ line 15] (the
// fence keeps them in order). Outcome: line0 line15; "10" means the start of
// the WRITE was visible before its end.
std::string write_prefix(const ClusterConfig& base) {
  SimBackend sim(shape(base, 2, 1));
  RemoteAddr x = sim.allocate(0, 1024);
  std::string outcome;
  sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    std::vector<uint64_t> all(128, 1);
    LW_CHECK(ok(co_await w.write(x, all.data(), 1024)));
  });
  sim.spawn(compute(1), [x, &outcome](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    uint64_t a = 0, b = 0;
    Batch reads;
    reads.read(&a, x, 8);
    reads.read(&b, x + 15 * 64, 8).fence = true;
    LW_CHECK(ok(co_await w.execute(reads)));
    outcome = bits({a == 1, b == 1});
  });
  record(sim.run());
  return outcome;
}

// Writer: one 2-line WRITE. Reader: READ line 1, then READ line 0.
// Outcome: line1 line0. "10" would mean line 1 landed before line 0.
std::string write_address_order(const ClusterConfig& base) {
  SimBackend sim(shape(base, 2, 1));
  RemoteAddr x = sim.allocate(0, 128);
  std::string outcome;
  sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    std::array<uint64_t, 16> both;
    both.fill(1);
    LW_CHECK(ok(co_await w.write(x, both.data(), 128)));
  });
  sim.spawn(compute(1), [x, &outcome](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    uint64_t a[8], b[8];
    LW_CHECK(ok(co_await w.read(b, x + 64, 64)));
    LW_CHECK(ok(co_await w.read(a, x, 64)));
    outcome = bits({b[0] == 1, a[0] == 1});
  });
  record(sim.run());
  return outcome;
}

// A NIC atomic on x = 0 races a WRITE of 100 from another node. Outcome:
// the final value. An FAA +1: "1" only if it wrote back over the WRITE
// (atomic_loses_write). A CAS 5 -> 7, which fails (x is 0 or 100): "0" only
// if it wrote back the 0 it read over the WRITE (failed_cas_writes_back).
std::string atomic_vs_write(const ClusterConfig& base, bool failing_cas) {
  SimBackend sim(shape(base, 2, 1));
  RemoteAddr x = sim.allocate(0, 8, 8);
  sim.spawn(compute(0), [x, failing_cas](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread / 4));
    Result<uint64_t> r = failing_cas ? co_await w.cas(x, 5, 7) : co_await w.faa(x, 1);
    LW_CHECK(r.ok() && (!failing_cas || r.value != 5));
  });
  sim.spawn(compute(1), [x](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread / 4));
    uint64_t v = 100;
    LW_CHECK(ok(co_await w.write(x, &v, 8)));
  });
  record(sim.run());
  return std::to_string(sim.host_load(x));
}

// NIC FAA +1 races a CPU FAA +1 on the memory node. Outcome: the final value.
std::string atomic_vs_cpu(const ClusterConfig& base) {
  SimBackend sim(shape(base, 1, 1, /*memory_threads=*/1));
  RemoteAddr x = sim.allocate(0, 8, 8);
  sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread / 2));
    LW_CHECK((co_await w.faa(x, 1)).ok());
  });
  sim.spawn({Placement::Kind::kMemory, 0, 0, 0}, [x](Worker& w) -> Task<void> {
    co_await w.sleep(1000 + w.rng().below(kStartSpread / 2));
    LW_CHECK((co_await w.cpu_faa(x, 1)).ok());
  });
  record(sim.run());
  return std::to_string(sim.host_load(x));
}

// Two NIC FAAs from different compute nodes. Outcome: the final value.
std::string atomics_atomic(const ClusterConfig& base) {
  SimBackend sim(shape(base, 2, 1));
  RemoteAddr x = sim.allocate(0, 8, 8);
  auto add = [x](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread / 8));
    LW_CHECK((co_await w.faa(x, 1)).ok());
  };
  sim.spawn(compute(0), add);
  sim.spawn(compute(1), add);
  record(sim.run());
  return std::to_string(sim.host_load(x));
}

// One queue pair: [READ x, WRITE x := 1] posted together. Outcome: what the READ saw.
std::string read_then_write(const ClusterConfig& base, bool fence) {
  SimBackend sim(shape(base, 1, 1));
  RemoteAddr x = sim.allocate(0, 8, 8);
  std::string outcome;
  sim.spawn(compute(0), [x, fence, &outcome](Worker& w) -> Task<void> {
    uint64_t seen = 0, one = 1;
    Batch b;
    b.read(&seen, x, 8);
    b.write(x, &one, 8).fence = fence;
    LW_CHECK(ok(co_await w.execute(b)));
    outcome = std::to_string(seen);
  });
  record(sim.run());
  return outcome;
}

// Writer: [x := 1, y := 1] on one queue pair. Reader: [READ y, READ x] on one queue pair.
// Outcome: y x. "10" means the second READ executed before the first.
std::string reads_unordered(const ClusterConfig& base) {
  SimBackend sim(shape(base, 2, 1));
  RemoteAddr x = sim.allocate(0, 64), y = sim.allocate(0, 64);
  std::string outcome;
  sim.spawn(compute(0), [x, y](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    static const uint64_t one = 1;
    Batch b;  // one queue pair: x lands before y
    b.write(x, &one, 8);
    b.write(y, &one, 8);
    LW_CHECK(ok(co_await w.execute(b)));
  });
  sim.spawn(compute(1), [x, y, &outcome](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread));
    uint64_t vy = 0, vx = 0;
    Batch b;
    b.read(&vy, y, 8);
    b.read(&vx, x, 8);
    LW_CHECK(ok(co_await w.execute(b)));
    outcome = bits({vy == 1, vx == 1});
  });
  record(sim.run());
  return outcome;
}

// One queue pair: [FAA x += 1, READ x]. Outcome: what the READ saw.
std::string atomic_before_read(const ClusterConfig& base) {
  SimBackend sim(shape(base, 1, 1));
  RemoteAddr x = sim.allocate(0, 8, 8);
  std::string outcome;
  sim.spawn(compute(0), [x, &outcome](Worker& w) -> Task<void> {
    uint64_t seen = 7;
    Batch b;
    b.faa(x, 1);
    b.read(&seen, x, 8);
    LW_CHECK(ok(co_await w.execute(b)));
    outcome = std::to_string(seen);
  });
  record(sim.run());
  return outcome;
}

// Two coroutines of one thread: A posts a 4 KB READ, then B an 8-byte READ on
// the same queue pair. Outcome: the order they resumed in.
std::string completion_order(const ClusterConfig& base) {
  SimBackend sim(shape(base, 1, 2));
  RemoteAddr big = sim.allocate(0, 4096);
  std::string outcome;
  sim.spawn(compute(0, 0), [big, &outcome](Worker& w) -> Task<void> {
    std::vector<std::byte> buf(4096);
    LW_CHECK(ok(co_await w.read(buf.data(), big, 4096)));
    outcome += "A";
  });
  sim.spawn(compute(0, 1), [big, &outcome](Worker& w) -> Task<void> {
    co_await w.sleep(500);  // A has posted by then
    uint64_t v;
    LW_CHECK(ok(co_await w.read(&v, big, 8)));
    outcome += "B";
  });
  record(sim.run());
  return outcome;
}

// Masked atomics act on their field only: a masked FAA on the low 32-bit
// field (which wraps) races a masked CAS on the high field.
std::string masked_fields(const ClusterConfig& base) {
  SimBackend sim(shape(base, 2, 1));
  RemoteAddr x = sim.allocate(0, 8, 8);
  sim.host_store(x, 0x00000005FFFFFFFFull);
  const uint64_t fields = (uint64_t{1} << 31) | (uint64_t{1} << 63);
  sim.spawn(compute(0), [x, fields](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread / 8));
    LW_CHECK((co_await w.masked_faa(x, 1, fields)).ok());
  });
  sim.spawn(compute(1), [x](Worker& w) -> Task<void> {
    co_await w.sleep(w.rng().below(kStartSpread / 8));
    const uint64_t high = 0xFFFFFFFF00000000ull;
    LW_CHECK((co_await w.masked_cas(x, uint64_t{5} << 32, uint64_t{9} << 32, high, high)).ok());
  });
  record(sim.run());
  const uint64_t v = sim.host_load(x);
  return v == 0x0000000900000000ull ? "fields-kept" : "fields-mixed";
}

// Writer: v := 1, posts WRITE x := v unsignaled, changes v := 2 a random
// while later, then awaits a READ on the same queue pair (which completes the
// WRITE; v stays alive until then). Reader, long after: READ x. Outcome: what
// it saw; "2" means the NIC read the source after post.
std::string write_payload_late(const ClusterConfig& base) {
  SimBackend sim(shape(base, 2, 1));
  RemoteAddr x = sim.allocate(0, 64);
  std::string outcome;
  sim.spawn(compute(0), [x](Worker& w) -> Task<void> {
    uint64_t v = 1, sink = 0;
    Batch b;
    b.write(x, &v, 8);
    LW_CHECK(ok(w.post(b)));
    co_await w.sleep(w.rng().below(kStartSpread));
    v = 2;
    LW_CHECK(ok(co_await w.read(&sink, x + 8, 8)));
  });
  sim.spawn(compute(1), [x, &outcome](Worker& w) -> Task<void> {
    co_await w.sleep(10 * kStartSpread);  // the writer is done by then
    uint64_t seen = 0;
    LW_CHECK(ok(co_await w.read(&seen, x, 8)));
    outcome = std::to_string(seen);
  });
  record(sim.run());
  return outcome;
}

// One coroutine posts [READ 4 KB a := A, READ 8 B b := B] unsignaled (A and B
// all ones remotely) and polls its buffers every 20 ns until both arrived.
// Outcome: "in-order", or "later-first" if b was filled while a was not yet
// complete (RC delivers READ responses in posting order per queue pair).
std::string read_dest_order(const ClusterConfig& base) {
  SimBackend sim(shape(base, 1, 1));
  constexpr uint32_t kBig = 4096;
  RemoteAddr big = sim.allocate(0, kBig), small = sim.allocate(0, 64);
  const std::vector<uint64_t> ones(kBig / 8, 1);
  sim.host_write(big, ones.data(), kBig);
  sim.host_store(small, 1);
  std::string outcome;
  sim.spawn(compute(0), [big, small, &outcome](Worker& w) -> Task<void> {
    std::vector<uint64_t> a(kBig / 8, 0);
    uint64_t b = 0;
    Batch reads;
    reads.read(a.data(), big, kBig);
    reads.read(&b, small, 8);
    LW_CHECK(ok(w.post(reads)));
    outcome = "in-order";
    // Bounded: the responses arrive within a few round trips.
    bool a_done = false;
    for (int poll = 0; poll < 10'000 && !(a_done && b == 1); ++poll) {
      co_await w.sleep(20);
      a_done = std::all_of(a.begin(), a.end(), [](uint64_t v) { return v == 1; });
      if (b == 1 && !a_done) outcome = "later-first";
    }
    LW_CHECK_MSG(a_done && b == 1, "the READs never completed");
  });
  record(sim.run());
  return outcome;
}

}  // namespace

bool LitmusTest::allowed(const std::string& outcome, const Semantics& s) const {
  if (std::find(sequential.begin(), sequential.end(), outcome) != sequential.end()) return true;
  return !weak.empty() && outcome == weak && relaxation && s.*relaxation;
}

std::vector<std::string> LitmusTest::allowed_outcomes(const Semantics& s) const {
  std::vector<std::string> out = sequential;
  if (!weak.empty() && relaxation && s.*relaxation) out.push_back(weak);
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<LitmusTest>& litmus_tests() {
  static const std::vector<LitmusTest> tests = {
      {"line_atomic", "an aligned 64-byte line is read and written atomically", line_atomic,
       {"old", "new"}, "", nullptr, {"torn"}},
      {"read_line_order", "a multi-line READ may fetch its lines in any order", read_line_order,
       {"00", "01", "11"}, "10", &Semantics::read_lines_unordered, {}},
      {"write_prefix", "a multi-line WRITE lands line by line: a prefix may be seen", write_prefix,
       {"00", "01", "11"}, "10", &Semantics::write_lines_staggered, {}},
      {"write_address_order", "a multi-line WRITE lands in increasing address order",
       write_address_order, {"00", "01", "11"}, "", nullptr, {"10"}},
      {"atomic_loses_write", "a WRITE landing inside a NIC atomic is lost",
       [](const ClusterConfig& c) { return atomic_vs_write(c, false); },
       {"100", "101"}, "1", &Semantics::atomic_loses_write, {}},
      {"failed_cas_writes_back", "a failed NIC CAS writes back what it read: a WRITE inside it is lost",
       [](const ClusterConfig& c) { return atomic_vs_write(c, true); }, {"100"}, "0",
       &Semantics::failed_cas_writes_back, {}},
      {"atomic_loses_cpu", "CPU atomics are not atomic with NIC atomics", atomic_vs_cpu,
       {"2"}, "1", &Semantics::atomic_loses_cpu, {}},
      {"nic_atomics_atomic", "NIC atomics on one NIC are atomic with each other", atomics_atomic,
       {"2"}, "", nullptr, {"1"}},
      {"read_overtaken", "a later operation may overtake an unfenced READ",
       [](const ClusterConfig& c) { return read_then_write(c, false); }, {"0"}, "1",
       &Semantics::read_overtaken, {}},
      {"read_fenced", "a fenced operation waits for earlier READs",
       [](const ClusterConfig& c) { return read_then_write(c, true); }, {"0"}, "", nullptr, {"1"}},
      {"reads_unordered", "two READs on one queue pair are not ordered", reads_unordered,
       {"00", "01", "11"}, "10", &Semantics::reads_unordered, {}},
      {"atomic_before_later", "an atomic executes before later operations", atomic_before_read,
       {"1"}, "", nullptr, {"0"}},
      {"completion_order", "completions arrive in posting order per queue pair",
       completion_order, {"AB"}, "", nullptr, {"BA"}},
      {"masked_fields", "masked CAS/FAA act on their sub-field only", masked_fields,
       {"fields-kept"}, "", nullptr, {"fields-mixed"}},
      {"write_payload_late", "a WRITE's source is read when the NIC executes it, not at post",
       write_payload_late, {"1"}, "2", &Semantics::write_payload_late, {}},
      {"read_dest_order", "READ destinations are written in posting order per queue pair",
       read_dest_order, {"in-order"}, "", nullptr, {"later-first"}},
  };
  return tests;
}

LitmusReport run_litmus(const LitmusTest& test, const std::string& profile, uint64_t seeds,
                        uint64_t first_seed) {
  ClusterConfig c;
  LW_CHECK_MSG(c.set_profile(profile).empty(), "unknown profile " + profile);
  return run_litmus(test, c, seeds, first_seed);
}

LitmusReport run_litmus(const LitmusTest& test, const ClusterConfig& base, uint64_t seeds,
                        uint64_t first_seed) {
  LitmusReport r;
  r.test = test.name;
  r.profile = base.semantics_profile;
  const std::string& profile = base.semantics_profile;
  ClusterConfig c = base;
  // Counted, so that first_seed + seeds cannot wrap around (seeds past
  // 2^64 - 1 are not run: callers check that).
  for (uint64_t i = 0; i < seeds && first_seed + i >= first_seed; ++i) {
    const uint64_t s = first_seed + i;
    c.seed = s;
    set_replay_hint("seed=" + std::to_string(s) + "; replay: latchwork litmus --test " +
                    test.name + " --semantics " + profile + " --seeds 1 --first-seed " +
                    std::to_string(s));
    g_last_trace_hash = 0;
    std::string outcome = test.run(c);
    r.trace_hash = r.runs == 0 ? g_last_trace_hash
                               : (r.trace_hash ^ g_last_trace_hash) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    ++r.runs;
    ++r.outcomes[outcome];
    if (!test.allowed(outcome, c.semantics) &&
        std::find(r.violations.begin(), r.violations.end(), outcome) == r.violations.end()) {
      if (r.violations.empty()) r.violation_seed = s;
      r.violations.push_back(outcome);
    }
    if (!test.weak.empty() && outcome == test.weak) r.weak_seen = true;
  }
  set_replay_hint({});
  return r;
}

}  // namespace lw
