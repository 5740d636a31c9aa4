#include <cstdio>
#include <gtest/gtest.h>

#include "latchwork/config/cluster_config.h"

namespace lw {
namespace {

TEST(ClusterConfig, DefaultsAreValid) { EXPECT_EQ(ClusterConfig{}.validate(), ""); }

TEST(ClusterConfig, JsonRoundTrip) {
  ClusterConfig a;
  a.compute_nodes = 4;
  a.coroutines_per_thread = 8;
  a.seed = 99;
  ASSERT_EQ(a.set_profile("connectx"), "");
  a.semantics.reads_unordered = true;
  a.timing.one_way_ns = 1234;
  a.verbs.fence = FenceMode::kEngine;
  ClusterConfig b;
  ASSERT_EQ(ClusterConfig::from_json(a.to_json(), &b), "");
  EXPECT_EQ(b.compute_nodes, 4u);
  EXPECT_EQ(b.coroutines_per_thread, 8u);
  EXPECT_EQ(b.seed, 99u);
  EXPECT_EQ(b.semantics_profile, "connectx");
  EXPECT_EQ(b.semantics, a.semantics);
  EXPECT_EQ(b.timing.one_way_ns, 1234u);
  EXPECT_EQ(b.verbs.fence, FenceMode::kEngine);
}

TEST(ClusterConfig, PartialFileKeepsOtherFields) {
  ClusterConfig c;
  c.memory_nodes = 3;
  ASSERT_EQ(ClusterConfig::from_json(R"({"seed": 5, "profile": "sequential"})", &c), "");
  EXPECT_EQ(c.seed, 5u);
  EXPECT_EQ(c.memory_nodes, 3u);
  EXPECT_FALSE(c.semantics.any_relaxation());
}

TEST(ClusterConfig, SwitchesRefineTheProfile) {
  ClusterConfig c;
  ASSERT_EQ(ClusterConfig::from_json(
                R"({"profile": "sequential", "semantics": {"reads_unordered": true}})", &c),
            "");
  EXPECT_TRUE(c.semantics.reads_unordered);
  EXPECT_FALSE(c.semantics.read_lines_unordered);
}

TEST(ClusterConfig, BadInputNamesTheProblemAndChangesNothing) {
  ClusterConfig c;
  c.seed = 11;
  const ClusterConfig before = c;
  struct Case {
    const char* json;
    const char* expect;
  } cases[] = {
      {"{", "not valid JSON"},
      {"[1]", "must be a JSON object"},
      {R"({"sed": 1})", "unknown key \"sed\""},
      {R"({"compute_nodes": 0})", "compute_nodes must be in"},
      {R"({"compute_nodes": -3})", "compute_nodes must be in [1, 1024], got -3"},
      {R"({"compute_nodes": "two"})", "non-negative integer"},
      {R"({"backend": "rdma"})", "backend must be sim, threads or verbs"},
      {R"({"backend": "verbs"})", "needs a cluster file"},
      {R"({"backend": "verbs", "verbs": {"cluster_file": "/nonexistent.json"}})", "cannot open it"},
      {R"({"verbs": {"op_timeout": 5}})", "unknown key \"op_timeout\" in verbs"},
      {R"({"verbs": {"staging_bytes": "big"}})", "verbs.staging_bytes"},
      {R"({"verbs": {"fence": "sometimes"}})", "verbs.fence must be auto, nic or engine, got \"sometimes\""},
      {R"({"verbs": {"fence": 1}})", "verbs.fence"},
      {R"({"profile": "weird"})", "unknown profile"},
      {R"({"semantics": {"reads_unordered": 1}})", "must be true or false"},
      {R"({"semantics": {"teleport": true}})", "unknown key \"teleport\" in semantics"},
      {R"({"timing": {"one_way_ns": 0}})", "timing.one_way_ns"},
      {R"({"memory_node_bytes": 12})", "memory_node_bytes"},
      // Issue 11: numbers are range-checked before they are narrowed.
      {R"({"compute_nodes": 4294967297})", "compute_nodes must be in [1, 1024], got 4294967297"},
      {R"({"threads_per_node": 4294967296})", "threads_per_node must be in [1, 1024]"},
      {R"({"queue_depth": 4294967297})", "queue_depth must be in [1, 65536]"},
      {R"({"compute_nodes": 2.5})", "an integer is required"},
      {R"({"compute_nodes": 1e3})", "compute_nodes must be in"},
      {R"({"seed": 18446744073709551616})", "seed"},
      {R"({"seed": -1})", "seed must be in"},
      // The node's own requirement (more than its 4096 reserved bytes).
      {R"({"memory_node_bytes": 4096})", "memory_node_bytes must be in [8192, 17179869184]"},
      {R"({"memory_node_bytes": 17179869185})", "memory_node_bytes must be in [8192, 17179869184]"},
      {R"({"memory_node_bytes": 1099511627776})", "memory_node_bytes must be in"},
      // Resources: workers and total (virtual) memory.
      {R"({"compute_nodes": 1024, "threads_per_node": 1024, "coroutines_per_thread": 1024})",
       "workers; at most 65536"},
      {R"({"memory_nodes": 1024})", "memory_nodes x memory_node_bytes"},
      {R"({"memory_nodes": 2, "memory_node_bytes": 17179869184})", "at most 17179869184"},
      // Every coroutine needs a place in its thread's queue.
      {R"({"coroutines_per_thread": 300})", "queue_depth 256 is too small"},
      {R"({"coroutines_per_thread": 2, "queue_depth": 1})", "queue_depth 1 is too small"},
      // Timing and windows: bounded so that the clock cannot overflow.
      {R"({"semantics": {"atomic_window_ns": 18446744073709551615}})",
       "semantics.atomic_window_ns must be in [0, 1000000]"},
      {R"({"semantics": {"read_spread_ns": 1000001}})", "semantics.read_spread_ns must be in"},
      {R"({"semantics": {"write_line_gap_ns": -1}})", "semantics.write_line_gap_ns must be in"},
      {R"({"timing": {"post_cpu_ns": 9223372036854775808}})", "timing.post_cpu_ns must be in"},
      {R"({"timing": {"jitter_ns": 1000000001}})", "timing.jitter_ns must be in [0, 1000000000]"},
      {R"({"timing": {"poll_cpu_ns": 1e30}})", "timing.poll_cpu_ns"},
      {R"({"timing": {"cpu_access_ns": 5000000000}})", "timing.cpu_access_ns"},
      {R"({"timing": {"pcie_ns": 5000000000}})", "timing.pcie_ns"},
      {R"({"timing": {"device_memory_ns": 5000000000}})", "timing.device_memory_ns"},
      {R"({"timing": {"bytes_per_ns": 1e-300}})", "timing.bytes_per_ns must be in"},
      {R"({"timing": {"bytes_per_ns": 1e999}})", "not valid JSON"},
      {R"({"timing": {"crc64_ns_per_byte": -1}})", "timing.crc64_ns_per_byte"},
      {R"({"network": {"switch": {"duplicate_percent": 4294967396}}})", "network.switch.duplicate_percent must be in [0, 100]"},
      {R"({"network": {"switch": {"registers": 4294967297}}})", "network.switch.registers must be in"},
      {R"({"network": {"switch": {"duplicate_delay_ns": 18446744073709551615}}})", "network.switch.duplicate_delay_ns"},
      {R"({"network": {"smartnic": {"memory_bytes": 4096}}})", "network.smartnic.memory_bytes must be in"},
      {R"({"verbs": {"op_timeout_ms": 4294967306}})", "verbs.op_timeout_ms must be in [10, 3600000]"},
      {R"({"nic": {"profile": "cx5-100g", "parameters": {"lock_table_bits": 4294967308}}})",
       "lock_table_bits must be an integer in [3, 24]"},
      {R"({"nic": {"profile": "cx5-100g", "parameters": {"link_gbps": 1e-300}}})", "link_gbps must be a number in"},
      {R"({"nic": {"profile": "cx5-100g", "parameters": {"qp_cache_entries": 1e300}}})", "qp_cache_entries"},
      {R"({"nic": {"profile": "cx5-100g", "parameters": {"warp": 1}}})", "unknown nic parameter"},
  };
  for (const Case& k : cases) {
    std::string e = ClusterConfig::from_json(k.json, &c);
    EXPECT_NE(e.find(k.expect), std::string::npos) << k.json << " gave: " << e;
    EXPECT_EQ(c.seed, before.seed);
    EXPECT_EQ(c.compute_nodes, before.compute_nodes);
  }
}

TEST(ClusterConfig, FilesAreReadWithASizeLimit) {
  ClusterConfig c;
  // A device never ends: refused without reading it.
  EXPECT_NE(ClusterConfig::from_json_file("/dev/zero", &c).find("not a regular file"), std::string::npos);
  const std::string path = ::testing::TempDir() + "/lw_big_config.json";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::string big = "{\"seed\": 1" + std::string(ClusterConfig::kMaxConfigFileBytes, ' ') + "}";
    std::fwrite(big.data(), 1, big.size(), f);
    std::fclose(f);
  }
  EXPECT_NE(ClusterConfig::from_json_file(path, &c).find("at most 1048576"), std::string::npos);
  std::remove(path.c_str());
  EXPECT_NE(ClusterConfig::from_json(std::string(ClusterConfig::kMaxConfigFileBytes + 1, ' '), &c)
                .find("larger than"),
            std::string::npos);
}

TEST(ClusterConfig, EveryBoundAcceptsItsLimits) {
  // The ranges in the messages are the ones accepted: both ends pass.
  for (const char* json : {
           R"({"compute_nodes": 64, "threads_per_node": 1024, "coroutines_per_thread": 1})",
           R"({"memory_node_bytes": 8192})",
           R"({"memory_node_bytes": 17179869184})",
           R"({"memory_nodes": 256})",
           R"({"queue_depth": 65536, "coroutines_per_thread": 1024})",
           // A zero window is accepted with its switch off.
           R"({"semantics": {"atomic_window_ns": 1000000, "read_spread_ns": 0, "read_lines_unordered": false}})",
           R"({"timing": {"jitter_ns": 1000000000, "bytes_per_ns": 0.00125}})",
       }) {
    ClusterConfig c;
    EXPECT_EQ(ClusterConfig::from_json(json, &c), "") << json;
  }
}

TEST(ClusterConfig, MissingFileIsAnError) {
  ClusterConfig c;
  EXPECT_NE(ClusterConfig::from_json_file("/nonexistent/x.json", &c).find("cannot open"),
            std::string::npos);
}

TEST(Semantics, ProfilesDiffer) {
  EXPECT_TRUE(Semantics::spec().any_relaxation());
  EXPECT_FALSE(Semantics::sequential().any_relaxation());
  Semantics cx = Semantics::connectx();
  EXPECT_TRUE(cx.read_lines_unordered);
  EXPECT_FALSE(cx.reads_unordered);
  EXPECT_NE(cx, Semantics::spec());
}

}  // namespace
}  // namespace lw
