#include "latchwork/config/semantics.h"

namespace lw {

Semantics Semantics::spec() { return Semantics{}; }

Semantics Semantics::connectx() {
  Semantics s;
  s.read_overtaken = false;
  s.reads_unordered = false;
  // ConnectX NICs do DMA-read a WRITE's source when they execute the WQE, but
  // the switch's draws move the calibrated `latchwork repro` numbers (Sherman
  // Fig. 3, Jasny Figs. 9, 10, 16, 26), which must stay put: off here, on by name.
  s.write_payload_late = false;
  // Narrower windows: a ConnectX-5 fetches the lines of a READ within a few
  // hundred nanoseconds of each other.
  s.read_spread_ns = 300;
  s.write_line_gap_ns = 20;
  s.atomic_window_ns = 150;
  return s;
}

Semantics Semantics::sequential() {
  Semantics s;
  for (const auto& sw : switches()) s.*(sw.field) = false;
  s.read_spread_ns = 0;
  s.write_line_gap_ns = 0;
  s.atomic_window_ns = 0;
  return s;
}

const std::vector<std::string>& Semantics::profile_names() {
  static const std::vector<std::string> names = {"spec", "connectx", "sequential"};
  return names;
}

bool Semantics::from_profile(std::string_view name, Semantics* out) {
  if (name == "spec") *out = spec();
  else if (name == "connectx") *out = connectx();
  else if (name == "sequential") *out = sequential();
  else return false;
  return true;
}

const std::vector<Semantics::Switch>& Semantics::switches() {
  static const std::vector<Switch> list = {
      {"read_lines_unordered", &Semantics::read_lines_unordered,
       "a multi-line READ fetches its lines in any order, at different instants"},
      {"write_lines_staggered", &Semantics::write_lines_staggered,
       "a multi-line WRITE lands line by line, so any prefix may be seen"},
      {"atomic_loses_write", &Semantics::atomic_loses_write,
       "a WRITE landing between a NIC atomic's read and write-back is lost"},
      {"atomic_loses_cpu", &Semantics::atomic_loses_cpu,
       "a CPU store/atomic landing inside a NIC atomic is lost"},
      {"read_overtaken", &Semantics::read_overtaken,
       "a later operation on a queue pair may overtake an unfenced READ"},
      {"reads_unordered", &Semantics::reads_unordered,
       "two READs on one queue pair execute in either order"},
      {"write_payload_late", &Semantics::write_payload_late,
       "a WRITE's source is read when the NIC executes it: a buffer changed after post sends new bytes"},
      // Last: check's swarm draws it after every other draw (swarm.cpp).
      {"failed_cas_writes_back", &Semantics::failed_cas_writes_back,
       "a failed NIC CAS writes back the value it read (Soft-RoCE): a WRITE or CPU store inside it is lost"},
  };
  return list;
}

bool Semantics::any_relaxation() const {
  for (const auto& sw : switches())
    if (this->*(sw.field)) return true;
  return false;
}

std::string Semantics::validate() const {
  // Each switch that acts within a window, and that window. write_payload_late
  // needs none: it reads between post and landing, which timing gives.
  struct Need {
    const char* name;
    bool Semantics::*on;
    const char* window_name;
    Nanos Semantics::*window;
  };
  static constexpr Need kNeeds[] = {
      {"read_lines_unordered", &Semantics::read_lines_unordered, "read_spread_ns", &Semantics::read_spread_ns},
      {"write_lines_staggered", &Semantics::write_lines_staggered, "write_line_gap_ns",
       &Semantics::write_line_gap_ns},
      {"atomic_loses_write", &Semantics::atomic_loses_write, "atomic_window_ns", &Semantics::atomic_window_ns},
      {"atomic_loses_cpu", &Semantics::atomic_loses_cpu, "atomic_window_ns", &Semantics::atomic_window_ns},
      {"failed_cas_writes_back", &Semantics::failed_cas_writes_back, "atomic_window_ns",
       &Semantics::atomic_window_ns},
  };
  for (const Need& n : kNeeds)
    if (this->*(n.on) && this->*(n.window) == 0)
      return std::string("semantics.") + n.name + " is on but semantics." + n.window_name +
             " is 0: a relaxation with a zero window never acts (set " + n.window_name +
             " > 0 or switch " + n.name + " off)";
  return {};
}

}  // namespace lw
