// The calibrated NIC model's parameters and switches.
//
// A profile (configs/nic/<name>.json, compiled into the binary) gives every
// parameter a value and a source: the paper and figure it was read from, or
// "fitted: ..." naming the figure it was fitted to, or "assumed: ..." when no
// paper states it. docs/nic-model.md explains each mechanism.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "latchwork/base/layout.h"

namespace lw {

// Each mechanism of the model, switchable on its own (for tests, and to ask
// "how much of this result is due to X").
struct NicMechanisms {
  bool link = true;           // bandwidth serialization on both ends of each link
  bool message_rate = true;   // per-NIC processing units: a cap on requests per second
  bool engines = true;        // in-order processing engines, one per QP; an atomic holds its engine
                              // while it waits for its lock-table slot (head-of-line blocking)
  bool pcie = true;           // responder DMA latency, read-rate cap and bandwidth
  bool pcie_duplex = true;    // PCIe's two directions apart: DMA reads (data to the NIC) and posted
                              // writes (data to the host) do not queue behind each other
  bool lock_table = true;     // atomics serialize per slot of a table indexed by low address bits
  bool device_memory = true;  // on-chip memory serves atomics without PCIe
  bool qp_cache = true;       // requester QP-context cache: misses cost a PCIe read
  bool wqe_cache = true;      // requester WQE cache: outstanding WRs beyond it cost PCIe reads
  bool doorbells = true;      // doorbell registers shared between threads cost a spinlock
  bool cpu_costs = true;      // posting, polling, MMIO and coroutine switches cost CPU time

  static const std::vector<std::pair<const char*, bool NicMechanisms::*>>& switches();
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const NicMechanisms&) const = default;
};

struct NicParams {
  // Network.
  double link_gbps = 100;          // line rate per port
  uint32_t header_bytes = 40;      // transport + link headers per packet
  uint32_t mtu_bytes = 4096;       // payload per packet
  Nanos propagation_ns = 300;      // one way, cable + switch
  Nanos jitter_ns = 40;            // uniform extra per traversal
  // NIC pipeline.
  Nanos nic_latency_ns = 150;      // one traversal of a NIC's pipeline
  double msg_rate_mops = 110;      // requests a NIC processes per microsecond (x1e6/s)
  uint32_t processing_engines = 32;  // in-order engines per NIC; each QP is served by one
  // PCIe at the responder (and for cache misses at the requester).
  Nanos pcie_read_ns = 300;        // a DMA read round trip
  Nanos pcie_write_ns = 150;       // a posted DMA write becoming visible
  double pcie_gbps = 100;          // usable DMA bandwidth
  double pcie_read_mops = 53;      // non-posted DMA reads per microsecond at the responder
  // Atomics.
  uint32_t lock_table_bits = 12;   // slots = 2^bits, indexed by the low address bits
  Nanos atomic_write_back_ns = 130;  // slot held after the read until the write-back is done
  Nanos device_memory_ns = 40;     // on-chip memory access
  Nanos device_atomic_ns = 9;      // slot held by an atomic on device memory
  // Caches at the requester NIC.
  uint32_t qp_cache_entries = 100;
  Nanos qp_miss_ns = 300;          // processing-unit time to install a fetched QP context
  uint32_t qp_context_bytes = 256; // DMA-read over the NIC's PCIe per QP-context miss
  uint32_t wqe_cache_entries = 1088;
  Nanos wqe_miss_ns = 14;          // NIC time lost per WQE refetch
  uint32_t context_cache_entries = 64;  // cache entries each extra device context's MTT/MPT takes
  // Doorbells (per device context).
  uint32_t low_latency_doorbells = 4;      // one QP each, no lock
  uint32_t medium_latency_doorbells = 12;  // shared round-robin, spinlocked
  Nanos mmio_ns = 100;             // ringing a doorbell (MMIO write), CPU time
  Nanos lock_handoff_ns = 150;     // spinlock hand-over, per other thread spinning on it
  uint32_t lock_max_spinners = 8;  // spinners beyond this add no hand-over cost
  // CPU.
  Nanos post_cpu_ns = 40;          // building one WQE
  Nanos poll_cpu_ns = 40;          // polling one completion
  Nanos coroutine_switch_ns = 20;  // resuming a coroutine
  Nanos cpu_access_ns = 20;        // a memory-node CPU load/store/atomic
  double crc64_ns_per_byte = 0.52;      // CRC-64 of one byte (optimistic CRC scheme)
  double farm_check_ns_per_line = 1.2;  // one FaRM cache-line version checked or stamped
  double key_hash_ns = 1.8;             // one key through a structure's hash functions
  double key_scan_ns = 0.52;            // one slot or entry tested in a scan
  double op_issue_ns = 119;             // a client's per-operation loop (key draw, timing)
  double copy_ns_per_byte = 0.031;      // one byte of a record copied (messages, log entries)
  double txn_record_ns = 56;            // one record through an OCC read/write set
  // Smart network hardware (Jasny §5.2-5.5; config/network_devices.h).
  Nanos switch_pipeline_ns = 200;  // one pass through a programmable switch's pipeline
  uint32_t smartnic_cores = 8;     // SmartNIC cores serving latch RPCs
  Nanos smartnic_rpc_ns = 400;     // one core serving one latch RPC

  struct Field {
    const char* name;
    const char* unit;
    const char* meaning;
    enum class Kind { kDouble, kUint32, kNanos } kind;
    size_t offset;
    double min, max;  // the allowed range, checked before a value is stored
  };
  static const std::vector<Field>& fields();
  static const Field* find_field(const std::string& name);
  // "" when `v` fits the field (finite, within [min, max], an integer for
  // integer fields), else a message naming the parameter and its range.
  static std::string check_value(const Field& f, double v);
  double get(const Field& f) const;
  // Stores `v`, which check_value accepted.
  void set(const Field& f, double v);
};

struct NicProfile {
  std::string name;
  std::string description;
  NicParams params;
  std::map<std::string, std::string> sources;  // parameter -> citation

  // Returns "" if valid, else a message naming the bad parameter.
  std::string validate() const;
  std::string to_json() const;
  static std::string from_json(const std::string& text, NicProfile* out);

  // A built-in profile by name ("cx5-100g", ...) or a JSON file by path.
  static std::string load(const std::string& name_or_path, NicProfile* out);
  static std::vector<std::string> builtin_names();
};

// How threads get queue pairs, device contexts and doorbells (SMART §3.1,
// Figs. 3, 6, 13).
enum class QpPolicy : uint8_t {
  kSharedQp,          // all threads of a node share one QP per memory node, under a lock
  kPerThreadQp,       // a QP per thread in one device context: doorbells round-robin
  kPerThreadContext,  // a device context per thread: private doorbells, more cache footprint
  kPerThreadDoorbell, // one context, each thread's QPs on a doorbell of its own (SMART)
};
const char* to_string(QpPolicy p);
bool parse_qp_policy(const std::string& s, QpPolicy* out);
inline constexpr const char* kQpPolicyNames[] = {"shared-qp", "per-thread-qp",
                                                 "per-thread-context", "per-thread-doorbell"};

}  // namespace lw
