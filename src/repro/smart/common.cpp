#include "common.h"

#include <sstream>

namespace lw::smart_repro {

ClusterConfig bench_cluster(uint32_t threads, uint32_t depth, QpPolicy policy) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = "cx6-200g";
  c.nic.qp_policy = policy;
  c.compute_nodes = 1;
  c.threads_per_node = threads;
  c.coroutines_per_thread = depth;
  c.memory_nodes = 1;
  c.memory_node_bytes = 16ull << 20;
  return c;
}

PerfOptions bench_read() {
  PerfOptions o;
  o.op = Opcode::kRead;
  o.size = 8;
  o.random_region = 8ull << 20;
  o.warmup_ns = 60'000;
  o.measure_ns = 200'000;
  return o;
}

void add_work_request_throttling(ClusterConfig* c, PerfOptions* o, uint32_t divisor) {
  c->nic.qp_policy = QpPolicy::kPerThreadDoorbell;
  c->smart.throttling = true;
  divide_policy_time(c, divisor);
  set_throttling_windows(*c, o);
}

void set_throttling_windows(const ClusterConfig& c, PerfOptions* o) {
  const Nanos update_phase = c.smart.delta_ns * static_cast<Nanos>(c.smart.candidate_credits.size());
  o->warmup_ns = update_phase + c.smart.delta_ns;
  o->measure_ns = std::max<Nanos>(o->measure_ns, 4 * c.smart.delta_ns);
}

ClusterConfig hash_cluster(const std::string& table, uint32_t compute_nodes, uint32_t threads) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = "cx6-200g";
  c.compute_nodes = compute_nodes;
  c.threads_per_node = threads;
  c.coroutines_per_thread = 8;
  c.memory_nodes = 2;
  c.memory_node_bytes = 512ull << 20;
  apply_hash_table_preset(table, &c);
  divide_policy_time(&c, kDefaultPolicyTimeDivisor);
  return c;
}

HashRunOptions hash_options(ycsb::Mix mix, double zipf) {
  HashRunOptions o;
  o.mix = mix;
  o.zipf = zipf;
  o.keys = kHashKeys;
  // The warm-up holds Alg. 1's first update phase (5 x delta) and a few
  // dozen retry-rate windows, so t_max and c_max have settled.
  o.warmup_ns = 3'000'000;
  o.measure_ns = 2'000'000;
  // A quarter of the points ran on 2-182 virtual ms after their window
  // (coroutines backing off under skew), changing no value of the figure:
  // they stop 2 ms after it (HashRunOptions::drain_ns).
  o.drain_ns = 2'000'000;
  return o;
}

std::string hash_note() {
  std::ostringstream os;
  os << "Set-up: " << kHashKeys << " records loaded (the paper: 100 M; loading is host work, done once "
     << "per figure: later points put the first load's image back; with Zipf 0.99 the hottest key gets 7.2% of the operations here against 4.8% with 100 M, "
     << "so update contention is about 1.5x the paper's), 8 coroutines per thread, 2 memory blades, "
     << "cx6-200g. The SMART policies' clocks are divided by " << kDefaultPolicyTimeDivisor
     << " (Alg. 1 delta 0.5 ms, stable phase 30 ms; retry-rate window 62.5 us) so that a 3 ms warm-up "
     << "holds a complete update phase and dozens of t_max/c_max adjustments; each point measures 2 ms "
     << "of virtual time. 96 threads x 2 memory blades = 192 QPs per compute blade fit the cx6-200g "
     << "profile's QP cache (256 entries, SRNIC NSDI'23 as quoted in our notes); until 2026-11-29 it "
     << "carried ConnectX-5's 100 entries and thrashed from 64 threads. The model charges an operation's "
     << "own CPU work as measured on our CPUs (bench/cpu_work.cpp: a key draw and timing 119 ns, hashing "
     << "2 ns, 0.5 ns per slot scanned), about 140 ns a lookup next to its 2-4 us of round trips, so "
     << "past the NIC's limits little slows a thread down.";
  return os.str();
}

}  // namespace lw::smart_repro
