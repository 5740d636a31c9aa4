// Validation of the SMART runtime's and the RPC service's settings
// (config/smart_config.h, RpcConfig in config/cluster_config.h).
#include "latchwork/config/smart_config.h"

#include <cmath>
#include <sstream>

#include "latchwork/config/cluster_config.h"

namespace lw {

namespace {

std::string out_of_range(const char* name, double lo, double hi, double got) {
  std::ostringstream os;
  os << name << " must be in [" << lo << ", " << hi << "], got " << got;
  return os.str();
}

std::string check(const char* name, uint64_t v, uint64_t lo, uint64_t hi) {
  if (v >= lo && v <= hi) return {};
  std::ostringstream os;
  os << name << " must be in [" << lo << ", " << hi << "], got " << v;
  return os.str();
}

}  // namespace

std::string SmartConfig::validate() const {
  std::string e;
  if (candidate_credits.empty() || candidate_credits.size() > kMaxCandidates) {
    std::ostringstream os;
    os << "smart.candidate_credits must list 1 to " << kMaxCandidates << " values, got "
       << candidate_credits.size();
    return os.str();
  }
  for (uint32_t c : candidate_credits)
    if (!(e = check("smart.candidate_credits[]", c, 1, kMaxCredits)).empty()) return e;
  if (!(e = check("smart.delta_ns", delta_ns, 1, kMaxIntervalNs)).empty()) return e;
  if (!(e = check("smart.stable_deltas", stable_deltas, 0, kMaxStableDeltas)).empty()) return e;
  if (!(e = check("smart.t0_ns", t0_ns, 1, kMaxIntervalNs)).empty()) return e;
  if (!(e = check("smart.max_backoff_shift", max_backoff_shift, 0, kMaxShift)).empty()) return e;
  if ((t0_ns << max_backoff_shift) > kMaxIntervalNs) {
    std::ostringstream os;
    os << "smart.t0_ns x 2^smart.max_backoff_shift (the longest backoff) must be at most "
       << kMaxIntervalNs << " ns, got " << (t0_ns << max_backoff_shift);
    return os.str();
  }
  if (!(e = check("smart.retry_window_ns", retry_window_ns, 1, kMaxIntervalNs)).empty()) return e;
  if (!(std::isfinite(gamma_high) && gamma_high >= 0 && gamma_high <= kMaxGamma))
    return out_of_range("smart.gamma_high", 0, kMaxGamma, gamma_high);
  if (!(std::isfinite(gamma_low) && gamma_low >= 0 && gamma_low <= kMaxGamma))
    return out_of_range("smart.gamma_low", 0, kMaxGamma, gamma_low);
  if (gamma_low > gamma_high) {
    std::ostringstream os;
    os << "smart.gamma_low (" << gamma_low << ") must not exceed smart.gamma_high (" << gamma_high
       << ")";
    return os.str();
  }
  if (dynamic_limit && !backoff)
    return "smart.dynamic_limit adapts the backoff's limit: it needs smart.backoff (--backoff)";
  return {};
}

bool parse_rpc_servers(const std::string& s, RpcServers* out) {
  for (RpcServers v : {RpcServers::kCores, RpcServers::kWorkers})
    if (s == to_string(v)) {
      *out = v;
      return true;
    }
  return false;
}

const char* to_string(RpcServers s) { return kRpcServersNames[static_cast<size_t>(s)]; }

std::string RpcConfig::validate() const {
  std::string e;
  if (servers != RpcServers::kCores && servers != RpcServers::kWorkers) return "rpc.servers: unknown";
  if (!(e = check("rpc.cores_per_node", cores_per_node, 1, kMaxCores)).empty()) return e;
  if (!(e = check("rpc.queue_capacity", queue_capacity, 1, kMaxQueueCapacity)).empty()) return e;
  if (!(e = check("rpc.recv_cpu_ns", recv_cpu_ns, 0, ClusterConfig::kMaxLatencyNs)).empty()) return e;
  return check("rpc.reply_cpu_ns", reply_cpu_ns, 0, ClusterConfig::kMaxLatencyNs);
}

}  // namespace lw
