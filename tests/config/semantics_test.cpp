// The semantics contract's switches as config: write_payload_late by name in
// the profiles and JSON, and relaxations switched on with a zero window refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "latchwork/config/cluster_config.h"

namespace lw {
namespace {

TEST(Semantics, WritePayloadLateInTheProfiles) {
  EXPECT_TRUE(Semantics::spec().write_payload_late);
  // ConnectX NICs read sources late too, but the switch would move the
  // calibrated repro figures (semantics.cpp).
  EXPECT_FALSE(Semantics::connectx().write_payload_late);
  EXPECT_FALSE(Semantics::sequential().write_payload_late);
  bool listed = false;
  for (const auto& sw : Semantics::switches())
    if (std::string(sw.name) == "write_payload_late") listed = sw.field == &Semantics::write_payload_late;
  EXPECT_TRUE(listed);
}

TEST(Semantics, FailedCasWritesBackInTheProfilesAndByName) {
  // Soft-RoCE does it; on by name only (semantics.h says why).
  EXPECT_FALSE(Semantics::spec().failed_cas_writes_back);
  EXPECT_FALSE(Semantics::connectx().failed_cas_writes_back);
  EXPECT_FALSE(Semantics::sequential().failed_cas_writes_back);
  ClusterConfig c;
  ASSERT_EQ(ClusterConfig::from_json(R"({"profile": "connectx", "semantics": {"failed_cas_writes_back": true}})", &c),
            "");
  EXPECT_TRUE(c.semantics.failed_cas_writes_back);
  EXPECT_TRUE(c.semantics.atomic_loses_write);
}

TEST(Semantics, WritePayloadLateByNameInJson) {
  ClusterConfig c;
  ASSERT_EQ(ClusterConfig::from_json(R"({"profile": "sequential", "semantics": {"write_payload_late": true}})", &c),
            "");
  EXPECT_TRUE(c.semantics.write_payload_late);
  EXPECT_NE(c.to_json().find("\"write_payload_late\": true"), std::string::npos);
  ClusterConfig back;
  ASSERT_EQ(ClusterConfig::from_json(c.to_json(), &back), "");
  EXPECT_EQ(back.semantics, c.semantics);
  EXPECT_NE(ClusterConfig::from_json(R"({"semantics": {"write_payload_late": "yes"}})", &c)
                .find("semantics.write_payload_late must be true or false"),
            std::string::npos);
}

TEST(Semantics, BuiltInProfilesAreValid) {
  for (const std::string& name : Semantics::profile_names()) {
    Semantics s;
    ASSERT_TRUE(Semantics::from_profile(name, &s));
    EXPECT_EQ(s.validate(), "") << name;
    ClusterConfig c;
    ASSERT_EQ(c.set_profile(name), "");
    EXPECT_EQ(c.validate(), "") << name;
  }
}

TEST(Semantics, ShippedConfigsAreValid) {
  // This file is tests/config/semantics_test.cpp (CMake passes absolute paths).
  const std::filesystem::path dir = std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "configs";
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ClusterConfig c;
    EXPECT_EQ(ClusterConfig::from_json_file(entry.path().string(), &c), "") << entry.path();
    ++n;
  }
  EXPECT_GT(n, 0);
}

TEST(Semantics, ARelaxationWithAZeroWindowIsRefused) {
  struct Case {
    const char* json;
    const char* sw;
    const char* window;
  };
  const Case cases[] = {
      {R"({"semantics": {"read_spread_ns": 0}})", "read_lines_unordered", "read_spread_ns"},
      {R"({"semantics": {"write_line_gap_ns": 0}})", "write_lines_staggered", "write_line_gap_ns"},
      {R"({"semantics": {"atomic_window_ns": 0, "atomic_loses_cpu": false}})", "atomic_loses_write",
       "atomic_window_ns"},
      {R"({"semantics": {"atomic_window_ns": 0, "atomic_loses_write": false}})", "atomic_loses_cpu",
       "atomic_window_ns"},
      {R"({"profile": "sequential", "semantics": {"read_lines_unordered": true}})", "read_lines_unordered",
       "read_spread_ns"},
  };
  for (const Case& k : cases) {
    ClusterConfig c;
    const std::string e = ClusterConfig::from_json(k.json, &c);
    EXPECT_NE(e.find(std::string("semantics.") + k.sw + " is on"), std::string::npos) << k.json << ": " << e;
    EXPECT_NE(e.find(std::string("semantics.") + k.window + " is 0"), std::string::npos) << k.json << ": " << e;
  }
  // The same window with its switches off is fine: nothing acts in it.
  ClusterConfig c;
  EXPECT_EQ(ClusterConfig::from_json(
                R"({"semantics": {"read_spread_ns": 0, "read_lines_unordered": false}})", &c),
            "");
  EXPECT_EQ(ClusterConfig::from_json(
                R"({"profile": "sequential", "semantics": {"write_payload_late": true}})", &c),
            "")
      << "write_payload_late needs no window";
  // validate() itself refuses it, for configs built in code.
  ClusterConfig code;
  code.semantics.write_line_gap_ns = 0;
  EXPECT_NE(code.validate().find("write_lines_staggered"), std::string::npos);
}

}  // namespace
}  // namespace lw
