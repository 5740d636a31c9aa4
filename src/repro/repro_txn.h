// The transaction figures of DrTM+H (§4-§6) and SMART (§6.2.2) on the
// simulator: points whose ReproPoint::txn is set run txn::run_txn and report
// a PerfResult (mops = M committed txns/s, latencies in ns, the phase times
// and the abort rate as counters).
#pragma once

#include <string>

#include "repro/repro.h"

namespace lw {

// Counter names of a transaction point's PerfResult.
inline constexpr const char* kTxnAbortRateCounter = "txn.abort_rate";
// "txn.phase_us." + execution | validation | logging | commit.
std::string txn_phase_counter(txn::Phase p);

PerfResult txn_perf_result(const txn::TxnRunResult& r);
// The points of one figure share store plans and images (most load the same
// data) while the session's node memory reuse is in effect (txn/load.h).
PerfResult run_txn_point(const ReproPoint& p);

// A transaction point: `design` preset with `phase_flags` ("E=one,V=two")
// applied, `workload` at the scale of `oltp`, on `nodes` x `threads` x
// `coroutines`; the window is the repro default (short: every figure runs in
// well under a minute).
ReproPoint txn_point(std::string series, double x, const std::string& design, const std::string& phase_flags,
                     const std::string& workload, uint32_t nodes, uint32_t threads, uint32_t coroutines);

// DrTM+H §4 (src/repro/drtmh/, one file per figure).
ReproFigure drtmh_fig5();
ReproFigure drtmh_fig6();
// DrTM+H §5 phase by phase, §6 DrTM+H and the prior designs.
ReproFigure drtmh_fig7();
ReproFigure drtmh_fig8();
ReproFigure drtmh_fig9();
ReproFigure drtmh_fig10();
ReproFigure drtmh_fig11();
ReproFigure drtmh_fig12();
ReproFigure drtmh_fig13();
ReproFigure drtmh_fig14();
ReproFigure drtmh_fig15();
ReproFigure drtmh_table3();
// SMART §6.2.2 (src/repro/smart/).
ReproFigure smart_fig10();
ReproFigure smart_fig11();

}  // namespace lw
