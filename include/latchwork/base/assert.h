// Dense invariant checks that stay on in release builds.
//
// A violated invariant is a bug in Latchwork or in the program under test. The
// handler prints where it happened and, when a simulation is running, the seed
// and a command that replays the run (see set_replay_hint), then aborts; or,
// inside a ThrowOnInvariant scope, throws InvariantViolation so that a driver
// sweeping seeds can report the failure and go on.
#pragma once

#include <stdexcept>
#include <string>

namespace lw {

// Registers the text printed after an invariant violation, typically
// "seed=42; replay: latchwork torn-read --seed 42 ...". The simulator and the
// command-line tool set it when a run starts. Thread-local: each simulation runs
// on one OS thread.
void set_replay_hint(std::string hint);
const std::string& replay_hint();

// What the running simulation is ("sim seed=42 semantics=spec"); the simulator
// sets it for the duration of a run, so the seed printed is always the one of
// the run that failed.
void set_run_context(std::string context);

// What a violated invariant throws inside a ThrowOnInvariant scope. what() is
// the full report: expression, file:line, message, run context, replay hint.
struct InvariantViolation : std::logic_error {
  using std::logic_error::logic_error;
};

// While at least one is alive on the calling thread, invariant_failed throws
// InvariantViolation instead of printing and aborting. Checks in noexcept code
// (destructors, noexcept awaiters) still end the process: throwing there
// terminates. The simulator's run() is exception-safe (sim_backend.h).
class ThrowOnInvariant {
 public:
  ThrowOnInvariant();
  ~ThrowOnInvariant();
  ThrowOnInvariant(const ThrowOnInvariant&) = delete;
  ThrowOnInvariant& operator=(const ThrowOnInvariant&) = delete;
};

[[noreturn]] void invariant_failed(const char* expr, const char* file, int line,
                                   const std::string& message);

}  // namespace lw

#define LW_CHECK(cond)                                              \
  do {                                                              \
    if (!(cond)) [[unlikely]]                                       \
      ::lw::invariant_failed(#cond, __FILE__, __LINE__, {});        \
  } while (0)

#define LW_CHECK_MSG(cond, msg)                                     \
  do {                                                              \
    if (!(cond)) [[unlikely]]                                       \
      ::lw::invariant_failed(#cond, __FILE__, __LINE__, (msg));     \
  } while (0)
