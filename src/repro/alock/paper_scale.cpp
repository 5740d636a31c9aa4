// ALock at --scale paper (paper_scale.h): longer runs.
#include "common.h"
#include "repro/paper_scale.h"

namespace lw::alock_repro {

namespace {
// ALock §6 runs each point for seconds; the default runs 150-1000 lock and
// unlock pairs per worker. Ten times as many makes the start-up (every
// worker's first, uncontended acquisitions) a tenth of its default share.
constexpr uint64_t kPaperRunFactor = 10;
}  // namespace

std::string to_paper_scale(ReproPoint* p) {
  if (!p->lock_table) return "";
  p->lock_table->ops_per_worker *= kPaperRunFactor;
  return "lock-table points run 10x the default's lock+unlock pairs per worker (the paper: seconds per point)";
}

}  // namespace lw::alock_repro
