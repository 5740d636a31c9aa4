// The verbs backend's cluster file: valid files parse, bad ones name the
// offending field and leave the output untouched.
#include "latchwork/config/cluster_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "latchwork/config/cluster_config.h"

namespace lw {
namespace {

TEST(ClusterFile, ParsesNodesDeviceAndDefaults) {
  ClusterFile f;
  ASSERT_EQ(ClusterFile::parse(R"({"memory_nodes": ["127.0.0.1:7471", "node-b:9000"],
                                   "device": "rxe0", "gid_index": 1})", &f), "");
  ASSERT_EQ(f.memory_nodes.size(), 2u);
  EXPECT_EQ(f.memory_nodes[0].host, "127.0.0.1");
  EXPECT_EQ(f.memory_nodes[0].port, 7471);
  EXPECT_EQ(f.memory_nodes[1].to_string(), "node-b:9000");
  EXPECT_EQ(f.device, "rxe0");
  EXPECT_EQ(f.gid_index, 1);
  EXPECT_EQ(f.ib_port, 1u);  // default
}

TEST(ClusterFile, BadFilesNameTheProblem) {
  struct Case {
    const char* json;
    const char* expect;
  } cases[] = {
      {"{", "not valid JSON"},
      {"[]", "must be a JSON object"},
      {"{}", "memory_nodes is missing"},
      {R"({"memory_nodes": []})", "non-empty array"},
      {R"({"memory_nodes": [7471]})", "memory_nodes[0] must be a \"HOST:PORT\" string"},
      {R"({"memory_nodes": ["localhost"]})", "not HOST:PORT"},
      {R"({"memory_nodes": ["a:1", "b:0"]})", "memory_nodes[1]"},
      {R"({"memory_nodes": ["a:70000"]})", "port must be a number in [1, 65535]"},
      {R"({"memory_nodes": ["a:1"], "ib_port": 0})", "ib_port must be"},
      {R"({"memory_nodes": ["a:1"], "gid_index": -2})", "gid_index must be"},
      {R"({"memory_nodes": ["a:1"], "devices": "x"})", "unknown key \"devices\""},
      // 2^64 - 1 must not read as -1 (choose).
      {R"({"memory_nodes": ["a:1"], "gid_index": 18446744073709551615})", "gid_index must be"},
      {R"({"memory_nodes": ["a:1"], "ib_port": 4294967297})", "ib_port must be"},
      {R"({"memory_nodes": ["a:"]})", "not HOST:PORT"},
      {R"({"memory_nodes": ["a:+1"]})", "port must be a number"},
  };
  for (const Case& k : cases) {
    ClusterFile f;
    f.device = "untouched";
    std::string e = ClusterFile::parse(k.json, &f);
    EXPECT_NE(e.find(k.expect), std::string::npos) << k.json << " gave: " << e;
    EXPECT_EQ(f.device, "untouched");
  }
}

TEST(ClusterFile, ConfigTakesMemoryNodesFromTheFile) {
  const std::string path = testing::TempDir() + "/lw_cluster_file_test.json";
  {
    std::ofstream out(path);
    out << R"({"memory_nodes": ["127.0.0.1:7471", "127.0.0.1:7472", "127.0.0.1:7473"]})";
  }
  ClusterConfig c;
  ASSERT_EQ(ClusterConfig::from_json(R"({"backend": "verbs", "verbs": {"cluster_file": ")" + path +
                                         R"(", "op_timeout_ms": 2500}})",
                                     &c),
            "");
  EXPECT_EQ(c.memory_nodes, 3u);
  EXPECT_EQ(c.verbs.op_timeout_ms, 2500u);
  EXPECT_EQ(c.verbs.cluster.memory_nodes[2].port, 7473);
  // The file decides the node count: a config that disagrees is invalid.
  c.memory_nodes = 2;
  EXPECT_NE(c.validate().find("cluster file lists 3"), std::string::npos) << c.validate();
  std::remove(path.c_str());
}

TEST(ClusterFile, ReadWithASizeLimit) {
  ClusterFile f;
  EXPECT_NE(ClusterFile::load("/dev/zero", &f).find("not a regular file"), std::string::npos);
  EXPECT_NE(ClusterFile::load("/nonexistent/c.json", &f).find("cannot open it"), std::string::npos);
  EXPECT_NE(ClusterFile::parse(std::string(kMaxConfigFileBytes + 1, ' '), &f).find("larger than"),
            std::string::npos);
}

}  // namespace
}  // namespace lw
