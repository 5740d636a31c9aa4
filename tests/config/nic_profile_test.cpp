#include "latchwork/config/nic_profile.h"

#include <gtest/gtest.h>

#include "latchwork/config/cluster_config.h"

namespace lw {
namespace {

TEST(NicProfile, BuiltinProfilesLoadAndCiteEveryParameter) {
  const auto names = NicProfile::builtin_names();
  ASSERT_GE(names.size(), 3u);
  for (const char* want : {"cx3-56g", "cx5-100g", "cx6-200g", "cx7-400g"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  for (const auto& n : names) {
    NicProfile p;
    ASSERT_EQ(NicProfile::load(n, &p), "") << n;
    EXPECT_EQ(p.name, n);
    for (const auto& f : NicParams::fields()) {
      ASSERT_TRUE(p.sources.count(f.name)) << n << " " << f.name;
      const std::string& src = p.sources.at(f.name);
      // A citation of a paper, or an honest "fitted"/"published"/"assumed"/"predicted", or
      // "measured: " naming the benchmark that measured it (bench/cpu_work.cpp).
      const bool cited = src.find("§") != std::string::npos || src.find("Fig") != std::string::npos;
      const bool marked = src.rfind("fitted", 0) == 0 || src.rfind("assumed", 0) == 0 ||
                          src.rfind("predicted", 0) == 0 || src.rfind("published: ", 0) == 0 ||
                          (src.rfind("measured: bench/", 0) == 0);
      EXPECT_TRUE(cited || marked) << n << " " << f.name << ": " << src;
    }
  }
}

TEST(NicProfile, JsonRoundTrip) {
  NicProfile a, b;
  ASSERT_EQ(NicProfile::load("cx6-200g", &a), "");
  ASSERT_EQ(NicProfile::from_json(a.to_json(), &b), "");
  for (const auto& f : NicParams::fields()) EXPECT_EQ(a.params.get(f), b.params.get(f)) << f.name;
}

TEST(NicProfile, RejectsBadInput) {
  NicProfile p;
  EXPECT_NE(NicProfile::load("cx9-1600g", &p), "");
  EXPECT_NE(NicProfile::load("/nonexistent/profile.json", &p), "");
  EXPECT_NE(NicProfile::from_json("{", &p), "");
  EXPECT_NE(NicProfile::from_json(R"({"name":"x","parameters":{"warp_speed":{"value":1,"source":"a"}}})", &p), "");
  // Issue 11: no value is narrowed into its field, rates have a floor, ranges are named.
  struct Case {
    const char* param;
    const char* value;
    const char* expect;
  } cases[] = {
      {"lock_table_bits", "4294967308", "lock_table_bits must be an integer in [3, 24], got 4.29497e+09"},
      {"lock_table_bits", "2", "lock_table_bits must be an integer in [3, 24]"},
      {"link_gbps", "1e-300", "link_gbps must be a number in [0.01, 100000]"},
      {"link_gbps", "1e999", "not valid JSON"},
      {"msg_rate_mops", "0", "msg_rate_mops must be a number in"},
      {"jitter_ns", "18446744073709551615", "jitter_ns must be an integer in [0, 1e+09]"},
      {"mtu_bytes", "4294967296", "mtu_bytes must be an integer in [256, 65536]"},
      {"qp_cache_entries", "-1", "qp_cache_entries must be an integer in"},
      {"smartnic_cores", "1.5", "smartnic_cores must be an integer"},
  };
  for (const Case& k : cases) {
    const std::string json = std::string(R"({"name":"x","parameters":{")") + k.param +
                             R"(":{"value":)" + k.value + R"(,"source":"a"}}})";
    NicProfile q;
    q.name = "untouched";
    const std::string e = NicProfile::from_json(json, &q);
    EXPECT_NE(e.find(k.expect), std::string::npos) << json << " gave: " << e;
    EXPECT_EQ(q.name, "untouched");
  }
  EXPECT_NE(NicProfile::load("/dev/zero", &p).find("not a regular file"), std::string::npos);
  EXPECT_NE(NicProfile::from_json(std::string(kMaxConfigFileBytes + 1, ' '), &p).find("larger than"),
            std::string::npos);
  // A parameter without a source is refused: every number must say where it comes from.
  NicProfile good;
  ASSERT_EQ(NicProfile::load("cx5-100g", &good), "");
  good.sources.erase("link_gbps");
  EXPECT_NE(good.validate(), "");
}

TEST(NicConfig, OverridesApplyAndAreChecked) {
  NicConfig n;
  n.profile = "cx5-100g";
  n.overrides["msg_rate_mops"] = 60;
  NicProfile p;
  ASSERT_EQ(n.resolve(&p), "");
  EXPECT_EQ(p.params.msg_rate_mops, 60);
  n.overrides["lock_table_bits"] = 2.5;
  EXPECT_NE(n.resolve(&p), "");
  n.overrides.erase("lock_table_bits");
  n.overrides["nope"] = 1;
  EXPECT_NE(n.resolve(&p), "");
  n.overrides.erase("nope");
  // Beyond 2^64 a cast to an integer would be undefined: the range is checked first.
  n.overrides["lock_table_bits"] = 1e30;
  EXPECT_NE(n.resolve(&p).find("lock_table_bits must be an integer in [3, 24]"), std::string::npos);
  n.overrides["lock_table_bits"] = 4294967308.0;
  EXPECT_NE(n.resolve(&p).find("lock_table_bits"), std::string::npos);
}

TEST(NicConfig, ClusterConfigJsonCarriesTheNicSection) {
  ClusterConfig c;
  ASSERT_EQ(ClusterConfig::from_json(R"({"nic": {"profile": "cx6-200g", "qp_policy": "per-thread-qp",
      "mechanisms": {"lock_table": false}, "parameters": {"mmio_ns": 50}}})", &c), "");
  EXPECT_EQ(c.nic.profile, "cx6-200g");
  EXPECT_EQ(c.nic.qp_policy, QpPolicy::kPerThreadQp);
  EXPECT_FALSE(c.nic.mechanisms.lock_table);
  ClusterConfig d;
  ASSERT_EQ(ClusterConfig::from_json(c.to_json(), &d), "");
  EXPECT_EQ(d.nic.profile, "cx6-200g");
  EXPECT_FALSE(d.nic.mechanisms.lock_table);
  EXPECT_EQ(d.nic.overrides.at("mmio_ns"), 50);
  EXPECT_NE(ClusterConfig::from_json(R"({"nic": {"qp_policy": "per-core"}})", &c), "");
  EXPECT_NE(ClusterConfig::from_json(R"({"nic": {"mechanisms": {"warp": true}}})", &c), "");
  EXPECT_NE(ClusterConfig::from_json(R"({"nic": {"profile": "cx1-10g"}})", &c), "");
}

}  // namespace
}  // namespace lw
