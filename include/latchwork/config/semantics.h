// The RDMA semantics contract of the simulator: each legal relaxation of the
// RDMA/PCIe specifications behind its own switch, grouped into profiles.
//
//   spec        every relaxation the specifications allow, with wide windows,
//               except failed_cas_writes_back (on by name): with it, every
//               design that frees a CAS'd word with a WRITE fails, the
//               transaction designs' lock release among them (see the field)
//   connectx    what ConnectX NICs were observed to do (Jasny et al. Fig. 1b:
//               torn multi-line READs; §3.3: WRITEs lost against atomics;
//               IBV_ATOMIC_HCA: NIC atomics not atomic with CPU atomics).
//               Reordering on one queue pair was not observed there, so those
//               two switches are off; turn them on by name to test for them.
//               A ConnectX NIC DMA-reads a WRITE's source when it executes
//               the WQE, yet write_payload_late is off here: its random draws
//               would move the calibrated repro figures; turn it on by name.
//   sequential  no relaxation: every operation acts at one instant, in order.
//
// Guarantees that hold in every profile (and are litmus-tested as forbidden
// outcomes): an aligned 64-byte line is read and written atomically, a WRITE
// lands in increasing address order, NIC atomics on one NIC are atomic with
// each other, WRITEs and atomics on one queue pair execute in posting order,
// completions arrive in posting order per queue pair, a READ's destination is
// written when its response arrives, in posting order per queue pair.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "latchwork/base/layout.h"

namespace lw {

struct Semantics {
  // A multi-line READ fetches its lines in any order, at different instants.
  bool read_lines_unordered = true;
  // A multi-line WRITE lands line by line (in increasing address order) over
  // time, so a reader may see any prefix of it.
  bool write_lines_staggered = true;
  // A NIC atomic reads, then writes back later; a WRITE landing in between on
  // the same word is lost (FAA always writes back; CAS only on success).
  bool atomic_loses_write = true;
  // Likewise for a CPU store or CPU atomic on the memory node.
  bool atomic_loses_cpu = true;
  // A CAS that fails writes back the value it read, as a successful one
  // writes its new value: a WRITE or CPU store landing between its read and
  // that write-back is lost although the CAS changed nothing (whatever
  // atomic_loses_write / _cpu say, which are about atomics that change the
  // word). Soft-RoCE does this (Linux 6.1 rdma_rxe: one store after the
  // compare, whatever its outcome); whether ConnectX does is not known here.
  // Off in every profile, on by name ({"semantics": {"failed_cas_writes_back":
  // true}}): a lock taken by CAS and freed by a WRITE (our transaction
  // designs, three tuple schemes, many users' locks) hangs under it, so in
  // spec it would fail most sweeps on one cause. Where the backend says a
  // failed CAS may write back (Capabilities), our spinlock and HOCL free with
  // a CAS; `check --scheme spin-write-unlock` turns it on to show the hang.
  bool failed_cas_writes_back = false;
  // A later operation on a queue pair may execute before an earlier READ,
  // unless it carries the fence flag.
  bool read_overtaken = true;
  // Two READs on one queue pair execute in either order.
  bool reads_unordered = true;
  // A WRITE's payload is DMA-read from the requester's buffer when the NIC
  // executes it (each line at its own instant between post and landing), not
  // copied at post: a buffer changed before completion sends new bytes.
  bool write_payload_late = true;

  // Widths of the windows the relaxations act in (virtual nanoseconds).
  Nanos read_spread_ns = 800;    // lines of one READ fetched within this window
  Nanos write_line_gap_ns = 60;  // at most this between two lines of a WRITE landing
  Nanos atomic_window_ns = 300;  // at most this between an atomic's read and write-back

  static Semantics spec();
  static Semantics connectx();
  static Semantics sequential();

  // Looks up a profile by name; false if unknown.
  static bool from_profile(std::string_view name, Semantics* out);
  static const std::vector<std::string>& profile_names();

  // The relaxation switches by name, for flags, JSON and reports.
  struct Switch {
    const char* name;
    bool Semantics::*field;
    const char* meaning;
  };
  static const std::vector<Switch>& switches();

  bool any_relaxation() const;
  // A switched-on relaxation whose window is 0 would never act: the error
  // names the switch and its window field; "" when none.
  std::string validate() const;
  bool operator==(const Semantics&) const = default;
};

}  // namespace lw
