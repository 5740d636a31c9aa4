// DrTM+H §3.1 and Fig. 3(b) on the NIC model: two-sided RPC (SEND/RECV to
// a memory node's polling cores) against one-sided READ with the same
// payload. The RPC points are marked by PerfOptions::target == "rpc" and run
// by run_rpc_point() (the generic perf driver has no RPC loop).
#pragma once

#include "repro/repro.h"

namespace lw {

ReproFigure drtmh_fig3b();

// Whether a point of a figure is an RPC point, and its run: every coroutine
// of every compute thread calls the echo handler with `perf.size` bytes, one
// call at a time, for perf.warmup_ns + perf.measure_ns of virtual time.
bool is_rpc_point(const ReproPoint& p);
PerfResult run_rpc_point(const ReproPoint& p);

}  // namespace lw
