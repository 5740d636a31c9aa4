#include "latchwork/config/nic_profile.h"

#include <gtest/gtest.h>

#include "latchwork/config/cluster_config.h"

namespace lw {
namespace {

TEST(NicProfile, BuiltinProfilesLoadAndCiteEveryParameter) {
  const auto names = NicProfile::builtin_names();
  ASSERT_GE(names.size(), 3u);
  for (const char* want : {"cx5-100g", "cx6-200g", "cx7-400g"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  for (const auto& n : names) {
    NicProfile p;
    ASSERT_EQ(NicProfile::load(n, &p), "") << n;
    EXPECT_EQ(p.name, n);
    for (const auto& f : NicParams::fields()) {
      ASSERT_TRUE(p.sources.count(f.name)) << n << " " << f.name;
      const std::string& src = p.sources.at(f.name);
      // A citation of a paper, or an honest "fitted"/"assumed"/"predicted".
      const bool cited = src.find("§") != std::string::npos || src.find("Fig") != std::string::npos;
      const bool marked = src.rfind("fitted", 0) == 0 || src.rfind("assumed", 0) == 0 ||
                          src.rfind("predicted", 0) == 0;
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
