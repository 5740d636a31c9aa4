// Every rule of the semantics contract: its weak outcome appears under the
// spec profile within N seeds and never under sequential; forbidden outcomes
// never appear under any profile.
#include <gtest/gtest.h>

#include "litmus/litmus.h"

namespace lw {
namespace {

constexpr uint64_t kSeeds = 400;

class Litmus : public ::testing::TestWithParam<std::string> {
 protected:
  const LitmusTest& test() const {
    for (const LitmusTest& t : litmus_tests())
      if (t.name == GetParam()) return t;
    ADD_FAILURE() << "no test " << GetParam();
    return litmus_tests().front();
  }
};

TEST_P(Litmus, NoProfileProducesADisallowedOutcome) {
  for (const char* profile : {"spec", "connectx", "sequential"}) {
    LitmusReport r = run_litmus(test(), profile, kSeeds);
    EXPECT_TRUE(r.violations.empty()) << profile << ": saw " << ::testing::PrintToString(r.violations);
    EXPECT_EQ(r.runs, kSeeds);
  }
}

class LitmusWeak : public Litmus {};

TEST_P(LitmusWeak, WeakOutcomeOnlyWhenItsRelaxationIsOn) {
  const LitmusTest& t = test();
  ASSERT_FALSE(t.weak.empty());
  // spec, with the switch on by name where spec leaves it off (failed_cas_writes_back).
  ClusterConfig full;
  full.set_profile("spec");
  full.semantics.*(t.relaxation) = true;
  EXPECT_TRUE(run_litmus(t, full, kSeeds).weak_seen) << "spec never produced " << t.weak;
  EXPECT_FALSE(run_litmus(t, "sequential", kSeeds).weak_seen);
  // Its own switch alone is enough...
  ClusterConfig only;
  only.set_profile("spec");
  only.semantics = Semantics::sequential();
  only.semantics.read_spread_ns = Semantics::spec().read_spread_ns;
  only.semantics.write_line_gap_ns = Semantics::spec().write_line_gap_ns;
  only.semantics.atomic_window_ns = Semantics::spec().atomic_window_ns;
  only.semantics.*(t.relaxation) = true;
  EXPECT_TRUE(run_litmus(t, only, kSeeds).weak_seen) << "its switch alone did not produce it";
  // ...and necessary: spec with just that switch off never shows it.
  ClusterConfig without;
  without.set_profile("spec");
  without.semantics.*(t.relaxation) = false;
  LitmusReport r = run_litmus(t, without, kSeeds);
  EXPECT_FALSE(r.weak_seen);
  EXPECT_TRUE(r.violations.empty());
}

TEST_P(Litmus, SequentialOutcomesAllAppear) {
  // The test programs race for real: over many seeds a sequential execution
  // shows more than one interleaving where more than one is possible.
  const LitmusTest& t = test();
  LitmusReport r = run_litmus(t, "sequential", kSeeds);
  if (t.sequential.size() > 1) {
    EXPECT_GT(r.outcomes.size(), 1u) << "no race happened";
  }
}

std::vector<std::string> names(bool only_weak) {
  std::vector<std::string> n;
  for (const LitmusTest& t : litmus_tests())
    if (!only_weak || !t.weak.empty()) n.push_back(t.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(Contract, Litmus, ::testing::ValuesIn(names(false)),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Contract, LitmusWeak, ::testing::ValuesIn(names(true)),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace lw
