// The backend conformance suite on every in-process backend configuration:
// each (configuration, case) pair is its own test. Also checks that the
// suite reports a wrong result and an unknown case as failures.
#include "conformance/conformance.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <tuple>

namespace lw {
namespace {

struct BackendConfig {
  const char* name;
  const char* backend;
  const char* profile;
  bool adversarial;
};

constexpr BackendConfig kConfigs[] = {
    {"sim_spec", "sim", "spec", false},
    {"sim_connectx", "sim", "connectx", false},
    {"sim_sequential", "sim", "sequential", false},
    {"threads", "threads", "spec", false},
    {"threads_adversarial", "threads", "spec", true},
};

// Keeps test names and ctest's listing readable.
void PrintTo(const BackendConfig& b, std::ostream* os) { *os << b.name; }

ClusterConfig config_for(const BackendConfig& b) {
  ClusterConfig c;
  c.backend = b.backend;
  EXPECT_EQ(c.set_profile(b.profile), "");
  c.threads.adversarial = b.adversarial;
  c.memory_nodes = 2;  // so the two-node cases run rather than skip
  c.memory_node_bytes = 4 << 20;
  c.seed = 11;
  return c;
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const ConformanceCase& c : conformance_cases()) names.push_back(c.full_name());
  return names;
}

class ConformanceCaseTest
    : public ::testing::TestWithParam<std::tuple<BackendConfig, std::string>> {};

TEST_P(ConformanceCaseTest, Passes) {
  const auto& [backend, name] = GetParam();
  ConformanceResult r = run_conformance_case(config_for(backend), name);
  EXPECT_NE(r.outcome, ConformanceResult::kFail) << r.full_name() << ": " << r.detail;
  // These configs have every capability and two memory nodes: nothing skips.
  EXPECT_NE(r.outcome, ConformanceResult::kSkip) << r.full_name() << ": " << r.detail;
}

std::string test_name(const ::testing::TestParamInfo<ConformanceCaseTest::ParamType>& info) {
  std::string s = std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param);
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

// Lower-case prefixes so that `ctest -R conformance` selects these tests.
INSTANTIATE_TEST_SUITE_P(conformance, ConformanceCaseTest,
                         ::testing::Combine(::testing::ValuesIn(kConfigs),
                                            ::testing::ValuesIn(case_names())),
                         test_name);

TEST(conformance, ADeliberatelyWrongExpectationFails) {
  ConformanceResult r =
      run_conformance_case(config_for(kConfigs[0]), "selftest/deliberate-mismatch");
  EXPECT_EQ(r.outcome, ConformanceResult::kFail);
  EXPECT_NE(r.detail.find("expected 0x1235, saw 0x1234"), std::string::npos) << r.detail;
}

TEST(conformance, UnknownCaseFails) {
  ConformanceResult r = run_conformance_case(config_for(kConfigs[0]), "results/no-such-case");
  EXPECT_EQ(r.outcome, ConformanceResult::kFail);
  EXPECT_NE(r.detail.find("no conformance case named \"results/no-such-case\""), std::string::npos)
      << r.detail;
}

TEST(conformance, MultiNodeCaseSkipsOnOneNode) {
  ClusterConfig c = config_for(kConfigs[0]);
  c.memory_nodes = 1;
  ConformanceResult r = run_conformance_case(c, "two-nodes");
  EXPECT_EQ(r.outcome, ConformanceResult::kSkip) << r.detail;
  EXPECT_NE(r.detail.find("needs 2 memory nodes"), std::string::npos) << r.detail;
  // The two-node batch case works with one node too (a made-up node id).
  r = run_conformance_case(c, "misuse/batch-two-nodes");
  EXPECT_EQ(r.outcome, ConformanceResult::kPass) << r.detail;
}

TEST(conformance, FilterSelectsBySubstring) {
  std::vector<ConformanceResult> rs = run_conformance(config_for(kConfigs[0]), "cas-");
  ASSERT_FALSE(rs.empty());
  for (const ConformanceResult& r : rs)
    EXPECT_NE(r.full_name().find("cas-"), std::string::npos) << r.full_name();
  EXPECT_TRUE(run_conformance(config_for(kConfigs[0]), "no-such-substring").empty());
}

}  // namespace
}  // namespace lw
