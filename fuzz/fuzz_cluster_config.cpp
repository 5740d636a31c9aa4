// Fuzz target: the cluster config JSON (ClusterConfig::from_json, validate,
// to_json). The API reports every bad input as an error message; a crash, an
// abort, an exception, a sanitizer report or a hang is a bug. An accepted
// config must survive its own round trip.
#include "fuzz_common.h"
#include "latchwork/config/cluster_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = lw::fuzz::as_string(data, size);
  if (lw::fuzz::names_special_file(text)) return 0;
  lw::ClusterConfig c;
  if (!lw::ClusterConfig::from_json(text, &c).empty()) return 0;
  lw::fuzz::check_round_trip(c);
  return 0;
}
