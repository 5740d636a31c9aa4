// Smart network hardware the simulator can add to a cluster (Jasny et al.
// §5.2-5.5): a programmable switch on the path between compute and memory
// nodes, and a SmartNIC whose cores serve latch requests by RPC.
//
// Each device is a node of its own, numbered after the memory nodes: the
// switch (if any) is node `memory_nodes`, the SmartNIC the one after it.
// Their memory is addressed with RemoteAddr like a memory node's, but the
// verbs act differently there (docs/synchronization.md, "Smart hardware"):
//  - switch: 8-byte registers in the data plane. Every request is one
//    pipeline pass at one instant, answered in half a round trip; there is
//    no lock table and nothing is lost, since packets cannot overtake in the
//    pipeline (§5.3 "Guarantees", §5.4).
//  - SmartNIC: every request is an RPC served by one of its ARM cores, which
//    executes it with CPU instructions (§5.2, Fig. 18).
#pragma once

#include <cstdint>
#include <string>

namespace lw {

struct SwitchConfig {
  bool enabled = false;
  uint32_t registers = 1u << 20;  // 8-byte registers: 8 MiB (Tofino2-class SRAM holds tens of MB)
  // "atomics": registers only (§5.4). "optimistic-latching": also watches
  // the tuples the control plane installed (§5.5, Table 2).
  std::string program = "atomics";
  // Drops re-executions of a request the switch already processed, by PSN
  // (§5.5). Off only to show what it prevents.
  bool suppress_duplicates = true;
  // Fault injection: this percentage of the requests the switch acts on is
  // retransmitted by the requester, reaching the switch again
  // `duplicate_delay_ns` later (a delayed reply, then a retransmission).
  uint32_t duplicate_percent = 0;
  uint64_t duplicate_delay_ns = 3000;

  bool optimistic_latching() const { return enabled && program == "optimistic-latching"; }
  bool operator==(const SwitchConfig&) const = default;
};

struct SmartNicConfig {
  bool enabled = false;
  uint64_t memory_bytes = 1ull << 20;  // the SmartNIC's own memory, where the latches live
  bool operator==(const SmartNicConfig&) const = default;
};

struct NetworkConfig {
  SwitchConfig programmable_switch;
  SmartNicConfig smartnic;
  // Every field: two equal options make the same run (repro shares runs).
  bool operator==(const NetworkConfig&) const = default;
};

}  // namespace lw
