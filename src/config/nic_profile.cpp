#include "latchwork/config/nic_profile.h"

#include <cmath>
#include <cstddef>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "nic_profiles_builtin.h"

namespace lw {
namespace {
using nlohmann::json;
using Kind = NicParams::Field::Kind;

#define LW_FIELD(name, unit, kind, meaning) \
  NicParams::Field { #name, unit, meaning, kind, offsetof(NicParams, name) }

}  // namespace

const std::vector<NicParams::Field>& NicParams::fields() {
  static const std::vector<Field> f = {
      LW_FIELD(link_gbps, "Gbit/s", Kind::kDouble, "line rate of each NIC port"),
      LW_FIELD(header_bytes, "B", Kind::kUint32, "transport and link headers per packet"),
      LW_FIELD(mtu_bytes, "B", Kind::kUint32, "payload bytes per packet"),
      LW_FIELD(propagation_ns, "ns", Kind::kNanos, "one-way cable and switch delay"),
      LW_FIELD(jitter_ns, "ns", Kind::kNanos, "uniform extra delay per network traversal"),
      LW_FIELD(nic_latency_ns, "ns", Kind::kNanos, "one traversal of a NIC's pipeline"),
      LW_FIELD(msg_rate_mops, "M/s", Kind::kDouble, "requests one NIC processes per second"),
      LW_FIELD(pcie_read_ns, "ns", Kind::kNanos, "DMA read round trip"),
      LW_FIELD(pcie_write_ns, "ns", Kind::kNanos, "posted DMA write until visible"),
      LW_FIELD(pcie_gbps, "Gbit/s", Kind::kDouble, "usable DMA bandwidth"),
      LW_FIELD(pcie_read_mops, "M/s", Kind::kDouble, "non-posted DMA reads per second at a responder"),
      LW_FIELD(lock_table_bits, "bits", Kind::kUint32, "atomic lock table index = low address bits"),
      LW_FIELD(atomic_write_back_ns, "ns", Kind::kNanos, "slot held after an atomic's read until its write-back"),
      LW_FIELD(device_memory_ns, "ns", Kind::kNanos, "on-chip device memory access"),
      LW_FIELD(device_atomic_ns, "ns", Kind::kNanos, "slot held by an atomic on device memory"),
      LW_FIELD(qp_cache_entries, "QPs", Kind::kUint32, "QP contexts cached on the requester NIC"),
      LW_FIELD(qp_miss_ns, "ns", Kind::kNanos, "NIC time lost fetching a QP context"),
      LW_FIELD(wqe_cache_entries, "WRs", Kind::kUint32, "outstanding WQEs the requester NIC caches"),
      LW_FIELD(wqe_miss_ns, "ns", Kind::kNanos, "NIC time lost refetching one WQE"),
      LW_FIELD(context_cache_entries, "entries", Kind::kUint32, "NIC cache taken by each extra device context"),
      LW_FIELD(low_latency_doorbells, "", Kind::kUint32, "dedicated doorbells per device context"),
      LW_FIELD(medium_latency_doorbells, "", Kind::kUint32, "shared, spinlocked doorbells per context"),
      LW_FIELD(mmio_ns, "ns", Kind::kNanos, "CPU time to ring a doorbell"),
      LW_FIELD(lock_handoff_ns, "ns", Kind::kNanos, "doorbell spinlock hand-over, per sharing thread"),
      LW_FIELD(lock_max_spinners, "threads", Kind::kUint32, "spinners beyond this add no hand-over cost"),
      LW_FIELD(post_cpu_ns, "ns", Kind::kNanos, "CPU time to build one WQE"),
      LW_FIELD(poll_cpu_ns, "ns", Kind::kNanos, "CPU time to poll one completion"),
      LW_FIELD(coroutine_switch_ns, "ns", Kind::kNanos, "CPU time to resume a coroutine"),
      LW_FIELD(cpu_access_ns, "ns", Kind::kNanos, "memory-node CPU load/store/atomic"),
      LW_FIELD(crc64_ns_per_byte, "ns", Kind::kDouble, "CPU time of CRC-64 per byte"),
      LW_FIELD(farm_check_ns_per_line, "ns", Kind::kDouble, "CPU time per FaRM line version"),
      LW_FIELD(switch_pipeline_ns, "ns", Kind::kNanos, "one pass through a programmable switch's pipeline"),
      LW_FIELD(smartnic_cores, "cores", Kind::kUint32, "SmartNIC cores serving latch RPCs"),
      LW_FIELD(smartnic_rpc_ns, "ns", Kind::kNanos, "a SmartNIC core serving one latch RPC"),
  };
  return f;
}
#undef LW_FIELD

double NicParams::get(const Field& f) const {
  const auto* base = reinterpret_cast<const std::byte*>(this) + f.offset;
  switch (f.kind) {
    case Kind::kDouble: return *reinterpret_cast<const double*>(base);
    case Kind::kUint32: return *reinterpret_cast<const uint32_t*>(base);
    case Kind::kNanos: return static_cast<double>(*reinterpret_cast<const Nanos*>(base));
  }
  return 0;
}

std::string NicParams::value_error(const Field& f, double v) {
  const std::string name = std::string("nic parameter \"") + f.name + "\"";
  if (!(v >= 0) || !std::isfinite(v)) return name + " must be a finite non-negative number";
  if (f.kind == Kind::kDouble) return {};
  // 2^32 and 2^64 are exact doubles; values at or above them do not fit.
  const double limit = f.kind == Kind::kUint32 ? 4294967296.0 : 18446744073709551616.0;
  if (v != std::floor(v) || v >= limit)
    return name + " must be a non-negative integer below " +
           (f.kind == Kind::kUint32 ? "2^32" : "2^64");
  return {};
}

void NicParams::set(const Field& f, double v) {
  auto* base = reinterpret_cast<std::byte*>(this) + f.offset;
  switch (f.kind) {
    case Kind::kDouble: *reinterpret_cast<double*>(base) = v; break;
    case Kind::kUint32: *reinterpret_cast<uint32_t*>(base) = static_cast<uint32_t>(v); break;
    case Kind::kNanos: *reinterpret_cast<Nanos*>(base) = static_cast<Nanos>(v); break;
  }
}

const std::vector<std::pair<const char*, bool NicMechanisms::*>>& NicMechanisms::switches() {
  static const std::vector<std::pair<const char*, bool NicMechanisms::*>> s = {
      {"link", &NicMechanisms::link},
      {"message_rate", &NicMechanisms::message_rate},
      {"pcie", &NicMechanisms::pcie},
      {"lock_table", &NicMechanisms::lock_table},
      {"device_memory", &NicMechanisms::device_memory},
      {"qp_cache", &NicMechanisms::qp_cache},
      {"wqe_cache", &NicMechanisms::wqe_cache},
      {"doorbells", &NicMechanisms::doorbells},
      {"cpu_costs", &NicMechanisms::cpu_costs},
  };
  return s;
}

std::string NicProfile::validate() const {
  const NicParams& p = params;
  for (const auto& f : NicParams::fields()) {
    const double v = p.get(f);
    if (!std::isfinite(v) || v < 0 || v > 1e9)
      return std::string("nic parameter ") + f.name + " must be in [0, 1e9]";
    if (sources.count(f.name) == 0 || sources.at(f.name).empty())
      return std::string("nic parameter ") + f.name + " has no source (cite a paper or say fitted/assumed)";
  }
  if (p.link_gbps <= 0 || p.msg_rate_mops <= 0 || p.pcie_gbps <= 0 || p.pcie_read_mops <= 0)
    return "nic rates (link_gbps, msg_rate_mops, pcie_gbps, pcie_read_mops) must be positive";
  if (p.mtu_bytes < 256) return "nic parameter mtu_bytes must be at least 256";
  if (p.lock_table_bits < 3 || p.lock_table_bits > 24)
    return "nic parameter lock_table_bits must be in [3, 24]";
  if (p.qp_cache_entries == 0 || p.wqe_cache_entries == 0)
    return "nic cache sizes must be positive";
  if (p.lock_max_spinners == 0) return "nic parameter lock_max_spinners must be positive";
  if (p.medium_latency_doorbells == 0) return "nic parameter medium_latency_doorbells must be positive";
  if (p.smartnic_cores == 0 || p.smartnic_cores > 1024) return "nic parameter smartnic_cores must be in [1, 1024]";
  if (p.smartnic_rpc_ns == 0) return "nic parameter smartnic_rpc_ns must be positive";
  return {};
}

std::string NicProfile::to_json() const {
  json params_json = json::object();
  for (const auto& f : NicParams::fields()) {
    auto it = sources.find(f.name);
    params_json[f.name] = {{"value", params.get(f)},
                           {"source", it == sources.end() ? "" : it->second}};
  }
  json j = {{"name", name}, {"description", description}, {"parameters", params_json}};
  return j.dump(2);
}

std::string NicProfile::from_json(const std::string& text, NicProfile* out) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    return std::string("nic profile is not valid JSON: ") + e.what();
  }
  if (!j.is_object()) return "nic profile must be a JSON object";
  NicProfile p;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "name" && it.key() != "description" && it.key() != "parameters")
      return "unknown key \"" + it.key() + "\" in nic profile";
  }
  if (!j.contains("name") || !j["name"].is_string()) return "nic profile needs a string \"name\"";
  p.name = j["name"].get<std::string>();
  if (j.contains("description") && j["description"].is_string())
    p.description = j["description"].get<std::string>();
  if (!j.contains("parameters") || !j["parameters"].is_object())
    return "nic profile needs a \"parameters\" object";
  const json& ps = j["parameters"];
  for (auto it = ps.begin(); it != ps.end(); ++it) {
    const NicParams::Field* field = nullptr;
    for (const auto& f : NicParams::fields())
      if (it.key() == f.name) field = &f;
    if (!field) return "unknown nic parameter \"" + it.key() + "\"";
    const json& e = *it;
    if (!e.is_object() || !e.contains("value") || !e["value"].is_number() ||
        !e.contains("source") || !e["source"].is_string())
      return "nic parameter \"" + it.key() + "\" must be {\"value\": number, \"source\": string}";
    const double v = e["value"].get<double>();
    if (std::string err = NicParams::value_error(*field, v); !err.empty()) return err;
    p.params.set(*field, v);
    p.sources[it.key()] = e["source"].get<std::string>();
  }
  if (std::string err = p.validate(); !err.empty()) return p.name + ": " + err;
  *out = std::move(p);
  return {};
}

