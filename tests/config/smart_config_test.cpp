// The "smart" and "rpc" objects of the cluster config and their validation.
#include <gtest/gtest.h>

#include "latchwork/config/cluster_config.h"

namespace lw {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(SmartConfig, DefaultsAreValidAndOff) {
  SmartConfig s;
  EXPECT_EQ(s.validate(), "");
  EXPECT_FALSE(s.throttling || s.backoff || s.dynamic_limit || s.coroutine_throttling);
  EXPECT_EQ(s.t0_ns << s.max_backoff_shift, 1'638'400u);  // t_M = 1.6 ms (SMART §4.3)
  EXPECT_EQ(RpcConfig{}.validate(), "");
}

TEST(SmartConfig, JsonRoundTrip) {
  ClusterConfig a;
  a.smart.throttling = true;
  a.smart.backoff = true;
  a.smart.dynamic_limit = true;
  a.smart.coroutine_throttling = true;
  a.smart.candidate_credits = {2, 16, 3};
  a.smart.delta_ns = 123'456;
  a.smart.stable_deltas = 7;
  a.smart.t0_ns = 999;
  a.smart.max_backoff_shift = 6;
  a.smart.gamma_high = 0.75;
  a.smart.gamma_low = 0.05;
  a.smart.retry_window_ns = 55'000;
  a.rpc.cores_per_node = 9;
  a.rpc.queue_capacity = 77;
  a.rpc.recv_cpu_ns = 11;
  a.rpc.reply_cpu_ns = 13;
  ClusterConfig b;
  ASSERT_EQ(ClusterConfig::from_json(a.to_json(), &b), "");
  EXPECT_TRUE(b.smart.throttling && b.smart.backoff && b.smart.dynamic_limit && b.smart.coroutine_throttling);
  EXPECT_EQ(b.smart.candidate_credits, (std::vector<uint32_t>{2, 16, 3}));
  EXPECT_EQ(b.smart.delta_ns, 123'456u);
  EXPECT_EQ(b.smart.stable_deltas, 7u);
  EXPECT_EQ(b.smart.t0_ns, 999u);
  EXPECT_EQ(b.smart.max_backoff_shift, 6u);
  EXPECT_EQ(b.smart.gamma_high, 0.75);
  EXPECT_EQ(b.smart.gamma_low, 0.05);
  EXPECT_EQ(b.smart.retry_window_ns, 55'000u);
  EXPECT_EQ(b.rpc.cores_per_node, 9u);
  EXPECT_EQ(b.rpc.queue_capacity, 77u);
  EXPECT_EQ(b.rpc.recv_cpu_ns, 11u);
  EXPECT_EQ(b.rpc.reply_cpu_ns, 13u);
  EXPECT_EQ(b.to_json(), a.to_json());
}

TEST(SmartConfig, PartialObjectKeepsOtherFields) {
  ClusterConfig c;
  ASSERT_EQ(ClusterConfig::from_json(R"({"smart": {"backoff": true}, "rpc": {"cores_per_node": 4}})", &c), "");
  EXPECT_TRUE(c.smart.backoff);
  EXPECT_FALSE(c.smart.throttling);
  EXPECT_EQ(c.smart.candidate_credits, SmartConfig{}.candidate_credits);
  EXPECT_EQ(c.rpc.cores_per_node, 4u);
  EXPECT_EQ(c.rpc.queue_capacity, RpcConfig{}.queue_capacity);
}

TEST(SmartConfig, JsonRejectsUnknownKeysAndBadValues) {
  struct Case {
    const char* json;
    const char* error;
  };
  const Case cases[] = {
      {R"({"smart": {"throtling": true}})", "unknown key \"throtling\" in smart"},
      {R"({"rpc": {"cores": 2}})", "unknown key \"cores\" in rpc"},
      {R"({"smart": 3})", "smart must be an object"},
      {R"({"rpc": []})", "rpc must be an object"},
      {R"({"smart": {"backoff": 1}})", "smart.backoff must be true or false"},
      {R"({"smart": {"candidate_credits": []}})", "smart.candidate_credits"},
      {R"({"smart": {"candidate_credits": [4, 0]}})", "smart.candidate_credits[] must be in [1, 65536], got 0"},
      {R"({"smart": {"candidate_credits": [4, -1]}})", "smart.candidate_credits[]"},
      {R"({"smart": {"candidate_credits": [4, 2.5]}})", "smart.candidate_credits[]"},
      {R"({"smart": {"candidate_credits": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}})",
       "smart.candidate_credits"},
      {R"({"smart": {"delta_ns": 0}})", "smart.delta_ns must be in [1, 1000000000], got 0"},
      {R"({"smart": {"t0_ns": -5}})", "smart.t0_ns"},
      {R"({"smart": {"max_backoff_shift": 21}})", "smart.max_backoff_shift must be in [0, 20]"},
      {R"({"smart": {"max_backoff_shift": 4294967297}})", "smart.max_backoff_shift"},
      {R"({"smart": {"t0_ns": 1000000, "max_backoff_shift": 10}})", "the longest backoff"},
      {R"({"smart": {"gamma_low": 0.6}})", "smart.gamma_low (0.6) must not exceed smart.gamma_high (0.5)"},
      {R"({"smart": {"gamma_high": -1}})", "smart.gamma_high must be in [0, 1000]"},
      {R"({"smart": {"gamma_high": "x"}})", "smart.gamma_high must be a number"},
      {R"({"smart": {"retry_window_ns": 0}})", "smart.retry_window_ns"},
      {R"({"smart": {"dynamic_limit": true}})", "needs smart.backoff"},
      {R"({"rpc": {"cores_per_node": 0}})", "rpc.cores_per_node must be in [1, 256], got 0"},
      {R"({"rpc": {"queue_capacity": 2000000}})", "rpc.queue_capacity must be in [1, 1048576]"},
      {R"({"rpc": {"recv_cpu_ns": 2000000000}})", "rpc.recv_cpu_ns must be in [0, 1000000000]"},
  };
  for (const Case& k : cases) {
    ClusterConfig c;
    const std::string before = c.to_json();
    const std::string e = ClusterConfig::from_json(k.json, &c);
    EXPECT_TRUE(contains(e, k.error)) << k.json << " -> \"" << e << "\"";
    EXPECT_EQ(c.to_json(), before) << "a rejected file must change nothing: " << k.json;
  }
}

TEST(SmartConfig, ClusterValidateChecksSmartAndRpc) {
  ClusterConfig c;
  c.smart.candidate_credits.clear();
  EXPECT_TRUE(contains(c.validate(), "smart.candidate_credits"));
  c = ClusterConfig{};
  c.smart.stable_deltas = SmartConfig::kMaxStableDeltas + 1;
  EXPECT_TRUE(contains(c.validate(), "smart.stable_deltas"));
  c = ClusterConfig{};
  c.smart.gamma_low = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(contains(c.validate(), "smart.gamma_low"));
  c = ClusterConfig{};
  c.rpc.queue_capacity = 0;
  EXPECT_TRUE(contains(c.validate(), "rpc.queue_capacity"));
  c = ClusterConfig{};
  c.smart.backoff = c.smart.dynamic_limit = c.smart.coroutine_throttling = c.smart.throttling = true;
  EXPECT_EQ(c.validate(), "");
}

}  // namespace
}  // namespace lw
