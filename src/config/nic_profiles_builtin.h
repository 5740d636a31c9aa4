// The NIC profiles shipped in configs/nic/*.json, compiled in at build time
// (the generated nic_profiles_builtin.cpp) so the binary needs no data files.
#pragma once

#include <vector>

namespace lw {

struct BuiltinNicProfile {
  const char* name;
  const char* json;
};
const std::vector<BuiltinNicProfile>& builtin_nic_profiles();

}  // namespace lw
