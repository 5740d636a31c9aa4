// Start-up time and resident memory of `latchwork perf read --nic
// cx6-200g --memory-nodes N` (perf's 256 MB per memory node) at N = 1 and 16.
// Each run is a child process, so its peak resident memory is its own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "runs/perf.h"
#include "sections.h"

namespace lw::bench {
namespace {

struct ChildResult {
  double total_seconds = 0, loop_seconds = 0;
  uint64_t rss_before = 0, rss_peak = 0;
};

ChildResult run_child(uint32_t memory_nodes) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    ChildResult out;
    out.rss_before = resident_bytes();
    ClusterConfig c;
    c.set_profile("connectx");
    c.nic.profile = "cx6-200g";
    c.memory_node_bytes = 256ull << 20;
    c.memory_nodes = memory_nodes;
    PerfOptions p;  // perf's defaults: 1 thread, depth 1, 500 us measured
    Stopwatch total;
    const PerfResult res = run_perf(c, p);
    out.total_seconds = total.seconds();
    out.loop_seconds = res.wall_seconds;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    out.rss_peak = static_cast<uint64_t>(ru.ru_maxrss) * 1024;
    const bool ok = write(fds[1], &out, sizeof out) == static_cast<ssize_t>(sizeof out);
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  ChildResult out;
  const bool ok = pid > 0 && read(fds[0], &out, sizeof out) == static_cast<ssize_t>(sizeof out);
  close(fds[0]);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  return ok ? out : ChildResult{};
}

}  // namespace

void memory_nodes(const Options& o, Report& r) {
  for (uint32_t n : {1u, 16u}) {
    ChildResult best;
    best.total_seconds = 1e30;
    for (int rep = 0; rep < o.repeats; ++rep) {
      const ChildResult c = run_child(n);
      if (c.total_seconds > 0 && c.total_seconds < best.total_seconds) best = c;
      if (c.total_seconds > 2) break;  // eager zeroing of GBs: once is enough
    }
    const double startup = best.total_seconds - best.loop_seconds;
    const double rss_mb = static_cast<double>(best.rss_peak - std::min(best.rss_peak, best.rss_before)) / 1e6;
    Row& row = r.add("start-up and memory: perf read --nic cx6-200g (256 MB per memory node)",
                     format("%u memory node%s: start-up", n, n > 1 ? "s" : ""), startup * 1e3, "ms");
    row.detail = format("resident +%.0f MB (peak RSS delta); whole run %.0f ms", rss_mb,
                        best.total_seconds * 1e3);
    row.fields = {{"memory_nodes", n}, {"startup_seconds", startup},
                  {"total_seconds", best.total_seconds}, {"rss_delta_bytes", rss_mb * 1e6}};
    Row& mem = r.add(row.section, format("%u memory node%s: resident", n, n > 1 ? "s" : ""), rss_mb, "MB");
    mem.detail = "peak RSS of the run minus RSS before it";
  }
}

}  // namespace lw::bench