std::vector<std::string> NicProfile::builtin_names() {
  std::vector<std::string> names;
  for (const auto& b : builtin_nic_profiles()) names.push_back(b.name);
  return names;
}

std::string NicProfile::load(const std::string& name_or_path, NicProfile* out) {
  for (const auto& b : builtin_nic_profiles())
    if (name_or_path == b.name) return from_json(b.json, out);
  if (name_or_path.find('/') == std::string::npos &&
      name_or_path.find(".json") == std::string::npos) {
    std::string known;
    for (const auto& n : builtin_names()) known += (known.empty() ? "" : ", ") + n;
    return "unknown nic profile \"" + name_or_path + "\" (built in: " + known +
           "; or give a path to a JSON file)";
  }
  std::ifstream in(name_or_path);
  if (!in) return "cannot open nic profile file \"" + name_or_path + "\"";
  std::stringstream ss;
  ss << in.rdbuf();
  return from_json(ss.str(), out);
}

const char* to_string(QpPolicy p) { return kQpPolicyNames[static_cast<int>(p)]; }

bool parse_qp_policy(const std::string& s, QpPolicy* out) {
  for (int i = 0; i < 4; ++i) {
    if (s == kQpPolicyNames[i]) {
      *out = static_cast<QpPolicy>(i);
      return true;
    }
  }
  return false;
}

}  // namespace lw
