// Persistent memory on memory nodes (config/memory_config.h): verbs landing
// on PM take longer in virtual time than on DRAM, on both timing models;
// PM's low write bandwidth caps WRITE throughput; runs stay deterministic;
// the config round-trips and rejects bad values.
#include <gtest/gtest.h>

#include "runs/perf.h"

namespace lw {
namespace {

ClusterConfig one(const std::string& nic, const std::string& kind, uint32_t threads = 1, uint32_t depth = 1) {
  ClusterConfig c;
  c.nic.profile = nic;
  EXPECT_TRUE(parse_memory_kind(kind, &c.memory.kind)) << kind;
  c.threads_per_node = threads;
  c.coroutines_per_thread = depth;
  c.memory_node_bytes = 4ull << 20;
  return c;
}

PerfOptions quick(Opcode op, uint32_t size) {
  PerfOptions o;
  o.op = op;
  o.size = size;
  o.stride = std::max<uint32_t>(size, 64);
  o.warmup_ns = 20'000;
  o.measure_ns = 60'000;
  return o;
}

PerfResult perf(const ClusterConfig& c, const PerfOptions& o) {
  PerfResult r = run_perf(c, o);
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_GT(r.ops, 0u);
  return r;
}

TEST(PmMemory, VerbsOnPmTakeLongerThanOnDram) {
  for (const char* nic : {"simple", "cx5-100g"}) {
    for (Opcode op : {Opcode::kWrite, Opcode::kRead, Opcode::kCas}) {
      const PerfOptions o = quick(op, 64);
      const double dram = perf(one(nic, "dram"), o).latency_ns_p50;
      const double pm = perf(one(nic, "pm"), o).latency_ns_p50;
      EXPECT_GT(pm, dram) << nic << " " << perf_op_name(op);
    }
  }
  // A READ pays about the configured extra load latency (unloaded).
  const PerfOptions r = quick(Opcode::kRead, 64);
  const double extra = perf(one("cx5-100g", "pm"), r).latency_ns_p50 - perf(one("cx5-100g", "dram"), r).latency_ns_p50;
  EXPECT_GE(extra, 0.9 * MemoryConfig{}.pm_read_extra_ns);
}

TEST(PmMemory, LowWriteBandwidthCapsWrites) {
  // 16 writers, 4 KB WRITEs: DRAM is bound by the link/PCIe (~12 GB/s), PM
  // by its media write bandwidth. Set PM's low enough that it binds.
  ClusterConfig pm = one("cx5-100g", "pm", 16, 2);
  pm.memory.pm_write_bytes_per_ns = 2.3;  // one DIMM (Izraelevitz et al. 2019)
  const PerfOptions o = quick(Opcode::kWrite, 4096);
  const double dram_gbps = perf(one("cx5-100g", "dram", 16, 2), o).gbps;
  const double pm_gbps = perf(pm, o).gbps;
  EXPECT_LT(pm_gbps, 0.5 * dram_gbps);
  EXPECT_LT(pm_gbps, 2.3 * 1.05);  // never above the media's write bandwidth
}

TEST(PmMemory, SmallWritesCostAWholeMediaLine) {
  // 64-byte WRITEs move 256 bytes of media each: at one DIMM's 2.3 GB/s at
  // most 2.3e9 / 256 = 9 M writes per second.
  ClusterConfig pm = one("cx5-100g", "pm", 16, 4);
  pm.memory.pm_write_bytes_per_ns = 2.3;
  EXPECT_LT(perf(pm, quick(Opcode::kWrite, 64)).mops, 2.3e3 / 256 * 1.05);
}

TEST(PmMemory, Deterministic) {
  const PerfOptions o = quick(Opcode::kWrite, 256);
  for (const char* nic : {"simple", "cx5-100g"}) {
    const PerfResult a = perf(one(nic, "pm", 2, 2), o), b = perf(one(nic, "pm", 2, 2), o);
    EXPECT_EQ(a.trace_hash, b.trace_hash) << nic;
    EXPECT_EQ(a.ops, b.ops) << nic;
    EXPECT_EQ(a.latency_ns_p50, b.latency_ns_p50) << nic;
  }
}

TEST(PmMemory, ConfigRoundTripsAndValidates) {
  ClusterConfig c;
  ASSERT_EQ(ClusterConfig::from_json(R"({"memory": {"kind": "pm", "pm_write_bytes_per_ns": 2.3,
                                                    "pm_read_extra_ns": 200}})", &c), "");
  EXPECT_TRUE(c.memory.pm());
  EXPECT_EQ(c.memory.pm_read_extra_ns, 200u);
  ClusterConfig back;
  ASSERT_EQ(ClusterConfig::from_json(c.to_json(), &back), "");
  EXPECT_EQ(back.memory.kind, MemoryKind::kPm);
  EXPECT_DOUBLE_EQ(back.memory.pm_write_bytes_per_ns, 2.3);
  ClusterConfig bad;
  EXPECT_NE(ClusterConfig::from_json(R"({"memory": {"kind": "nvm"}})", &bad).find("memory.kind"), std::string::npos);
  EXPECT_NE(ClusterConfig::from_json(R"({"memory": {"pm_write_bytes_per_ns": 0}})", &bad).find("pm_write_bytes_per_ns"),
            std::string::npos);
  EXPECT_NE(ClusterConfig::from_json(R"({"memory": {"pm_access_bytes": 0}})", &bad).find("pm_access_bytes"),
            std::string::npos);
  EXPECT_NE(ClusterConfig::from_json(R"({"memory": {"pm_typo": 1}})", &bad).find("pm_typo"), std::string::npos);
}

}  // namespace
}  // namespace lw
