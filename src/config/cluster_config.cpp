#include "latchwork/config/cluster_config.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "verbs/node_memory.h"

namespace lw {

// The validator's lower bound and the memory node's own requirement agree.
static_assert(ClusterConfig::kMinMemoryNodeBytes > NodeMemory::kReservedBytes,
              "a memory node needs more than its reserved bytes");

namespace {

using nlohmann::json;

// The range of every integer field, by its JSON name: validate() checks
// these, and the JSON reader rejects a number beyond them before it is
// narrowed into the field (4294967297 must not become 1).
struct Bound {
  const char* name;
  uint64_t lo, hi;
};
constexpr uint64_t kNs = ClusterConfig::kMaxLatencyNs;
constexpr Bound kBounds[] = {
    {"compute_nodes", 1, ClusterConfig::kMaxNodes},
    {"threads_per_node", 1, ClusterConfig::kMaxThreadsPerNode},
    {"coroutines_per_thread", 1, ClusterConfig::kMaxCoroutinesPerThread},
    {"memory_nodes", 1, ClusterConfig::kMaxNodes},
    {"memory_node_threads", 0, ClusterConfig::kMaxThreadsPerNode},
    {"memory_node_bytes", ClusterConfig::kMinMemoryNodeBytes, ClusterConfig::kMaxMemoryNodeBytes},
    {"device_memory_bytes", 0, ClusterConfig::kMaxDeviceMemoryBytes},
    {"queue_depth", ClusterConfig::kMinQueueDepth, ClusterConfig::kMaxQueueDepth},
    {"seed", 0, UINT64_MAX},
    {"semantics.read_spread_ns", 0, ClusterConfig::kMaxWindowNs},
    {"semantics.write_line_gap_ns", 0, ClusterConfig::kMaxWindowNs},
    {"semantics.atomic_window_ns", 0, ClusterConfig::kMaxWindowNs},
    {"timing.one_way_ns", 1, kNs},
    {"timing.jitter_ns", 0, kNs},
    {"timing.post_cpu_ns", 0, kNs},
    {"timing.poll_cpu_ns", 0, kNs},
    {"timing.cpu_access_ns", 0, kNs},
    {"timing.pcie_ns", 0, kNs},
    {"timing.device_memory_ns", 0, kNs},
    {"timing.switch_pipeline_ns", 0, kNs},
    {"timing.smartnic_rpc_ns", 1, kNs},
    {"network.switch.registers", 1, 1u << 24},
    {"network.switch.duplicate_percent", 0, 100},
    {"network.switch.duplicate_delay_ns", 1, kNs},
    {"network.smartnic.memory_bytes", 4096 + 4096, 1ull << 32},
    {"verbs.connect_timeout_ms", 10, 3'600'000},
    {"verbs.op_timeout_ms", 10, 3'600'000},
    {"verbs.staging_bytes", 64 << 10, 1ull << 32},
    {"memory.pm_read_extra_ns", 0, kNs},
    {"memory.pm_write_extra_ns", 0, kNs},
    {"memory.pm_access_bytes", 1, MemoryConfig::kMaxAccessBytes},
};
// Floating-point fields: finite, within [lo, hi].
struct RealBound {
  const char* name;
  double lo, hi;
};
constexpr RealBound kRealBounds[] = {
    // 0.00125 B/ns = 10 Mbit/s .. 12.5 TB/s (a rate of 1e-300 would make
    // one message outlast any run).
    {"timing.bytes_per_ns", 0.00125, 12'500},
    {"timing.crc64_ns_per_byte", 0, 1e3},
    {"timing.farm_check_ns_per_line", 0, 1e4},
    {"memory.pm_read_bytes_per_ns", 0.001, 12'500},
    {"memory.pm_write_bytes_per_ns", 0.001, 12'500},
};

const Bound* bound_of(std::string_view name) {
  for (const Bound& b : kBounds)
    if (name == b.name) return &b;
  return nullptr;
}
const RealBound* real_bound_of(std::string_view name) {
  for (const RealBound& b : kRealBounds)
    if (name == b.name) return &b;
  return nullptr;
}

std::string check_range(const char* name, uint64_t v, uint64_t lo, uint64_t hi) {
  if (v < lo || v > hi) {
    std::ostringstream os;
    os << name << " must be in [" << lo << ", " << hi << "], got " << v;
    return os.str();
  }
  return {};
}

std::string range_message(const std::string& name, uint64_t lo, uint64_t hi, const std::string& got) {
  return name + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + got;
}

// Reads `key` of `obj` into `out` when present, with a type check and, for
// numbers, a range check before the value is stored: `path` is the field's
// full name ("timing.jitter_ns"), which names its bound in kBounds.
template <typename T>
std::string take(const json& obj, const char* key, T* out, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  try {
    if constexpr (std::is_same_v<T, bool>) {
      if (!it->is_boolean()) return path + " must be true or false";
      *out = it->get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      const Bound* b = bound_of(path);
      const uint64_t lo = b ? b->lo : 0;
      const uint64_t hi = std::min<uint64_t>(b ? b->hi : UINT64_MAX, std::numeric_limits<T>::max());
      if (!it->is_number_integer()) {
        // 1e3 or 2.5 or "4": a whole number in range is wanted.
        return it->is_number() ? range_message(path, lo, hi, it->dump()) + " (an integer is required)"
                               : path + " must be a non-negative integer";
      }
      if (!it->is_number_unsigned() || it->get<uint64_t>() > hi || it->get<uint64_t>() < lo)
        return range_message(path, lo, hi, it->dump());
      *out = static_cast<T>(it->get<uint64_t>());
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!it->is_number()) return path + " must be a number";
      const double v = it->get<double>();
      if (const RealBound* b = real_bound_of(path); b && !(std::isfinite(v) && v >= b->lo && v <= b->hi)) {
        std::ostringstream os;
        os << path << " must be in [" << b->lo << ", " << b->hi << "], got " << it->dump();
        return os.str();
      }
      *out = v;
    } else {
      if (!it->is_string()) return path + " must be a string";
      *out = it->get<T>();
    }
  } catch (const json::exception& e) {
    return path + ": " + e.what();
  }
  return {};
}
template <typename T>
std::string take(const json& obj, const char* key, T* out) {
  return take(obj, key, out, key);
}

std::string reject_unknown(const json& obj, std::initializer_list<const char*> known,
                           const char* where) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool found = false;
    for (const char* k : known) found = found || it.key() == k;
    if (!found) return std::string("unknown key \"") + it.key() + "\" in " + where;
  }
  return {};
}

std::string nic_from_json(const json& j, NicConfig* nic) {
  if (!j.is_object()) return "nic must be an object";
  std::string e;
  if (!(e = reject_unknown(j, {"profile", "qp_policy", "mechanisms", "parameters"}, "nic")).empty())
    return e;
  if (!(e = take(j, "profile", &nic->profile, "nic.profile")).empty()) return e;
  if (j.contains("qp_policy")) {
    std::string p;
    if (!(e = take(j, "qp_policy", &p, "nic.qp_policy")).empty()) return e;
    if (!parse_qp_policy(p, &nic->qp_policy))
      return "nic.qp_policy must be shared-qp, per-thread-qp, per-thread-context or "
             "per-thread-doorbell, got \"" + p + "\"";
  }
  if (auto it = j.find("mechanisms"); it != j.end()) {
    if (!it->is_object()) return "nic.mechanisms must be an object";
    for (auto m = it->begin(); m != it->end(); ++m) {
      bool known = false;
      for (const auto& [name, field] : NicMechanisms::switches()) {
        if (m.key() != name) continue;
        if (!m->is_boolean()) return "nic.mechanisms." + m.key() + " must be true or false";
        nic->mechanisms.*field = m->get<bool>();
        known = true;
      }
      if (!known) return "unknown key \"" + m.key() + "\" in nic.mechanisms";
    }
  }
  if (auto it = j.find("parameters"); it != j.end()) {
    if (!it->is_object()) return "nic.parameters must be an object";
    for (auto p = it->begin(); p != it->end(); ++p) {
      if (!p->is_number()) return "nic.parameters." + p.key() + " must be a number";
      const NicParams::Field* field = NicParams::find_field(p.key());
      if (!field) return "unknown nic parameter \"" + p.key() + "\" in nic.parameters";
      if (std::string err = NicParams::check_value(*field, p->get<double>()); !err.empty())
        return "nic.parameters: " + err;
      nic->overrides[p.key()] = p->get<double>();
    }
  }
  return {};
}

// The "rpc" object; ranges are checked by RpcConfig::validate() (numbers
// are read wide first, so a value beyond the field's type is an error, not
// a wrap-around).
std::string rpc_from_json(const json& j, RpcConfig* rpc) {
  if (!j.is_object()) return "rpc must be an object";
  std::string e;
  if (!(e = reject_unknown(j, {"servers", "cores_per_node", "queue_capacity", "recv_cpu_ns", "reply_cpu_ns"},
                           "rpc")).empty())
    return e;
  if (j.contains("servers")) {
    if (!j["servers"].is_string() || !parse_rpc_servers(j["servers"].get<std::string>(), &rpc->servers))
      return "rpc.servers must be \"cores\" or \"workers\"";
  }
  if (!(e = take(j, "cores_per_node", &rpc->cores_per_node, "rpc.cores_per_node")).empty()) return e;
  if (!(e = take(j, "queue_capacity", &rpc->queue_capacity, "rpc.queue_capacity")).empty()) return e;
  if (!(e = take(j, "recv_cpu_ns", &rpc->recv_cpu_ns, "rpc.recv_cpu_ns")).empty()) return e;
  if (!(e = take(j, "reply_cpu_ns", &rpc->reply_cpu_ns, "rpc.reply_cpu_ns")).empty()) return e;
  return rpc->validate();
}

// The "memory" object (config/memory_config.h).
std::string memory_from_json(const json& j, MemoryConfig* m) {
  if (!j.is_object()) return "memory must be an object";
  std::string e;
  if (!(e = reject_unknown(j, {"kind", "pm_read_extra_ns", "pm_write_extra_ns", "pm_read_bytes_per_ns",
                               "pm_write_bytes_per_ns", "pm_access_bytes"},
                           "memory")).empty())
    return e;
  std::string kind(to_string(m->kind));
  if (!(e = take(j, "kind", &kind, "memory.kind")).empty()) return e;
  if (!parse_memory_kind(kind, &m->kind)) return "memory.kind must be dram or pm, got \"" + kind + "\"";
  if (!(e = take(j, "pm_read_extra_ns", &m->pm_read_extra_ns, "memory.pm_read_extra_ns")).empty()) return e;
  if (!(e = take(j, "pm_write_extra_ns", &m->pm_write_extra_ns, "memory.pm_write_extra_ns")).empty()) return e;
  if (!(e = take(j, "pm_read_bytes_per_ns", &m->pm_read_bytes_per_ns, "memory.pm_read_bytes_per_ns")).empty())
    return e;
  if (!(e = take(j, "pm_write_bytes_per_ns", &m->pm_write_bytes_per_ns, "memory.pm_write_bytes_per_ns")).empty())
    return e;
  if (!(e = take(j, "pm_access_bytes", &m->pm_access_bytes, "memory.pm_access_bytes")).empty()) return e;
  return m->validate();
}

// The "smart" object (runtime/smart.h); ranges by SmartConfig::validate().
std::string smart_from_json(const json& j, SmartConfig* s) {
  if (!j.is_object()) return "smart must be an object";
  std::string e;
  if (!(e = reject_unknown(j, {"throttling", "backoff", "dynamic_limit", "coroutine_throttling",
                               "candidate_credits", "delta_ns", "stable_deltas", "t0_ns",
                               "max_backoff_shift", "gamma_high", "gamma_low", "retry_window_ns"},
                           "smart")).empty())
    return e;
  if (!(e = take(j, "throttling", &s->throttling, "smart.throttling")).empty()) return e;
  if (!(e = take(j, "backoff", &s->backoff, "smart.backoff")).empty()) return e;
  if (!(e = take(j, "dynamic_limit", &s->dynamic_limit, "smart.dynamic_limit")).empty()) return e;
  if (!(e = take(j, "coroutine_throttling", &s->coroutine_throttling, "smart.coroutine_throttling")).empty())
    return e;
  if (auto it = j.find("candidate_credits"); it != j.end()) {
    if (!it->is_array() || it->empty() || it->size() > SmartConfig::kMaxCandidates)
      return "smart.candidate_credits must be an array of 1 to " +
             std::to_string(SmartConfig::kMaxCandidates) + " integers";
    std::vector<uint32_t> v;
    for (const json& x : *it) {
      if (!x.is_number_unsigned() || x.get<uint64_t>() < 1 || x.get<uint64_t>() > SmartConfig::kMaxCredits)
        return range_message("smart.candidate_credits[]", 1, SmartConfig::kMaxCredits, x.dump());
      v.push_back(static_cast<uint32_t>(x.get<uint64_t>()));
    }
    s->candidate_credits = std::move(v);
  }
  if (!(e = take(j, "delta_ns", &s->delta_ns, "smart.delta_ns")).empty()) return e;
  if (!(e = take(j, "stable_deltas", &s->stable_deltas, "smart.stable_deltas")).empty()) return e;
  if (!(e = take(j, "t0_ns", &s->t0_ns, "smart.t0_ns")).empty()) return e;
  if (!(e = take(j, "max_backoff_shift", &s->max_backoff_shift, "smart.max_backoff_shift")).empty()) return e;
  if (!(e = take(j, "gamma_high", &s->gamma_high, "smart.gamma_high")).empty()) return e;
  if (!(e = take(j, "gamma_low", &s->gamma_low, "smart.gamma_low")).empty()) return e;
  if (!(e = take(j, "retry_window_ns", &s->retry_window_ns, "smart.retry_window_ns")).empty()) return e;
  return s->validate();
}

}  // namespace

std::string NicConfig::resolve(NicProfile* out) const {
  NicProfile p;
  if (std::string e = NicProfile::load(profile, &p); !e.empty()) return e;
  for (const auto& [name, value] : overrides) {
    const NicParams::Field* field = NicParams::find_field(name);
    if (!field) return "unknown nic parameter \"" + name + "\"";
    if (std::string e = NicParams::check_value(*field, value); !e.empty()) return e;
    p.params.set(*field, value);
    p.sources[name] = "overridden by the run's config";
  }
  if (std::string e = p.validate(); !e.empty()) return e;
  *out = std::move(p);
  return {};
}

bool parse_fence_mode(const std::string& s, FenceMode* out) {
  for (size_t i = 0; i < std::size(kFenceModeNames); ++i)
    if (s == kFenceModeNames[i]) {
      *out = static_cast<FenceMode>(i);
      return true;
    }
  return false;
}

const char* to_string(FenceMode m) { return kFenceModeNames[static_cast<size_t>(m)]; }

std::string RunBudget::validate() const {
  std::string e;
  if (!(e = check_range("budget.max_events", max_events, 1, kMaxEvents)).empty()) return e;
  if (!(e = check_range("budget.max_virtual_ns", max_virtual_ns, 1, kMaxVirtualNs)).empty()) return e;
  return check_range("budget.progress_seconds", progress_seconds, 0, kMaxProgressSeconds);
}

std::string ClusterConfig::validate() const {
  if (backend != "sim" && backend != "threads" && backend != "verbs")
    return "backend must be sim, threads or verbs, got \"" + backend + "\"";
  std::string e;
  if (backend != "verbs" && verbs.local_node >= 0)
    return "verbs.local_node (latchwork node) is for the verbs backend";
  if (backend == "verbs") {
    if (verbs.cluster_file.empty() && verbs.cluster.memory_nodes.empty())
      return "the verbs backend needs a cluster file (--cluster FILE) listing the memory nodes";
    if (verbs.cluster.memory_nodes.size() != memory_nodes)
      return "memory_nodes is " + std::to_string(memory_nodes) + " but the cluster file lists " +
             std::to_string(verbs.cluster.memory_nodes.size());
    if (verbs.local_node >= 0 && static_cast<uint64_t>(verbs.local_node) >= memory_nodes)
      return "verbs.local_node is " + std::to_string(verbs.local_node) + " but the cluster file lists " +
             std::to_string(memory_nodes) + " memory nodes";
    if (memory_node_threads != 0 && verbs.local_node < 0)
      return "the verbs backend runs memory-node threads only in a `latchwork node` process, which "
             "serves that node itself (verbs.local_node); `latchwork memnode` processes run none";
    if (verbs.local_node >= 0 && (verbs.barrier_timeout_ms < 10 || verbs.barrier_timeout_ms > 3'600'000))
      return "verbs.barrier_timeout_ms must be in [10, 3600000], got " + std::to_string(verbs.barrier_timeout_ms);
    for (const auto& [name, value] : {std::pair<const char*, uint64_t>{"verbs.connect_timeout_ms", verbs.connect_timeout_ms},
                                      {"verbs.op_timeout_ms", verbs.op_timeout_ms},
                                      {"verbs.staging_bytes", verbs.staging_bytes}}) {
      const Bound* b = bound_of(name);
      if (!(e = check_range(name, value, b->lo, b->hi)).empty()) return e;
    }
    if (total_compute_threads() > 1024) return "the verbs backend runs at most 1024 threads per process";
  }
  // Every bounded field, with the range of kBounds.
  const std::pair<const char*, uint64_t> fields[] = {
      {"compute_nodes", compute_nodes},
      {"threads_per_node", threads_per_node},
      {"coroutines_per_thread", coroutines_per_thread},
      {"memory_nodes", memory_nodes},
      {"memory_node_threads", memory_node_threads},
      {"memory_node_bytes", memory_node_bytes},
      {"device_memory_bytes", device_memory_bytes},
      {"queue_depth", queue_depth},
      {"semantics.read_spread_ns", semantics.read_spread_ns},
      {"semantics.write_line_gap_ns", semantics.write_line_gap_ns},
      {"semantics.atomic_window_ns", semantics.atomic_window_ns},
      {"timing.one_way_ns", timing.one_way_ns},
      {"timing.jitter_ns", timing.jitter_ns},
      {"timing.post_cpu_ns", timing.post_cpu_ns},
      {"timing.poll_cpu_ns", timing.poll_cpu_ns},
      {"timing.cpu_access_ns", timing.cpu_access_ns},
      {"timing.pcie_ns", timing.pcie_ns},
      {"timing.device_memory_ns", timing.device_memory_ns},
      {"timing.switch_pipeline_ns", timing.switch_pipeline_ns},
      {"timing.smartnic_rpc_ns", timing.smartnic_rpc_ns},
      {"network.switch.registers", network.programmable_switch.registers},
      {"network.switch.duplicate_percent", network.programmable_switch.duplicate_percent},
      {"network.switch.duplicate_delay_ns", network.programmable_switch.duplicate_delay_ns},
      {"network.smartnic.memory_bytes", network.smartnic.memory_bytes},
  };
  for (const auto& [name, value] : fields) {
    const Bound* b = bound_of(name);
    if (!(e = check_range(name, value, b->lo, b->hi)).empty()) return e;
  }
  const std::pair<const char*, double> reals[] = {
      {"timing.bytes_per_ns", timing.bytes_per_ns},
      {"timing.crc64_ns_per_byte", timing.crc64_ns_per_byte},
      {"timing.farm_check_ns_per_line", timing.farm_check_ns_per_line},
  };
  for (const auto& [name, value] : reals) {
    const RealBound* b = real_bound_of(name);
    if (!(std::isfinite(value) && value >= b->lo && value <= b->hi)) {
      std::ostringstream os;
      os << name << " must be in [" << b->lo << ", " << b->hi << "], got " << value;
      return os.str();
    }
  }
  // Resources, checked before anything is allocated.
  if (total_workers() > kMaxWorkers)
    return "compute_nodes x threads_per_node x coroutines_per_thread is " +
           std::to_string(total_workers()) + " workers; at most " + std::to_string(kMaxWorkers);
  if (uint64_t{memory_nodes} * memory_node_bytes > kMaxTotalMemoryBytes)
    return "memory_nodes x memory_node_bytes is " + std::to_string(uint64_t{memory_nodes} * memory_node_bytes) +
           " bytes; at most " + std::to_string(kMaxTotalMemoryBytes) + " (16 GiB of simulated memory)";
  if (!(e = check_queue_depth(1)).empty()) return e;
  if (device_nodes() > 0 && backend != "sim")
    return "the programmable switch and the SmartNIC exist only in the simulator (backend sim)";
  {
    const SwitchConfig& sw = network.programmable_switch;
    if (sw.program != "atomics" && sw.program != "optimistic-latching")
      return "network.switch.program must be atomics or optimistic-latching, got \"" + sw.program + "\"";
    if (uint64_t{memory_nodes} + device_nodes() > kMaxNodes) return "too many nodes with the network devices";
  }
  if (backend == "threads" && total_threads() > 4096)
    return "the threads backend runs one OS thread per simulated thread: at most 4096";
  if (nic.calibrated()) {
    NicProfile probe;
    if (std::string err = nic.resolve(&probe); !err.empty()) return err;
  }
  if (!(e = budget.validate()).empty()) return e;
  if (!(e = rpc.validate()).empty()) return e;
  if (rpc.servers == RpcServers::kWorkers && memory_node_threads == 0)
    return "rpc.servers workers needs memory-node threads to serve the calls (memory_node_threads >= 1)";
  if (rpc.servers == RpcServers::kWorkers && backend != "sim")
    return "rpc.servers workers exists only in the simulator (backend sim); real backends serve calls on "
           "dedicated cores";
  if (!(e = smart.validate()).empty()) return e;
  if (!(e = memory.validate()).empty()) return e;
  Semantics probe;
  if (!Semantics::from_profile(semantics_profile, &probe))
    return "semantics profile must be spec, connectx or sequential, got \"" + semantics_profile + "\"";
  return semantics.validate();
}

std::string ClusterConfig::check_queue_depth(uint64_t wrs_per_coroutine) const {
  const uint64_t need = uint64_t{coroutines_per_thread} * wrs_per_coroutine;
  if (need <= queue_depth) return {};
  return "queue_depth " + std::to_string(queue_depth) + " is too small: " +
         std::to_string(coroutines_per_thread) + " coroutines per thread with up to " +
         std::to_string(wrs_per_coroutine) + " outstanding work requests each need " +
         std::to_string(need) + " (raise queue_depth, at most " + std::to_string(kMaxQueueDepth) +
         ", or lower coroutines_per_thread)";
}

std::string ClusterConfig::load_cluster_file() {
  if (backend != "verbs") return {};
  if (verbs.cluster_file.empty())
    return "the verbs backend needs a cluster file (--cluster FILE) listing the memory nodes";
  if (std::string e = ClusterFile::load(verbs.cluster_file, &verbs.cluster); !e.empty()) return e;
  memory_nodes = static_cast<uint32_t>(verbs.cluster.memory_nodes.size());
  return {};
}

std::string ClusterConfig::set_profile(const std::string& name) {
  Semantics s;
  if (!Semantics::from_profile(name, &s))
    return "unknown profile \"" + name + "\" (spec, connectx, sequential)";
  semantics_profile = name;
  semantics = s;
  return {};
}

std::string ClusterConfig::to_json() const {
  json sem = json::object();
  for (const auto& sw : Semantics::switches()) sem[sw.name] = semantics.*(sw.field);
  sem["read_spread_ns"] = semantics.read_spread_ns;
  sem["write_line_gap_ns"] = semantics.write_line_gap_ns;
  sem["atomic_window_ns"] = semantics.atomic_window_ns;
  json j = {
      {"backend", backend},
      {"compute_nodes", compute_nodes},
      {"threads_per_node", threads_per_node},
      {"coroutines_per_thread", coroutines_per_thread},
      {"memory_nodes", memory_nodes},
      {"memory_node_threads", memory_node_threads},
      {"memory_node_bytes", memory_node_bytes},
      {"device_memory_bytes", device_memory_bytes},
      {"memory",
       {{"kind", std::string(to_string(memory.kind))},
        {"pm_read_extra_ns", memory.pm_read_extra_ns},
        {"pm_write_extra_ns", memory.pm_write_extra_ns},
        {"pm_read_bytes_per_ns", memory.pm_read_bytes_per_ns},
        {"pm_write_bytes_per_ns", memory.pm_write_bytes_per_ns},
        {"pm_access_bytes", memory.pm_access_bytes}}},
      {"queue_depth", queue_depth},
      {"seed", seed},
      {"profile", semantics_profile},
      {"semantics", sem},
      {"timing",
       {{"one_way_ns", timing.one_way_ns},
        {"bytes_per_ns", timing.bytes_per_ns},
        {"jitter_ns", timing.jitter_ns},
        {"post_cpu_ns", timing.post_cpu_ns},
        {"poll_cpu_ns", timing.poll_cpu_ns},
        {"cpu_access_ns", timing.cpu_access_ns},
        {"pcie_ns", timing.pcie_ns},
        {"device_memory_ns", timing.device_memory_ns},
        {"crc64_ns_per_byte", timing.crc64_ns_per_byte},
        {"farm_check_ns_per_line", timing.farm_check_ns_per_line},
        {"switch_pipeline_ns", timing.switch_pipeline_ns},
        {"smartnic_rpc_ns", timing.smartnic_rpc_ns}}},
      {"network",
       {{"switch",
         {{"enabled", network.programmable_switch.enabled},
          {"registers", network.programmable_switch.registers},
          {"program", network.programmable_switch.program},
          {"suppress_duplicates", network.programmable_switch.suppress_duplicates},
          {"duplicate_percent", network.programmable_switch.duplicate_percent},
          {"duplicate_delay_ns", network.programmable_switch.duplicate_delay_ns}}},
        {"smartnic",
         {{"enabled", network.smartnic.enabled}, {"memory_bytes", network.smartnic.memory_bytes}}}}},
      {"threads", {{"adversarial", threads.adversarial}}},
      {"verbs",
       {{"cluster_file", verbs.cluster_file},
        {"connect_timeout_ms", verbs.connect_timeout_ms},
        {"op_timeout_ms", verbs.op_timeout_ms},
        {"staging_bytes", verbs.staging_bytes},
        {"fence", to_string(verbs.fence)},
        {"exit_on_transport_error", verbs.exit_on_transport_error}}},
      {"budget",
       {{"max_events", budget.max_events},
        {"max_virtual_ns", budget.max_virtual_ns},
        {"progress_seconds", budget.progress_seconds}}},
      {"rpc",
       {{"servers", to_string(rpc.servers)},
        {"cores_per_node", rpc.cores_per_node},
        {"queue_capacity", rpc.queue_capacity},
        {"recv_cpu_ns", rpc.recv_cpu_ns},
        {"reply_cpu_ns", rpc.reply_cpu_ns}}},
      {"smart",
       {{"throttling", smart.throttling},
        {"backoff", smart.backoff},
        {"dynamic_limit", smart.dynamic_limit},
        {"coroutine_throttling", smart.coroutine_throttling},
        {"candidate_credits", smart.candidate_credits},
        {"delta_ns", smart.delta_ns},
        {"stable_deltas", smart.stable_deltas},
        {"t0_ns", smart.t0_ns},
        {"max_backoff_shift", smart.max_backoff_shift},
        {"gamma_high", smart.gamma_high},
        {"gamma_low", smart.gamma_low},
        {"retry_window_ns", smart.retry_window_ns}}},
  };
  json mech = json::object();
  for (const auto& [name, field] : NicMechanisms::switches()) mech[name] = nic.mechanisms.*field;
  j["nic"] = {{"profile", nic.profile},
              {"qp_policy", to_string(nic.qp_policy)},
              {"mechanisms", mech},
              {"parameters", nic.overrides}};
  return j.dump(2);
}

std::string ClusterConfig::from_json(const std::string& text, ClusterConfig* inout) {
  if (text.size() > kMaxConfigFileBytes)
    return "config is larger than " + std::to_string(kMaxConfigFileBytes) + " bytes";
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "config is not valid JSON";
  if (!j.is_object()) return "config must be a JSON object";
  ClusterConfig c = *inout;
  std::string e;
  if (!(e = reject_unknown(j, {"backend", "compute_nodes", "threads_per_node",
                               "coroutines_per_thread", "memory_nodes", "memory_node_threads",
                               "memory_node_bytes", "device_memory_bytes", "queue_depth", "seed",
                               "profile", "semantics", "timing", "nic", "threads", "verbs",
                               "network", "budget", "rpc", "smart", "memory"},
                           "config")).empty())
    return e;
  // The profile first: explicit switches below refine it.
  std::string profile = c.semantics_profile;
  if (!(e = take(j, "profile", &profile)).empty()) return e;
  if (j.contains("profile") && !(e = c.set_profile(profile)).empty()) return e;
  if (!(e = take(j, "backend", &c.backend)).empty()) return e;
  if (!(e = take(j, "compute_nodes", &c.compute_nodes)).empty()) return e;
  if (!(e = take(j, "threads_per_node", &c.threads_per_node)).empty()) return e;
  if (!(e = take(j, "coroutines_per_thread", &c.coroutines_per_thread)).empty()) return e;
  if (!(e = take(j, "memory_nodes", &c.memory_nodes)).empty()) return e;
  if (!(e = take(j, "memory_node_threads", &c.memory_node_threads)).empty()) return e;
  if (!(e = take(j, "memory_node_bytes", &c.memory_node_bytes)).empty()) return e;
  if (!(e = take(j, "device_memory_bytes", &c.device_memory_bytes)).empty()) return e;
  if (!(e = take(j, "queue_depth", &c.queue_depth)).empty()) return e;
  if (!(e = take(j, "seed", &c.seed)).empty()) return e;
  if (auto it = j.find("semantics"); it != j.end()) {
    if (!it->is_object()) return "semantics must be an object";
    for (auto s = it->begin(); s != it->end(); ++s) {
      bool known = false;
      for (const auto& sw : Semantics::switches()) {
        if (s.key() != sw.name) continue;
        if (!s->is_boolean()) return "semantics." + s.key() + " must be true or false";
        c.semantics.*(sw.field) = s->get<bool>();
        known = true;
      }
      if (known) continue;
      Nanos* window = s.key() == "read_spread_ns"      ? &c.semantics.read_spread_ns
                      : s.key() == "write_line_gap_ns" ? &c.semantics.write_line_gap_ns
                      : s.key() == "atomic_window_ns"  ? &c.semantics.atomic_window_ns
                                                       : nullptr;
      if (window) {
        if (!(e = take(*it, s.key().c_str(), window, "semantics." + s.key())).empty()) return e;
        continue;
      }
      return "unknown key \"" + s.key() + "\" in semantics";
    }
  }
  if (auto it = j.find("timing"); it != j.end()) {
    if (!it->is_object()) return "timing must be an object";
    if (!(e = reject_unknown(*it, {"one_way_ns", "bytes_per_ns", "jitter_ns", "post_cpu_ns",
                                   "poll_cpu_ns", "cpu_access_ns", "pcie_ns", "device_memory_ns",
                                   "crc64_ns_per_byte", "farm_check_ns_per_line",
                                   "switch_pipeline_ns", "smartnic_rpc_ns"},
                             "timing")).empty())
      return e;
    if (!(e = take(*it, "one_way_ns", &c.timing.one_way_ns, "timing.one_way_ns")).empty()) return e;
    if (!(e = take(*it, "bytes_per_ns", &c.timing.bytes_per_ns, "timing.bytes_per_ns")).empty()) return e;
    if (!(e = take(*it, "jitter_ns", &c.timing.jitter_ns, "timing.jitter_ns")).empty()) return e;
    if (!(e = take(*it, "post_cpu_ns", &c.timing.post_cpu_ns, "timing.post_cpu_ns")).empty()) return e;
    if (!(e = take(*it, "poll_cpu_ns", &c.timing.poll_cpu_ns, "timing.poll_cpu_ns")).empty()) return e;
    if (!(e = take(*it, "cpu_access_ns", &c.timing.cpu_access_ns, "timing.cpu_access_ns")).empty()) return e;
    if (!(e = take(*it, "pcie_ns", &c.timing.pcie_ns, "timing.pcie_ns")).empty()) return e;
    if (!(e = take(*it, "device_memory_ns", &c.timing.device_memory_ns, "timing.device_memory_ns")).empty()) return e;
    if (!(e = take(*it, "crc64_ns_per_byte", &c.timing.crc64_ns_per_byte, "timing.crc64_ns_per_byte")).empty()) return e;
    if (!(e = take(*it, "farm_check_ns_per_line", &c.timing.farm_check_ns_per_line, "timing.farm_check_ns_per_line")).empty()) return e;
    if (!(e = take(*it, "switch_pipeline_ns", &c.timing.switch_pipeline_ns, "timing.switch_pipeline_ns")).empty()) return e;
    if (!(e = take(*it, "smartnic_rpc_ns", &c.timing.smartnic_rpc_ns, "timing.smartnic_rpc_ns")).empty()) return e;
  }
  if (auto it = j.find("network"); it != j.end()) {
    if (!it->is_object()) return "network must be an object";
    if (!(e = reject_unknown(*it, {"switch", "smartnic"}, "network")).empty()) return e;
    if (auto sw = it->find("switch"); sw != it->end()) {
      if (!sw->is_object()) return "network.switch must be an object";
      if (!(e = reject_unknown(*sw, {"enabled", "registers", "program", "suppress_duplicates",
                                     "duplicate_percent", "duplicate_delay_ns"},
                               "network.switch")).empty())
        return e;
      SwitchConfig& d = c.network.programmable_switch;
      if (!(e = take(*sw, "enabled", &d.enabled, "network.switch.enabled")).empty()) return e;
      if (!(e = take(*sw, "registers", &d.registers, "network.switch.registers")).empty()) return e;
      if (!(e = take(*sw, "program", &d.program, "network.switch.program")).empty()) return e;
      if (!(e = take(*sw, "suppress_duplicates", &d.suppress_duplicates, "network.switch.suppress_duplicates")).empty()) return e;
      if (!(e = take(*sw, "duplicate_percent", &d.duplicate_percent, "network.switch.duplicate_percent")).empty()) return e;
      if (!(e = take(*sw, "duplicate_delay_ns", &d.duplicate_delay_ns, "network.switch.duplicate_delay_ns")).empty()) return e;
    }
    if (auto sn = it->find("smartnic"); sn != it->end()) {
      if (!sn->is_object()) return "network.smartnic must be an object";
      if (!(e = reject_unknown(*sn, {"enabled", "memory_bytes"}, "network.smartnic")).empty()) return e;
      if (!(e = take(*sn, "enabled", &c.network.smartnic.enabled, "network.smartnic.enabled")).empty()) return e;
      if (!(e = take(*sn, "memory_bytes", &c.network.smartnic.memory_bytes, "network.smartnic.memory_bytes")).empty()) return e;
    }
  }
  if (auto it = j.find("nic"); it != j.end()) {
    if (!(e = nic_from_json(*it, &c.nic)).empty()) return e;
  }
  if (auto it = j.find("threads"); it != j.end()) {
    if (!it->is_object()) return "threads must be an object";
    if (!(e = reject_unknown(*it, {"adversarial"}, "threads")).empty()) return e;
    if (!(e = take(*it, "adversarial", &c.threads.adversarial, "threads.adversarial")).empty()) return e;
  }
  if (auto it = j.find("verbs"); it != j.end()) {
    if (!it->is_object()) return "verbs must be an object";
    if (!(e = reject_unknown(*it, {"cluster_file", "connect_timeout_ms", "op_timeout_ms",
                                   "staging_bytes", "fence", "exit_on_transport_error"},
                             "verbs")).empty())
      return e;
    if (!(e = take(*it, "cluster_file", &c.verbs.cluster_file, "verbs.cluster_file")).empty()) return e;
    if (!(e = take(*it, "connect_timeout_ms", &c.verbs.connect_timeout_ms, "verbs.connect_timeout_ms")).empty()) return e;
    if (!(e = take(*it, "op_timeout_ms", &c.verbs.op_timeout_ms, "verbs.op_timeout_ms")).empty()) return e;
    if (!(e = take(*it, "staging_bytes", &c.verbs.staging_bytes, "verbs.staging_bytes")).empty()) return e;
    if (!(e = take(*it, "exit_on_transport_error", &c.verbs.exit_on_transport_error, "verbs.exit_on_transport_error")).empty())
      return e;
    if (it->contains("fence")) {
      std::string mode;
      if (!(e = take(*it, "fence", &mode, "verbs.fence")).empty()) return e;
      if (!parse_fence_mode(mode, &c.verbs.fence))
        return "verbs.fence must be auto, nic or engine, got \"" + mode + "\"";
    }
  }
  if (auto it = j.find("budget"); it != j.end()) {
    if (!it->is_object()) return "budget must be an object";
    if (!(e = reject_unknown(*it, {"max_events", "max_virtual_ns", "progress_seconds"}, "budget")).empty())
      return e;
    if (!(e = take(*it, "max_events", &c.budget.max_events)).empty()) return "budget." + e;
    if (!(e = take(*it, "max_virtual_ns", &c.budget.max_virtual_ns)).empty()) return "budget." + e;
    // Read wide, then range-checked: a value above 2^32 must not wrap.
    uint64_t progress = c.budget.progress_seconds;
    if (!(e = take(*it, "progress_seconds", &progress)).empty()) return "budget." + e;
    if (!(e = check_range("budget.progress_seconds", progress, 0, RunBudget::kMaxProgressSeconds)).empty())
      return e;
    c.budget.progress_seconds = static_cast<uint32_t>(progress);
  }
  if (auto it = j.find("rpc"); it != j.end()) {
    if (!(e = rpc_from_json(*it, &c.rpc)).empty()) return e;
  }
  if (auto it = j.find("smart"); it != j.end()) {
    if (!(e = smart_from_json(*it, &c.smart)).empty()) return e;
  }
  if (auto it = j.find("memory"); it != j.end()) {
    if (!(e = memory_from_json(*it, &c.memory)).empty()) return e;
  }
  if (!(e = c.load_cluster_file()).empty()) return e;
  if (!(e = c.validate()).empty()) return e;
  *inout = c;
  return {};
}

std::string ClusterConfig::from_json_file(const std::string& path, ClusterConfig* inout) {
  std::string text;
  if (std::string e = read_config_file("config file", path, &text); !e.empty()) return e;
  std::string e = from_json(text, inout);
  return e.empty() ? e : path + ": " + e;
}

}  // namespace lw
