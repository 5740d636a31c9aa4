// The designs of DrTM+H Table 4 and §6.3 (FaRM, DrTM+R, FaSST, DrTM+H) and of
// SMART §6.2.2 (FORD, SMART-DTX) as primitive-per-phase choices.
#include "latchwork/txn/design.h"

#include <sstream>

namespace lw::txn {

std::string_view to_string(Primitive p) {
  switch (p) {
    case Primitive::kOneSided: return "one";
    case Primitive::kTwoSided: return "two";
    case Primitive::kHybrid: return "hybrid";
  }
  return "?";
}

bool parse_primitive(std::string_view s, Primitive* out) {
  if (s == "one" || s == "I") *out = Primitive::kOneSided;
  else if (s == "two" || s == "II") *out = Primitive::kTwoSided;
  else if (s == "hybrid" || s == "H") *out = Primitive::kHybrid;
  else return false;
  return true;
}

std::string_view to_string(Broken b) {
  switch (b) {
    case Broken::kNone: return "none";
    case Broken::kNoReadValidation: return "no-read-validation";
    case Broken::kNoWriteRecheck: return "no-write-recheck";
    case Broken::kMixedAtomics: return "mixed-atomics";
  }
  return "?";
}

bool parse_broken(std::string_view s, Broken* out) {
  for (Broken b : {Broken::kNone, Broken::kNoReadValidation, Broken::kNoWriteRecheck, Broken::kMixedAtomics})
    if (s == to_string(b)) {
      *out = b;
      return true;
    }
  return false;
}

std::string DesignConfig::describe() const {
  std::ostringstream d;
  d << "E=" << to_string(phases.execute) << " V=" << to_string(phases.lock) << "/" << to_string(phases.validate)
    << " L=" << (undo_log ? "undo-" : "") << to_string(phases.log) << " C=" << to_string(phases.commit)
    << " R=" << to_string(phases.ro_read) << " RV=" << to_string(phases.ro_validate);
  if (passive_ack) d << " passive-ack";
  if (location_cache) d << " cache";
  if (lock_at_execution) d << " lock-at-execution";
  if (speculative_reads) d << " speculative";
  if (disaggregated) d << " disaggregated";
  if (smart_runtime) d << " smart";
  d << " replicas=" << replicas;
  if (broken != Broken::kNone) d << " broken=" << to_string(broken);
  return d.str();
}

std::string DesignConfig::validate() const {
  if (name.empty()) return "a design needs a name";
  if (replicas == 0 || replicas > 4) return "replicas must be in [1, 4]";
  if (phases.lock == Primitive::kHybrid || phases.validate == Primitive::kHybrid || phases.log == Primitive::kHybrid ||
      phases.commit == Primitive::kHybrid || phases.ro_validate == Primitive::kHybrid)
    return "hybrid is a choice for E and R only (DrTM+H §6.1)";
  if (cache_entries == 0 && location_cache) return "a location cache needs cache_entries > 0";
  if (reclaim_every == 0 || reclaim_every > (1u << 20)) return "reclaim_every must be in [1, 2^20]";
  if (undo_log && !disaggregated) return "undo_log is FORD's (disaggregated) scheme";
  if (smart_runtime && !disaggregated) return "smart_runtime is for disaggregated designs (SMART-DTX)";
  if (disaggregated && (phases.execute != Primitive::kOneSided || phases.lock != Primitive::kOneSided ||
                        phases.validate != Primitive::kOneSided || phases.log != Primitive::kOneSided ||
                        phases.commit != Primitive::kOneSided || phases.ro_read != Primitive::kOneSided ||
                        phases.ro_validate != Primitive::kOneSided))
    return "disaggregated memory nodes run no transaction handlers: every phase must be one-sided";
  return {};
}

bool design_preset(std::string_view name, DesignConfig* out) {
  DesignConfig d;
  d.name = std::string(name);
  Phases& p = d.phases;
  const Primitive I = Primitive::kOneSided, II = Primitive::kTwoSided;
  if (name == "drtmh") {
    p = {Primitive::kHybrid, I, I, I, I, Primitive::kHybrid, I};
  } else if (name == "farm") {
    // FaRM: one-sided reads without a location cache, RPC locking ("II+I"), RPC commit.
    p = {I, II, I, I, II, I, I};
    d.location_cache = false;
    d.passive_ack = false;
  } else if (name == "drtmr") {
    // DrTM+R without HTM: one-sided everywhere with DrTM's location cache.
    p = {I, I, I, I, I, I, I};
    d.passive_ack = false;
  } else if (name == "fasst") {
    // FaSST-OCC: RPC for everything; the execution RPC locks the write set.
    p = {II, II, II, II, II, II, II};
    d.location_cache = false;
    d.passive_ack = false;
    d.lock_at_execution = true;
  } else if (name == "ford" || name == "smart-dtx") {
    // FORD: compute nodes lock and read in one doorbell, undo-log to every
    // replica, write back to every replica. Its records sit at known
    // addresses: modelled by the location cache (a miss costs a bucket READ).
    p = {I, I, I, I, I, I, I};
    d.lock_at_execution = true;
    d.disaggregated = true;
    d.undo_log = true;
    d.passive_ack = false;
    d.smart_runtime = name == "smart-dtx";
  } else {
    return false;
  }
  *out = d;
  return true;
}

const std::vector<std::string>& design_names() {
  static const std::vector<std::string> names{"drtmh", "farm", "drtmr", "fasst", "ford", "smart-dtx"};
  return names;
}

std::string apply_phase_flag(std::string_view flag, DesignConfig* d) {
  const size_t eq = flag.find('=');
  if (eq == std::string_view::npos) return "a phase flag is PHASE=PRIMITIVE, e.g. E=one";
  const std::string_view phase = flag.substr(0, eq), value = flag.substr(eq + 1);
  Primitive p;
  if (!parse_primitive(value, &p)) return "unknown primitive \"" + std::string(value) + "\" (one, two, hybrid)";
  Phases& ph = d->phases;
  if (phase == "E") ph.execute = p;
  else if (phase == "V") ph.lock = ph.validate = p;
  else if (phase == "VL") ph.lock = p;
  else if (phase == "VV") ph.validate = p;
  else if (phase == "L") ph.log = p;
  else if (phase == "C") ph.commit = p;
  else if (phase == "R") ph.ro_read = p;
  else if (phase == "RV") ph.ro_validate = p;
  else return "unknown phase \"" + std::string(phase) + "\" (E, V, VL, VV, L, C, R, RV)";
  if (p == Primitive::kHybrid && phase != "E" && phase != "R") return "hybrid is a choice for E and R only";
  return {};
}

}  // namespace lw::txn
