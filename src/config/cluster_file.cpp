#include "latchwork/config/cluster_file.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace lw {

using nlohmann::json;

std::string read_config_file(const std::string& what, const std::string& path, std::string* out) {
  // Only regular files: a FIFO or a device (/dev/zero) has no size to check
  // and may never end.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return what + " " + path + ": cannot open it";
  if (!std::filesystem::is_regular_file(status))
    return what + " " + path + " is not a regular file";
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return what + " " + path + ": cannot open it (" + ec.message() + ")";
  if (size > kMaxConfigFileBytes)
    return what + " " + path + " has " + std::to_string(size) + " bytes; at most " +
           std::to_string(kMaxConfigFileBytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) return what + " " + path + ": cannot open it";
  // Read at most the limit, even if the file grew since it was measured.
  std::string text(kMaxConfigFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxConfigFileBytes)
    return what + " " + path + " is larger than " + std::to_string(kMaxConfigFileBytes) + " bytes";
  *out = std::move(text);
  return {};
}

std::string parse_host_port(const std::string& text, MemoryNodeAddress* out) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    return "\"" + text + "\" is not HOST:PORT";
  const std::string port = text.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    return "\"" + text + "\": port must be a number in [1, 65535]";
  const unsigned long p = std::strtoul(port.c_str(), nullptr, 10);
  if (p == 0 || p > 65535) return "\"" + text + "\": port must be a number in [1, 65535]";
  out->host = text.substr(0, colon);
  out->port = static_cast<uint16_t>(p);
  return {};
}

std::string ClusterFile::parse(const std::string& text, ClusterFile* out) {
  if (text.size() > kMaxConfigFileBytes)
    return "larger than " + std::to_string(kMaxConfigFileBytes) + " bytes";
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "not valid JSON";
  if (!j.is_object()) return "must be a JSON object";
  ClusterFile c;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "memory_nodes" && it.key() != "device" && it.key() != "ib_port" &&
        it.key() != "gid_index")
      return "unknown key \"" + it.key() + "\" (memory_nodes, device, ib_port, gid_index)";
  auto nodes = j.find("memory_nodes");
  if (nodes == j.end()) return "memory_nodes is missing: list each memory node as \"HOST:PORT\"";
  if (!nodes->is_array() || nodes->empty())
    return "memory_nodes must be a non-empty array of \"HOST:PORT\" strings";
  if (nodes->size() > kMaxMemoryNodes)
    return "memory_nodes lists " + std::to_string(nodes->size()) + " nodes; at most " +
           std::to_string(kMaxMemoryNodes);
  for (size_t i = 0; i < nodes->size(); ++i) {
    const json& n = (*nodes)[i];
    if (!n.is_string()) return "memory_nodes[" + std::to_string(i) + "] must be a \"HOST:PORT\" string";
    MemoryNodeAddress a;
    if (std::string e = parse_host_port(n.get<std::string>(), &a); !e.empty())
      return "memory_nodes[" + std::to_string(i) + "]: " + e;
    c.memory_nodes.push_back(a);
  }
  if (auto it = j.find("device"); it != j.end()) {
    if (!it->is_string()) return "device must be a string such as \"rxe0\" or \"mlx5_0\"";
    c.device = it->get<std::string>();
  }
  if (auto it = j.find("ib_port"); it != j.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() < 1 || it->get<uint64_t>() > 255)
      return "ib_port must be an integer in [1, 255]";
    c.ib_port = it->get<uint32_t>();
  }
  if (auto it = j.find("gid_index"); it != j.end()) {
    // An unsigned value beyond 2^63 would read as a negative int64_t.
    if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<uint64_t>() > 1023) ||
        it->get<int64_t>() < -1 || it->get<int64_t>() > 1023)
      return "gid_index must be an integer in [-1, 1023] (-1 chooses)";
    c.gid_index = it->get<int32_t>();
  }
  *out = std::move(c);
  return {};
}

std::string ClusterFile::load(const std::string& path, ClusterFile* out) {
  std::string text;
  if (std::string e = read_config_file("cluster file", path, &text); !e.empty()) return e;
  std::string e = parse(text, out);
  return e.empty() ? e : "cluster file " + path + ": " + e;
}

}  // namespace lw
