// Inputs the fuzz targets (fuzz/) found to crash or misbehave, kept as
// regression tests. Each was a crash under UBSan before its fix.
#include <gtest/gtest.h>

#include "latchwork/config/cluster_config.h"
#include "latchwork/config/nic_profile.h"

namespace lw {
namespace {

bool mentions(const std::string& error, const std::string& what) {
  return error.find(what) != std::string::npos;
}

// fuzz_nic_profile: an integer parameter at or above 2^32 (or a Nanos one at or
// above 2^64) was converted from double with static_cast: undefined behaviour
// (UBSan: "outside the range of representable values"), in practice a silent
// wrap (2^32 + 12 became 12).
TEST(FuzzRegression, NicProfileIntegerParameterOutOfRangeIsAnError) {
  for (const char* value : {"4294967308", "4294967296", "1e300", "1.8446744073709552e19"}) {
    for (const char* field : {"lock_table_bits", "mtu_bytes", "propagation_ns"}) {
      const std::string text = std::string(R"({"name": "x", "parameters": {")") + field +
                               R"(": {"value": )" + value + R"(, "source": "fuzz"}}})";
      NicProfile p;
      const std::string e = NicProfile::from_json(text, &p);
      EXPECT_TRUE(mentions(e, field) && mentions(e, "must be")) << text << " -> " << e;
    }
  }
}

// fuzz_cluster_config: the same values as a config's nic.parameters override
// (NicConfig::resolve) reached the same conversion; its own check converted
// the double to uint64_t first, itself undefined above 2^64.
TEST(FuzzRegression, NicOverrideOutOfRangeIsAnError) {
  for (const char* value : {"4294967308", "1e300", "-1", "0.5"}) {
    ClusterConfig c;
    const std::string text =
        std::string(R"({"nic": {"profile": "cx5-100g", "parameters": {"lock_table_bits": )") + value + "}}}";
    const std::string e = ClusterConfig::from_json(text, &c);
    EXPECT_TRUE(mentions(e, "lock_table_bits")) << text << " -> " << e;
  }
  ClusterConfig c;
  EXPECT_EQ(ClusterConfig::from_json(R"({"nic": {"profile": "cx5-100g", "parameters": {"propagation_ns": 300}}})", &c), "");
}

// Every field's range lies inside its storage type, so a value check_value
// accepts never reaches an undefined double-to-integer conversion in set().
TEST(FuzzRegression, NicParameterRangesFitTheirTypes) {
  for (const auto& f : NicParams::fields()) {
    EXPECT_EQ(NicParams::check_value(f, f.min), "") << f.name;
    EXPECT_EQ(NicParams::check_value(f, f.max), "") << f.name;
    EXPECT_NE(NicParams::check_value(f, -1), "") << f.name;
    EXPECT_NE(NicParams::check_value(f, 1e300 * 1e300), "") << f.name;  // infinity
    if (f.kind == NicParams::Field::Kind::kUint32) {
      EXPECT_LT(f.max, 4294967296.0) << f.name;
    }
    if (f.kind == NicParams::Field::Kind::kNanos) {
      EXPECT_LT(f.max, 18446744073709551616.0) << f.name;
    }
    EXPECT_GE(f.min, 0) << f.name;
  }
}

}  // namespace
}  // namespace lw
