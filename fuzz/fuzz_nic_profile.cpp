// Fuzz target: the NIC profile JSON (NicProfile::from_json, validate, to_json)
// and the NIC section of a config (NicConfig::resolve with overrides). Errors
// are messages; a crash, an abort, an exception, a sanitizer report or a hang
// is a bug. An accepted profile must be valid and survive its round trip.
#include <cstdlib>

#include "fuzz_common.h"
#include "latchwork/config/cluster_config.h"
#include "latchwork/config/nic_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = lw::fuzz::as_string(data, size);
  lw::NicProfile p;
  if (!lw::NicProfile::from_json(text, &p).empty()) return 0;
  lw::fuzz::check_round_trip(p);
  // The same values as a config's overrides on a built-in profile.
  lw::NicConfig nic;
  nic.profile = "cx5-100g";
  for (const auto& f : lw::NicParams::fields()) nic.overrides[f.name] = p.params.get(f);
  lw::NicProfile resolved;
  if (!nic.resolve(&resolved).empty()) std::abort();  // valid values must resolve
  return 0;
}
