// ALock's modified Peterson lock (Baran et al. Alg. 4) between the two
// cohort leaders. The cohort tails are Peterson's flags: a cohort is
// interested (or holds) while its tail is non-null.
//
//   pLock(cohort) = pReacquire(cohort):
//     victim := cohort
//     wait while victim == cohort and other cohort's tail != null
//
// The local leader uses CPU store/loads; the remote leader an RDMA WRITE of
// victim, then one 64-byte READ of the whole ALock line (tail_l and victim
// in one atomic snapshot: an aligned line is read atomically). Why this is
// correct under Table 1: victim is only ever stored/WRITten (CPU store and
// RDMA WRITE of 8 aligned bytes are atomic with each other, and no atomic
// targets it, so neither can be lost); each tail is CAS'd by one cohort
// only (tail_l by CPU CAS, tail_r by RDMA CAS) and only read by the other.
// Each step is awaited before the next is issued (the victim WRITE has
// landed before the READ is posted), which is the ordering Peterson needs:
// own flag (tail), then victim, then the reads.
//
// Variants (negative controls): kVictimAfterCheck tests once, before writing
// victim, and enters when the test passes — victim then names the other
// cohort, which wrote it on its own way in, so a leader enters beside a
// holder; kNoVictim keeps only the flags, and two leaders that both see the
// other's tail wait on each other forever.
#include "lock_impl.h"

namespace lw::locks::detail {
namespace {

struct View {
  Status status = Status::kOk;
  uint64_t victim = 0;
  uint64_t other_tail = 0;
};

Task<View> observe(Ctx c, RemoteAddr line, uint64_t cohort) {
  View v;
  if (cohort == kLocal) {
    Result<uint64_t> vic = co_await c.load(line + kVictim);
    Result<uint64_t> tail = co_await c.load(line + kTailR);
    v.status = !vic.ok() ? vic.status : tail.status;
    v.victim = vic.value;
    v.other_tail = tail.value;
    co_return v;
  }
  AlockLine snap{};
  v.status = co_await c.rread_line(line, &snap);
  v.victim = snap.victim;
  v.other_tail = snap.tail_l;
  co_return v;
}

}  // namespace

Task<Status> alock_peterson(Ctx c, RemoteAddr line, uint64_t cohort) {
  LW_CHECK(cohort == kLocal || cohort == kRemote);
  const AlockVariant variant = c.cfg().variant;
  if (variant == AlockVariant::kVictimAfterCheck) {
    View v = co_await observe(c, line, cohort);
    if (!ok(v.status)) co_return v.status;
    if (v.other_tail == 0 || v.victim != cohort) co_return Status::kOk;  // BUG: victim not yet written
  }
  if (variant != AlockVariant::kNoVictim) {
    Status s = cohort == kLocal ? co_await c.store(line + kVictim, cohort)
                                : co_await c.rwrite(line + kVictim, cohort);
    if (!ok(s)) co_return s;
  }
  uint64_t spins = 0;
  for (;;) {
    View v = co_await observe(c, line, cohort);
    if (!ok(v.status)) co_return v.status;
    const bool yield = variant == AlockVariant::kNoVictim ? false : v.victim != cohort;
    if (v.other_tail == 0 || yield) co_return Status::kOk;
    if (!c.spin(&spins)) co_return Status::kRetryExhausted;
  }
}

}  // namespace lw::locks::detail
