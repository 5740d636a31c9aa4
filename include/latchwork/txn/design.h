// Which primitive each OCC phase uses (DrTM+H §5, Table 2, Table 4), and the
// designs built from those choices.
//
//   phase            one-sided (I)                         two-sided (II)
//   E  execution     READ bucket + READ record, or one     one RPC returns the record
//                    READ with the location cache          (and its address: hybrid refills)
//   V  lock          CAS lock + READ version, one          one RPC per node locks with CPU
//                    doorbell per node (§5.2)              CAS and returns versions
//   V  validate      READ header (lock, version)           one RPC per node
//   L  logging       WRITE into the backup's log ring      RPC carrying the log
//   C  commit        WRITE record, WRITE unlock (one       RPC writes and unlocks
//                    doorbell, same QP: in order)
//   R  read-only     as E                                  as E
//   RV validate      as V validate                         as V validate
//
// Hybrid (E and R only, DrTM+H §6.1): a location-cache hit is one READ; a
// miss is one RPC that also returns the address, which refills the cache.
//
// §5.2's rule: NIC atomics are not atomic with CPU atomics on the same word,
// so a design locks either only with NIC CAS (one-sided V, every coordinator,
// local ones too through the NIC) or only with CPU CAS (two-sided V). The
// broken variant kMixedAtomics breaks this rule on purpose.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lw::txn {

enum class Primitive : uint8_t { kOneSided, kTwoSided, kHybrid };
std::string_view to_string(Primitive p);       // "one", "two", "hybrid"
bool parse_primitive(std::string_view s, Primitive* out);

struct Phases {
  Primitive execute = Primitive::kHybrid;
  Primitive lock = Primitive::kOneSided;
  Primitive validate = Primitive::kOneSided;
  Primitive log = Primitive::kOneSided;
  Primitive commit = Primitive::kOneSided;
  Primitive ro_read = Primitive::kHybrid;
  Primitive ro_validate = Primitive::kOneSided;
  bool operator==(const Phases&) const = default;
};

// Seeded bugs for the checker (each must be caught by `latchwork check
// --structure txn`).
enum class Broken : uint8_t {
  kNone,
  kNoReadValidation,  // the read set is not validated: write skew
  kNoWriteRecheck,    // write-set versions are not re-checked after locking: lost updates
                      // (the committer installs the version it read + 1, so a history
                      // shows two commits of one (table, key, version))
  kMixedAtomics,      // coordinators lock records of their own node with CPU CAS (RPC) and
                      // others with NIC CAS: §5.2's atomicity rule broken
};
std::string_view to_string(Broken b);  // "none", "no-read-validation", ...
bool parse_broken(std::string_view s, Broken* out);

struct DesignConfig {
  std::string name = "drtmh";
  Phases phases;
  bool location_cache = true;        // DrTM §5.1 / DrTM+H §6.1
  uint64_t cache_entries = 1u << 22; // per thread; no refill beyond
  bool passive_ack = true;           // commit completes off the critical path (§3.2)
  bool lock_at_execution = false;    // FaSST-OCC and FORD: write-set records locked when read
  bool speculative_reads = true;     // a transaction's independent reads in parallel (§6.1)
                                     // (one doorbell batch / one RPC per node; a Worker awaits
                                     // one submission at a time, so nodes go one after another)
  bool disaggregated = false;        // coordinators on compute nodes, records on memory nodes
  bool undo_log = false;             // FORD: undo log before write-back, no redo log
  bool smart_runtime = false;        // SMART-DTX: the SMART runtime's policies
  uint32_t replicas = 3;             // primary + backups (DrTM+H §5: 3-way)
  uint32_t reclaim_every = 8;        // transactions between lazy log reclaims (§5.4)
  Broken broken = Broken::kNone;

  std::string describe() const;      // "E=hybrid V=one/one L=one C=one passive-ack cache"
  std::string validate() const;      // "" or a message
  bool operator==(const DesignConfig&) const = default;
};

// drtmh | farm | drtmr | fasst | ford | smart-dtx. False for an unknown name.
bool design_preset(std::string_view name, DesignConfig* out);
const std::vector<std::string>& design_names();

// Applies "E=one", "V=two", "L=one", "C=two", "R=hybrid", "RV=one" (V sets
// lock and validate; "VL=" and "VV=" set them apart). "" or an error.
std::string apply_phase_flag(std::string_view flag, DesignConfig* d);

}  // namespace lw::txn
