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
  ClusterConfig b;
  ASSERT_EQ(ClusterConfig::from_json(a.to_json(), &b), "");
  EXPECT_EQ(b.compute_nodes, 4u);
  EXPECT_EQ(b.coroutines_per_thread, 8u);
  EXPECT_EQ(b.seed, 99u);
  EXPECT_EQ(b.semantics_profile, "connectx");
  EXPECT_EQ(b.semantics, a.semantics);
  EXPECT_EQ(b.timing.one_way_ns, 1234u);
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
      {R"({"compute_nodes": -3})", "non-negative integer"},
      {R"({"compute_nodes": "two"})", "non-negative integer"},
      {R"({"backend": "rdma"})", "backend must be sim, threads or verbs"},
      {R"({"backend": "verbs"})", "needs a cluster file"},
      {R"({"backend": "verbs", "verbs": {"cluster_file": "/nonexistent.json"}})", "cannot open it"},
      {R"({"verbs": {"op_timeout": 5}})", "unknown key \"op_timeout\" in verbs"},
      {R"({"verbs": {"staging_bytes": "big"}})", "verbs.staging_bytes"},
      {R"({"profile": "weird"})", "unknown profile"},
      {R"({"semantics": {"reads_unordered": 1}})", "must be true or false"},
      {R"({"semantics": {"teleport": true}})", "unknown key \"teleport\" in semantics"},
      {R"({"timing": {"one_way_ns": 0}})", "timing.one_way_ns"},
      {R"({"memory_node_bytes": 12})", "memory_node_bytes"},
  };
  for (const Case& k : cases) {
    std::string e = ClusterConfig::from_json(k.json, &c);
    EXPECT_NE(e.find(k.expect), std::string::npos) << k.json << " gave: " << e;
    EXPECT_EQ(c.seed, before.seed);
    EXPECT_EQ(c.compute_nodes, before.compute_nodes);
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
