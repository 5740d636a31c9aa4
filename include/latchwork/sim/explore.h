// Exhaustive exploration: every interleaving of a small program's steps and
// every choice the RDMA semantics contract allows, checked state by state.
// This plays the role a TLA+ model plays for a lock (ALock §1 cites one):
// within a small scope it proves, rather than samples.
//
// The program is ordinary Latchwork code: worker coroutines written against
// Worker (verbs, batches, CPU accesses of memory-node threads). Here each
// verb is cut into the atomic steps the contract allows to interleave:
//   - a READ: one step per 64-byte line, in any order, if
//     read_lines_unordered; else one step (a snapshot, as the simulator
//     fetches it), so a staggered WRITE can tear it in one direction only;
//   - a WRITE: one step per line, in address order, if
//     write_lines_staggered (else one step); with write_payload_late an
//     unsignaled WRITE also reads each source line in a step of its own
//     between post and landing (an awaited one cannot see its buffer change:
//     its coroutine is suspended until it completes);
//   - a NIC atomic: a read step and a write-back step (a failed CAS writes
//     nothing); other NIC atomics on that word wait between the two; a WRITE
//     (atomic_loses_write) or CPU access (atomic_loses_cpu) may land between
//     them and is then overwritten; with the switch off it may not;
//   - a CPU load, store or atomic of a memory-node thread: one step;
//   - queue-pair order per (thread, node): WRITEs and atomics in posting
//     order, a later request may pass an earlier READ unless fenced
//     (read_overtaken), two READs in either order (reads_unordered);
//     completions in posting order. Windows (the *_ns fields) are ignored.
//     With atomic_loses_write (atomic_loses_cpu) off, a WRITE line (CPU
//     store or atomic) on a word inside an open atomic waits for its
//     write-back: it is linearised after the atomic, or lands before its read.
//   - sleep: a yield, one step; park waits for an unpark, whose wake is a step.
// A coroutine resumes in the step that completes what it awaited (the
// earliest it could), and runs until its next await; its code between awaits
// is one atomic block. now() counts the steps so far (or, with
// Spec::logical_clock, ticks per call as a result); charge_cpu is ignored;
// queue depth is not limited.
//   - RPC (Worker::call, send): the node's handler (the built-ins and those
//     the set-up registers) runs atomically in one step, on the explored
//     memory; an awaited call's caller resumes in that step. Calls and
//     one-way messages of one queue pair are served in posting order,
//     independently of its verbs. Handler stores follow the CPU store rules
//     (atomic_loses_cpu), and allocation moves the node's allocation
//     pointer, which is part of the state.
//
// Search: depth-first over the choices, replaying the program from the start
// to reach each state (coroutines cannot be copied). A state is identified by
// the memory, the pending steps, and per coroutine the hash of every result
// it has received (which determines its local variables, since programs are
// deterministic); states seen before are not expanded again. Spin-loop
// reduction: an operation identical to the coroutine's previous one that
// returns the same result does not change its state (sound for loops whose
// iteration only re-reads and compares; more generally a block of up to four
// operations repeated with the same results, e.g. a failed CAS then a sleep,
// is folded; unsound for loops that count their tries: turn it off with
// Spec::spin_reduction). Because states are counted exactly,
// the result says how many there were, and with check_progress it proves that
// from every reachable state some path ends with every worker finished
// (no deadlock, no livelock in which the workers only spin).
//
//   explore::Spec s;
//   s.nodes = 2; s.workers = {{Placement::Kind::kMemory, 0, 0, 0}, ...};
//   s.setup = [&](Backend& b) { lock = b.allocate(0, 64); in_cs = 0; };
//   s.program = [&](Worker& w, uint32_t i) -> Task<void> { ... };
//   s.ghost_hash = [&] { return in_cs; };
//   explore::Result r = explore::run(s);   // r.violation, r.states
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "latchwork/config/cluster_config.h"
#include "latchwork/config/semantics.h"
#include "latchwork/runtime/task.h"
#include "latchwork/verbs/backend.h"
#include "latchwork/verbs/worker.h"

namespace lw::explore {

struct Spec {
  std::string name = "program";
  uint32_t nodes = 1;                // memory nodes (each may run workers)
  uint64_t node_bytes = 64 << 10;    // host memory per node
  uint64_t device_bytes = 0;         // device memory per node
  Semantics semantics = Semantics::spec();  // which relaxations are choices
  std::vector<Placement> workers;    // one coroutine each
  // Host-side set-up of a fresh run (called before every replay): allocate
  // and initialise memory, and reset any ghost state the program keeps.
  std::function<void(Backend&)> setup;
  // Worker `index` (into `workers`).
  std::function<Task<void>(Worker&, uint32_t index)> program;
  // Checked after every step: "" or the violated property.
  std::function<std::string()> invariant;
  // Ghost state the program keeps outside remote memory (e.g. who is in the
  // critical section), folded into the state identity.
  std::function<uint64_t()> ghost_hash;
  // Checked when every worker has finished: "" or a message.
  std::function<std::string(Backend&)> final_check;
  bool check_progress = true;        // prove every state can reach the end
  bool spin_reduction = true;        // fold repeated operations (see above)
  // The seed of the workers' Worker::rng (worker_seed(seed, placement), as
  // the simulator's): a program's random choices are its own, one per seed.
  uint64_t seed = 1;
  // now() is a logical clock that ticks on every call, and the value a
  // coroutine reads is one of its results (it goes into its state). Histories
  // stamped with it keep the real-time order of the execution (an operation
  // ended before another began iff its end was read first); off, now()
  // counts steps and is not part of the state (fine for programs that do
  // not keep the times they read).
  bool logical_clock = false;
  // Keep searching after a violation and report the one with the shortest
  // trace (a breadth-first pass over the recorded state graph); off, the
  // search stops at the first violation it meets (depth-first: not shortest).
  bool shortest_trace = false;
  // What config() shows the program (e.g. the compute-node count); its
  // backend, memory sizes and semantics are replaced by the fields above.
  std::optional<ClusterConfig> config;
  uint64_t max_states = 20'000'000;  // bounds: past them the result is incomplete
  uint32_t max_depth = 100'000;      // steps in one execution

  std::string validate() const;      // "" or a message
};

struct Result {
  bool complete = false;          // the whole state space was explored
  uint64_t states = 0;            // distinct states
  uint64_t transitions = 0;       // steps taken from distinct states
  uint64_t terminal_states = 0;   // states with every worker finished
  uint64_t replays = 0;           // runs of the program from its start
  uint32_t max_depth = 0;         // longest execution seen (steps)
  std::string violation;          // "" if none: invariant, final check, exception,
                                  // "deadlock: ..." or "stuck: ..." (check_progress)
  std::vector<std::string> trace; // the steps from the start to the violation, then
                                  // (for deadlock/stuck) what each worker waits on
  std::string bound;              // which bound stopped an incomplete search
  uint64_t violating_states = 0;  // shortest_trace: distinct states found violating
  double wall_seconds = 0;        // for reports only; no decision reads it
};

Result run(const Spec& s);

}  // namespace lw::explore
