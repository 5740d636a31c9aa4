#include "latchwork/base/assert.h"

#include <cstdio>
#include <cstdlib>

namespace lw {
namespace {
thread_local std::string g_replay_hint;
thread_local std::string g_run_context;
thread_local int g_throw_depth = 0;  // live ThrowOnInvariant scopes
}  // namespace

void set_run_context(std::string context) { g_run_context = std::move(context); }

void set_replay_hint(std::string hint) { g_replay_hint = std::move(hint); }
const std::string& replay_hint() { return g_replay_hint; }

ThrowOnInvariant::ThrowOnInvariant() { ++g_throw_depth; }
ThrowOnInvariant::~ThrowOnInvariant() { --g_throw_depth; }

void invariant_failed(const char* expr, const char* file, int line,
                      const std::string& message) {
  std::string report = std::string("invariant violated: ") + expr + "\n  at " + file + ":" +
                       std::to_string(line);
  auto add = [&](const std::string& extra) {
    if (!extra.empty()) report += "\n  " + extra;
  };
  add(message);
  add(g_run_context);
  add(g_replay_hint);
  if (g_throw_depth > 0) throw InvariantViolation(report);
  std::fprintf(stderr, "latchwork: %s\n", report.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace lw
