// Shared set-ups of the SMART reproductions (src/repro/smart/*.cpp): the
// bench tool's cluster of §3.1 / §6.3 and the hash-table cluster of §6.2.1.
#pragma once

#include <string>

#include "runs/hash_run.h"
#include "repro/repro.h"

namespace lw::smart_repro {

// The §3.1 bench: one compute blade, one memory blade, cx6-200g, random
// 8-byte READs in an 8 MiB region (the paper: 1 GB; the region only has to
// defeat the NIC's caches of data, which the model does not have).
ClusterConfig bench_cluster(uint32_t threads, uint32_t depth, QpPolicy policy);
PerfOptions bench_read();
// +WorkReqThrot: the SMART runtime's Alg. 1 on top of per-thread doorbells,
// its clocks divided by `divisor`; the warm-up covers one update phase (five
// candidates of delta) so that the window measures the chosen C_max.
void add_work_request_throttling(ClusterConfig* c, PerfOptions* o, uint32_t divisor);
// The windows add_work_request_throttling() gives a point on c's clocks.
void set_throttling_windows(const ClusterConfig& c, PerfOptions* o);
inline constexpr uint32_t kBenchPolicyDivisor = 32;

// §6.2.1: 1 compute blade (or more for scale-out), 2 memory blades,
// cx6-200g, 8 coroutines per thread ("concurrency depth 8"), the table's
// preset and the policies' clocks divided by kDefaultPolicyTimeDivisor.
ClusterConfig hash_cluster(const std::string& table, uint32_t compute_nodes, uint32_t threads);
HashRunOptions hash_options(ycsb::Mix mix, double zipf = 0.99);
// The paper loads 100 M records; loading is host-side work repeated for
// every point, so the reproductions load fewer (see hash_note()).
inline constexpr uint64_t kHashKeys = 1u << 18;
// The x of a latency-throughput sweep's point without think time (SMART
// Figs. 9 and 11: as fast as it goes).
inline constexpr double kFullLoad = 0;
// What every hash figure shares in its notes: keys, time scaling.
std::string hash_note();

}  // namespace lw::smart_repro

namespace lw {
// The figures (one file each).
ReproFigure smart_fig7();
ReproFigure smart_fig8();
ReproFigure smart_fig9();
ReproFigure smart_fig13();
ReproFigure smart_fig14();
ReproFigure smart_table1();
}  // namespace lw
