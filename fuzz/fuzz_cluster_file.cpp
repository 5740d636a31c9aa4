// Fuzz target: the verbs backend's cluster file (ClusterFile::parse) and
// HOST:PORT parsing. Errors are messages; a crash, an abort, an exception, a
// sanitizer report or a hang is a bug.
#include <cstdlib>

#include "fuzz_common.h"
#include "latchwork/config/cluster_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = lw::fuzz::as_string(data, size);
  lw::MemoryNodeAddress a;
  if (lw::parse_host_port(text, &a).empty() && (a.port == 0 || a.host.empty())) std::abort();
  lw::ClusterFile f;
  if (!lw::ClusterFile::parse(text, &f).empty()) return 0;
  if (f.memory_nodes.empty() || f.memory_nodes.size() > lw::ClusterFile::kMaxMemoryNodes) std::abort();
  for (const auto& n : f.memory_nodes) {
    lw::MemoryNodeAddress back;
    if (!lw::parse_host_port(n.to_string(), &back).empty() || back.port != n.port) std::abort();
  }
  return 0;
}
