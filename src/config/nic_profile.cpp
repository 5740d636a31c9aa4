#include "latchwork/config/nic_profile.h"

#include <cmath>
#include <cstddef>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "latchwork/config/cluster_config.h"
#include "nic_profiles_builtin.h"

namespace lw {
namespace {
using nlohmann::json;
using Kind = NicParams::Field::Kind;

#define LW_FIELD(name, unit, kind, meaning, lo, hi) \
  NicParams::Field { #name, unit, meaning, kind, offsetof(NicParams, name), lo, hi }

// Ranges of the parameters. Latencies share the cluster config's bound so
// that no sum of them overflows the simulator's clock; rates have a floor
// so that one message cannot take longer than the run (1e-300 Gbit/s).
constexpr double kNs = static_cast<double>(ClusterConfig::kMaxLatencyNs);
constexpr double kMaxGbps = 100'000;   // 100 Tbit/s
constexpr double kMinGbps = 0.01;      // 10 Mbit/s
constexpr double kMaxMops = 100'000;
constexpr double kMinMops = 0.001;     // 1000 requests per second
constexpr double kMaxEntries = 1 << 24;

}  // namespace

const std::vector<NicParams::Field>& NicParams::fields() {
  static const std::vector<Field> f = {
      LW_FIELD(link_gbps, "Gbit/s", Kind::kDouble, "line rate of each NIC port", kMinGbps, kMaxGbps),
      LW_FIELD(header_bytes, "B", Kind::kUint32, "transport and link headers per packet", 0, 4096),
      LW_FIELD(mtu_bytes, "B", Kind::kUint32, "payload bytes per packet", 256, 1 << 16),
      LW_FIELD(propagation_ns, "ns", Kind::kNanos, "one-way cable and switch delay", 0, kNs),
      LW_FIELD(jitter_ns, "ns", Kind::kNanos, "uniform extra delay per network traversal", 0, kNs),
      LW_FIELD(nic_latency_ns, "ns", Kind::kNanos, "one traversal of a NIC's pipeline", 0, kNs),
      LW_FIELD(msg_rate_mops, "M/s", Kind::kDouble, "requests one NIC processes per second", kMinMops, kMaxMops),
      LW_FIELD(processing_engines, "engines", Kind::kUint32, "in-order processing engines per NIC, one per QP", 1, 1024),
      LW_FIELD(pcie_read_ns, "ns", Kind::kNanos, "DMA read round trip", 0, kNs),
      LW_FIELD(pcie_write_ns, "ns", Kind::kNanos, "posted DMA write until visible", 0, kNs),
      LW_FIELD(pcie_gbps, "Gbit/s", Kind::kDouble, "usable DMA bandwidth", kMinGbps, kMaxGbps),
      LW_FIELD(pcie_read_mops, "M/s", Kind::kDouble, "non-posted DMA reads per second at a responder", kMinMops, kMaxMops),
      LW_FIELD(lock_table_bits, "bits", Kind::kUint32, "atomic lock table index = low address bits", 3, 24),
      LW_FIELD(atomic_write_back_ns, "ns", Kind::kNanos, "slot held after an atomic's read until its write-back", 0, kNs),
      LW_FIELD(device_memory_ns, "ns", Kind::kNanos, "on-chip device memory access", 0, kNs),
      LW_FIELD(device_atomic_ns, "ns", Kind::kNanos, "slot held by an atomic on device memory", 0, kNs),
      LW_FIELD(qp_cache_entries, "QPs", Kind::kUint32, "QP contexts cached on the requester NIC", 1, kMaxEntries),
      LW_FIELD(qp_miss_ns, "ns", Kind::kNanos, "processing-unit time to install a fetched QP context", 0, kNs),
      LW_FIELD(qp_context_bytes, "B", Kind::kUint32, "bytes a QP-context miss reads over the NIC's PCIe", 0, 1 << 16),
      LW_FIELD(wqe_cache_entries, "WRs", Kind::kUint32, "outstanding WQEs the requester NIC caches", 1, kMaxEntries),
      LW_FIELD(wqe_miss_ns, "ns", Kind::kNanos, "NIC time lost refetching one WQE", 0, kNs),
      LW_FIELD(context_cache_entries, "entries", Kind::kUint32, "NIC cache taken by each extra device context", 0, kMaxEntries),
      LW_FIELD(low_latency_doorbells, "", Kind::kUint32, "dedicated doorbells per device context", 0, 1024),
      LW_FIELD(medium_latency_doorbells, "", Kind::kUint32, "shared, spinlocked doorbells per context", 1, 1024),
      LW_FIELD(mmio_ns, "ns", Kind::kNanos, "CPU time to ring a doorbell", 0, kNs),
      LW_FIELD(lock_handoff_ns, "ns", Kind::kNanos, "doorbell spinlock hand-over, per sharing thread", 0, kNs),
      LW_FIELD(lock_max_spinners, "threads", Kind::kUint32, "spinners beyond this add no hand-over cost", 1, 1 << 16),
      LW_FIELD(post_cpu_ns, "ns", Kind::kNanos, "CPU time to build one WQE", 0, kNs),
      LW_FIELD(poll_cpu_ns, "ns", Kind::kNanos, "CPU time to poll one completion", 0, kNs),
      LW_FIELD(coroutine_switch_ns, "ns", Kind::kNanos, "CPU time to resume a coroutine", 0, kNs),
      LW_FIELD(cpu_access_ns, "ns", Kind::kNanos, "memory-node CPU load/store/atomic", 0, kNs),
      LW_FIELD(crc64_ns_per_byte, "ns", Kind::kDouble, "CPU time of CRC-64 per byte", 0, 1e3),
      LW_FIELD(farm_check_ns_per_line, "ns", Kind::kDouble, "CPU time per FaRM line version", 0, 1e4),
      LW_FIELD(key_hash_ns, "ns", Kind::kDouble, "CPU time to hash one key (all of a structure's functions)", 0, 1e4),
      LW_FIELD(key_scan_ns, "ns", Kind::kDouble, "CPU time to test one slot or entry in a scan", 0, 1e4),
      LW_FIELD(op_issue_ns, "ns", Kind::kDouble, "CPU time of a client's per-operation loop (key draw, timing)", 0,
               1e6),
      LW_FIELD(copy_ns_per_byte, "ns", Kind::kDouble, "CPU time to copy one byte of a record (messages, log entries)",
               0, 100),
      LW_FIELD(txn_record_ns, "ns", Kind::kDouble,
               "CPU time of one record through a transaction's read/write set (copies apart)", 0, 1e5),
      LW_FIELD(switch_pipeline_ns, "ns", Kind::kNanos, "one pass through a programmable switch's pipeline", 0, kNs),
      LW_FIELD(smartnic_cores, "cores", Kind::kUint32, "SmartNIC cores serving latch RPCs", 1, 1024),
      LW_FIELD(smartnic_rpc_ns, "ns", Kind::kNanos, "a SmartNIC core serving one latch RPC", 1, kNs),
  };
  return f;
}
#undef LW_FIELD

const NicParams::Field* NicParams::find_field(const std::string& name) {
  for (const auto& f : fields())
    if (name == f.name) return &f;
  return nullptr;
}

std::string NicParams::check_value(const Field& f, double v) {
  std::ostringstream range;
  range << "[" << f.min << ", " << f.max << "]";
  const bool integer = f.kind != Kind::kDouble;
  if (!std::isfinite(v) || v < f.min || v > f.max || (integer && v != std::floor(v))) {
    std::ostringstream os;
    os << "nic parameter " << f.name << " must be " << (integer ? "an integer" : "a number")
       << " in " << range.str() << ", got " << v;
    return os.str();
  }
  return {};
}

double NicParams::get(const Field& f) const {
  const auto* base = reinterpret_cast<const std::byte*>(this) + f.offset;
  switch (f.kind) {
    case Kind::kDouble: return *reinterpret_cast<const double*>(base);
    case Kind::kUint32: return *reinterpret_cast<const uint32_t*>(base);
    case Kind::kNanos: return static_cast<double>(*reinterpret_cast<const Nanos*>(base));
  }
  return 0;
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
      {"engines", &NicMechanisms::engines},
      {"pcie", &NicMechanisms::pcie},
      {"pcie_duplex", &NicMechanisms::pcie_duplex},
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
    if (std::string e = NicParams::check_value(f, p.get(f)); !e.empty()) return e;
    if (sources.count(f.name) == 0 || sources.at(f.name).empty())
      return std::string("nic parameter ") + f.name + " has no source (cite a paper or say fitted/assumed)";
  }
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
  if (text.size() > kMaxConfigFileBytes)
    return "nic profile is larger than " + std::to_string(kMaxConfigFileBytes) + " bytes";
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
    const json& value = e["value"];
    const double v = value.get<double>();
    if (std::string err = NicParams::check_value(*field, v); !err.empty()) return err;
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
  std::string text;
  if (std::string e = read_config_file("nic profile file", name_or_path, &text); !e.empty()) return e;
  return from_json(text, out);
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
