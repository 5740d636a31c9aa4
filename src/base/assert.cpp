#include "latchwork/base/assert.h"

#include <cstdio>
#include <cstdlib>

namespace lw {
namespace {
thread_local std::string g_replay_hint;
thread_local std::string g_run_context;
}  // namespace

void set_run_context(std::string context) { g_run_context = std::move(context); }

void set_replay_hint(std::string hint) { g_replay_hint = std::move(hint); }
const std::string& replay_hint() { return g_replay_hint; }

void invariant_failed(const char* expr, const char* file, int line,
                      const std::string& message) {
  std::fprintf(stderr, "latchwork: invariant violated: %s\n  at %s:%d\n", expr,
               file, line);
  if (!message.empty()) std::fprintf(stderr, "  %s\n", message.c_str());
  if (!g_run_context.empty()) std::fprintf(stderr, "  %s\n", g_run_context.c_str());
  if (!g_replay_hint.empty())
    std::fprintf(stderr, "  %s\n", g_replay_hint.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace lw
