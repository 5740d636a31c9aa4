// Each mechanism of the NIC model, switched on and off on a tiny cluster,
// moves throughput the way docs/nic-model.md says it should.
#include <gtest/gtest.h>

#include "runs/perf.h"

namespace lw {
namespace {

ClusterConfig tiny(uint32_t compute_nodes, uint32_t threads, uint32_t depth) {
  ClusterConfig c;
  c.set_profile("connectx");
  c.nic.profile = "cx5-100g";
  c.compute_nodes = compute_nodes;
  c.threads_per_node = threads;
  c.coroutines_per_thread = depth;
  c.memory_node_bytes = 4ull << 20;
  return c;
}

PerfOptions quick(Opcode op, uint32_t size = 8, uint64_t stride = 64) {
  PerfOptions o;
  o.op = op;
  o.size = size;
  o.stride = stride;
  o.warmup_ns = 20'000;
  o.measure_ns = 60'000;
  return o;
}

double mops(ClusterConfig c, const PerfOptions& o) { return run_perf(c, o).mops; }

// Throughput with the mechanism off divided by with it on.
double speedup_without(bool NicMechanisms::*m, ClusterConfig c, const PerfOptions& o) {
  const double on = mops(c, o);
  c.nic.mechanisms.*m = false;
  const double off = mops(c, o);
  EXPECT_GT(on, 0);
  return off / on;
}

TEST(NicModel, LinkBandwidthBoundsLargeWrites) {
  ClusterConfig c = tiny(2, 4, 4);
  c.nic.mechanisms.pcie = false;  // so that the link, not PCIe, is the limit
  EXPECT_GT(speedup_without(&NicMechanisms::link, c, quick(Opcode::kWrite, 4096, 4096)), 1.5);
}

TEST(NicModel, MessageRateCapsSmallReads) {
  ClusterConfig c = tiny(4, 16, 4);
  c.nic.mechanisms.pcie = false;  // so that the message rate is the limit
  EXPECT_GT(speedup_without(&NicMechanisms::message_rate, c, quick(Opcode::kRead)), 1.15);
}

TEST(NicModel, PcieReadRateCapsSmallReadsAtTheResponder) {
  EXPECT_GT(speedup_without(&NicMechanisms::pcie, tiny(4, 16, 2), quick(Opcode::kRead)), 1.3);
}

TEST(NicModel, LockTableSerializesAtomicsSharingLowAddressBits) {
  // 4 KB apart: every latch hashes to one slot (Jasny Fig. 6b-i).
  EXPECT_GT(speedup_without(&NicMechanisms::lock_table, tiny(2, 8, 1), quick(Opcode::kCas, 8, 4096)), 2.5);
  // 8 bytes of padding give each latch its own slot (Fig. 6b-ii): the table no longer matters.
  EXPECT_LT(speedup_without(&NicMechanisms::lock_table, tiny(2, 8, 1), quick(Opcode::kCas, 8, 4104)), 1.1);
}

TEST(NicModel, ContendedCasIsBoundByOneSlot) {
  PerfOptions o = quick(Opcode::kCas);
  o.contended = true;
  const double m = mops(tiny(2, 8, 1), o);
  // One slot held for a PCIe read and a write-back (431 ns in cx5-100g).
  EXPECT_NEAR(m, 1000.0 / 431.0, 0.25);
}

TEST(NicModel, DeviceMemoryAtomicsSkipPcie) {
  PerfOptions o = quick(Opcode::kCas, 8, 8);
  o.device_memory = true;
  // Off: on-chip memory costs what host memory does.
  EXPECT_LT(speedup_without(&NicMechanisms::device_memory, tiny(4, 16, 2), o), 0.7);
  // With the mechanism on, on-chip CAS beats host-memory CAS once both reach
  // their caps (the message rate against the PCIe read rate; at depth 2 the
  // round trip still bounds both).
  PerfOptions host = quick(Opcode::kCas, 8, 8);
  EXPECT_GT(mops(tiny(4, 16, 4), o), 1.5 * mops(tiny(4, 16, 4), host));
}

TEST(NicModel, QpContextMissesSlowTheRequester) {
  ClusterConfig c = tiny(1, 16, 2);
  c.nic.overrides["qp_cache_entries"] = 4;
  EXPECT_GT(speedup_without(&NicMechanisms::qp_cache, c, quick(Opcode::kRead)), 1.3);
}

TEST(NicModel, TooManyOutstandingRequestsThrashTheWqeCache) {
  ClusterConfig c = tiny(1, 8, 32);
  c.nic.overrides["wqe_cache_entries"] = 32;
  c.nic.overrides["wqe_miss_ns"] = 100;  // make the refetch, not the CPU, the limit
  EXPECT_GT(speedup_without(&NicMechanisms::wqe_cache, c, quick(Opcode::kRead)), 1.2);
}

TEST(NicModel, SharedDoorbellsCostASpinlock) {
  ClusterConfig c = tiny(1, 8, 4);
  c.nic.qp_policy = QpPolicy::kPerThreadQp;
  c.nic.overrides["low_latency_doorbells"] = 0;
  c.nic.overrides["medium_latency_doorbells"] = 1;  // all 8 threads on one doorbell
  EXPECT_GT(speedup_without(&NicMechanisms::doorbells, c, quick(Opcode::kRead)), 1.5);
  // SMART's per-thread doorbell avoids it.
  ClusterConfig own = c;
  own.nic.qp_policy = QpPolicy::kPerThreadDoorbell;
  EXPECT_GT(mops(own, quick(Opcode::kRead)), 1.5 * mops(c, quick(Opcode::kRead)));
}

TEST(NicModel, SharingOneQpIsWorstOfAll) {
  ClusterConfig shared = tiny(1, 8, 2), own = tiny(1, 8, 2);
  shared.nic.qp_policy = QpPolicy::kSharedQp;
  EXPECT_GT(mops(own, quick(Opcode::kRead)), 2 * mops(shared, quick(Opcode::kRead)));
}

TEST(NicModel, CpuCostsLimitOneThread) {
  EXPECT_GT(speedup_without(&NicMechanisms::cpu_costs, tiny(1, 1, 16), quick(Opcode::kRead)), 1.2);
}

TEST(NicModel, UnloadedReadRoundTripIsAroundTwoMicroseconds) {
  // Sherman §2.2: READ/WRITE round trips within 2 us on ConnectX-5.
  const PerfResult r = run_perf(tiny(1, 1, 1), quick(Opcode::kRead));
  EXPECT_GT(r.latency_ns_p50, 1000);
  EXPECT_LT(r.latency_ns_p50, 2000);
}

TEST(NicModel, SameSeedSameResult) {
  ClusterConfig c = tiny(2, 4, 4);
  PerfOptions o = quick(Opcode::kFaa);
  o.random_region = 1 << 16;
  const PerfResult a = run_perf(c, o), b = run_perf(c, o);
  EXPECT_EQ(a.ops, b.ops);
  EXPECT_EQ(a.latency_ns_p99, b.latency_ns_p99);
  c.seed = 2;
  EXPECT_NE(run_perf(c, o).latency_ns_mean, a.latency_ns_mean);
}

// Jasny §5.4, Fig. 22: a switch register has no lock table, so contention
// costs nothing there while it caps the storage NIC at one slot.
TEST(NicModel, SwitchAtomicsIgnoreContention) {
  const ClusterConfig c = tiny(4, 8, 1);
  PerfOptions o = quick(Opcode::kCas);
  o.target = "switch";
  const double uncontended = mops(c, o);
  o.contended = true;
  EXPECT_DOUBLE_EQ(mops(c, o), uncontended);
  o.target = "memory";
  EXPECT_LT(mops(c, o) * 5, uncontended);
}

// Jasny §5.2, Fig. 18: the SmartNIC's cores bound its latch RPCs
// (smartnic_cores / smartnic_rpc_ns), whatever the lock-table slot.
TEST(NicModel, SmartNicRpcsAreBoundByItsCores) {
  const ClusterConfig c = tiny(4, 32, 1);
  PerfOptions o = quick(Opcode::kCas, 8, 4096);
  o.target = "smartnic";
  const double rpcs = mops(c, o);
  EXPECT_GT(rpcs, 15.0);
  EXPECT_LE(rpcs, 8 / 0.400 + 0.5);
  ClusterConfig fewer = c;
  fewer.nic.overrides["smartnic_cores"] = 2;
  EXPECT_LE(mops(fewer, o), 2 / 0.400 + 0.5);
}

// Husky (NSDI'23 §3): atomics hold their processing engine while they wait
// for their address, so a READ flow sharing engines with a CAS flow on one
// hot word runs at about the CAS flow's pace. Engines off: the READs pass.
TEST(NicModel, AReadFlowBesideAHotCasFlowCollapsesOnlyWithEngines) {
  // cx5-100g's 32 engines: READ threads 0-31 and CAS threads 32-63 deal
  // one QP of each flow to every engine.
  ClusterConfig c = tiny(1, 32, 4);
  PerfOptions o = quick(Opcode::kRead);
  const double alone = mops(c, o);
  c.threads_per_node = 64;
  o.cas_flow_threads = 32;
  const PerfResult beside = run_perf(c, o);
  EXPECT_GT(alone, 5 * beside.mops);
  EXPECT_NEAR(beside.counters.at("cas_flow.mops"), 1000.0 / 431.0, 0.3);  // one slot's pace
  c.nic.mechanisms.engines = false;
  EXPECT_LT(alone, 1.5 * mops(c, o));
}

// Single-address CAS on device memory holds the slot device_memory_ns +
// device_atomic_ns (141 ns in cx5-100g) against 431 ns on host memory.
TEST(NicModel, ContendedCasOnDeviceMemoryIsAboutThreeTimesHostMemory) {
  PerfOptions o = quick(Opcode::kCas);
  o.contended = true;
  const double host = mops(tiny(2, 8, 1), o);
  o.device_memory = true;
  const double device = mops(tiny(2, 8, 1), o);
  EXPECT_NEAR(device / host, 431.0 / 141.0, 0.3);
}

TEST(Perf, RunsOnTheThreadsBackend) {
  ClusterConfig c = tiny(1, 2, 2);
  c.backend = "threads";
  PerfOptions o = quick(Opcode::kFaa);
  o.measure_ns = 2'000'000;  // wall-clock ns on this backend
  const PerfResult r = run_perf(c, o);
  EXPECT_GT(r.ops, 0u);
  EXPECT_TRUE(r.counters.empty());  // no NIC model on real threads
}

TEST(Perf, RejectsBadDeviceTargets) {
  ClusterConfig c = tiny(1, 1, 1);
  PerfOptions o = quick(Opcode::kRead, 64);
  o.target = "switch";
  EXPECT_NE(validate_perf(c, o).find("8 bytes"), std::string::npos);
  o.target = "toaster";
  EXPECT_NE(validate_perf(c, o).find("target"), std::string::npos);
  o.target = "smartnic";
  c.backend = "threads";
  EXPECT_NE(validate_perf(c, o).find("simulator"), std::string::npos);
}

TEST(Perf, RejectsBadOptions) {
  ClusterConfig c = tiny(1, 1, 1);
  PerfOptions o = quick(Opcode::kCas, 8, 12);
  EXPECT_NE(validate_perf(c, o), "");  // misaligned atomics
  o = quick(Opcode::kRead);
  o.device_memory = true;
  o.stride = 1 << 20;
  EXPECT_NE(validate_perf(c, o), "");  // does not fit in device memory
  o = quick(Opcode::kRead);
  o.contended = true;
  o.random_region = 4096;
  EXPECT_NE(validate_perf(c, o), "");
  // The CAS flow needs a measured flow beside it, of READs or WRITEs.
  o = quick(Opcode::kRead);
  o.cas_flow_threads = 1;
  EXPECT_NE(validate_perf(c, o).find("at least one thread"), std::string::npos);
  c.threads_per_node = 2;
  EXPECT_EQ(validate_perf(c, o), "");
  o.op = Opcode::kFaa;
  EXPECT_NE(validate_perf(c, o).find("read or write"), std::string::npos);
}

// `nodes` symmetric nodes of `threads` threads each; the compute node idles.
ClusterConfig symmetric_nodes(uint32_t nodes, uint32_t threads) {
  ClusterConfig c = tiny(1, 1, 1);
  c.memory_nodes = nodes;
  c.memory_node_threads = threads;
  return c;
}

PerfOptions all_to_all_reads() {
  PerfOptions o = quick(Opcode::kRead);
  o.symmetric = true;
  return o;
}

// DrTM+H Fig. 5's setting: memory-node threads read from every other node,
// never their own; every node serves and issues.
TEST(NicModel, SymmetricAllToAllUsesEveryNodeAndNoLoopback) {
  ClusterConfig c = symmetric_nodes(3, 4);
  PerfOptions o = all_to_all_reads();
  o.batch = 2;
  ASSERT_EQ(validate_perf(c, o), "");
  const PerfResult r = run_perf(c, o);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.workers, 12u);
  EXPECT_GT(r.mops, 0);
  EXPECT_DOUBLE_EQ(r.counters.at("symmetric.mops_per_node"), r.mops / 3);
  EXPECT_GT(r.counters.at("nic.symmetric_verbs"), 0);
  EXPECT_EQ(r.counters.at("nic.loopback_verbs"), 0);
  // Twice the nodes with the same threads each: about twice the rate (each
  // NIC serves as much as it issues, whatever the cluster's size).
  c.memory_nodes = 6;
  const PerfResult six = run_perf(c, o);
  EXPECT_NEAR(six.mops / r.mops, 2.0, 0.3);
}

TEST(NicModel, SymmetricPerfRefusesWhatItCannotRun) {
  ClusterConfig c = symmetric_nodes(1, 2);
  PerfOptions o = all_to_all_reads();
  EXPECT_NE(validate_perf(c, o).find("at least 2 memory nodes"), std::string::npos);
  c.memory_nodes = 2;
  EXPECT_EQ(validate_perf(c, o), "");
  c.memory_node_threads = 0;
  EXPECT_NE(validate_perf(c, o).find("memory-node threads"), std::string::npos);
  c.memory_node_threads = 2;
  c.coroutines_per_thread = 2;
  EXPECT_NE(validate_perf(c, o).find("--batch"), std::string::npos);
  c.coroutines_per_thread = 1;
  c.threads_per_node = 2;
  o.cas_flow_threads = 1;
  EXPECT_NE(validate_perf(c, o).find("exclude"), std::string::npos);
}

}  // namespace
}  // namespace lw
