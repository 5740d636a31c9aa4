// The cluster file of the verbs backend: where the memory nodes listen and
// which RDMA device and port the compute process uses.
//
//   {
//     "memory_nodes": ["127.0.0.1:7471", "10.0.0.2:7471"],   // node id = position
//     "device": "rxe0",      // optional: default the first device
//     "ib_port": 1,          // optional: default 1
//     "gid_index": 1         // optional: default the first RoCE v2 IPv4 GID
//   }
//
// Each memory node is a `latchwork memnode --listen HOST:PORT` process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lw {

struct MemoryNodeAddress {
  std::string host;
  uint16_t port = 0;
  std::string to_string() const { return host + ":" + std::to_string(port); }
  bool operator==(const MemoryNodeAddress&) const = default;
};

struct ClusterFile {
  static constexpr uint32_t kMaxMemoryNodes = 1024;

  std::vector<MemoryNodeAddress> memory_nodes;
  std::string device;      // "" = the first device found
  uint32_t ib_port = 1;
  int32_t gid_index = -1;  // -1 = choose (RoCE v2 with an IPv4 address; LID on InfiniBand)

  // Parse errors name the offending field; "" when valid.
  static std::string parse(const std::string& text, ClusterFile* out);
  static std::string load(const std::string& path, ClusterFile* out);
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const ClusterFile&) const = default;
};

// Config, cluster and NIC profile files larger than this are refused before
// they are read (a device such as /dev/zero must not be read forever).
inline constexpr uint64_t kMaxConfigFileBytes = 1ull << 20;

// Reads a regular file of at most kMaxConfigFileBytes into *out; an error
// message naming `what` and the path, or "".
std::string read_config_file(const std::string& what, const std::string& path, std::string* out);

// "HOST:PORT" with a non-zero port; an error message or "".
std::string parse_host_port(const std::string& text, MemoryNodeAddress* out);

}  // namespace lw
