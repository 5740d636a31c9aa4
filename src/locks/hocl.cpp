// HOCL (locks/hocl.h): the GLTs, lock() and the release. The local lock
// table is hocl_local.cpp; hocl_impl.h draws its entry.
//
// GLT layouts:
//   on-chip  16-bit lanes in device memory, lock i in word i/4, lane i%4
//            (bits 16*lane..16*lane+15); taken with a masked CAS on its
//            lane, released by a 2-byte WRITE of zero at the lane's bytes.
//   host     one 64-bit word per lock; CAS 0 -> holder, 8-byte WRITE of 0.
// A taken lock holds its holder's id: compute node + 1 (nonzero, 16 bits).
#include <string>

#include "hocl_impl.h"
#include "latchwork/sync/retry.h"

namespace lw::locks {

namespace {

constexpr uint32_t kLanes = 4;  // 16-bit locks per 8-byte word
constexpr uint64_t kLaneBits = 16;
constexpr uint64_t kLaneMask = 0xFFFF;

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

uint64_t glt_bytes(const HoclConfig& c, bool on_chip) {
  return on_chip ? (uint64_t{c.locks_per_node} * 2 + 7) / 8 * 8 : uint64_t{c.locks_per_node} * 8;
}

// Why the GLTs cannot be on chip on this backend, or "" when they can.
std::string on_chip_refusal(Backend& b, const HoclConfig& c) {
  const Capabilities caps = b.capabilities();
  if (!c.shared_name.empty()) return "a shared lock table (shared_name) lives in host memory";
  if (!caps.device_memory) return "the backend has no device memory (Soft-RoCE)";
  if (!caps.masked_atomics) return "the backend has no masked atomics (Soft-RoCE)";
  const uint64_t need = glt_bytes(c, true);
  if (need > b.config().device_memory_bytes)
    return "the GLT needs " + std::to_string(need) + " bytes of device memory, a node has " +
           std::to_string(b.config().device_memory_bytes);
  return {};
}

const char kHostSuffix[] = ": 64-bit locks in host memory";

}  // namespace

std::string HoclConfig::validate() const {
  if (locks_per_node == 0 || locks_per_node > kMaxLocksPerNode) return "locks_per_node must be in [1, 2^22]";
  // The LLT keeps the handover depth in a byte; 0 turns handover off.
  if (max_handover > 255) return "max_handover must be in [0, 255]";
  if (max_spins == 0) return "max_spins must be positive";
  if (local_poll_ns == 0 || local_poll_ns > ClusterConfig::kMaxLatencyNs)
    return "local_poll_ns must be in [1, 10^9]";
  return {};
}

Result<Hocl> Hocl::create(Backend& b, const HoclConfig& cfg) {
  if (!cfg.validate().empty()) return {Status::kBadLength, {}};
  auto s = std::make_shared<State>();
  s->cfg = cfg;
  s->memory_nodes = b.config().memory_nodes;
  s->compute_nodes = b.config().compute_nodes;
  LW_CHECK_MSG(s->memory_nodes > 0 && s->memory_nodes <= (1u << 16), "HOCL needs memory nodes");
  LW_CHECK_MSG(s->compute_nodes < kLaneMask, "holder ids are 16 bits");
  if (cfg.on_chip) {
    const std::string why = on_chip_refusal(b, cfg);
    s->on_chip = why.empty();
    if (!why.empty()) s->fallback = why + kHostSuffix;
  }
  if (s->on_chip) {
    for (uint32_t n = 0; n < s->memory_nodes; ++n) {
      const RemoteAddr a = b.allocate_device_memory(static_cast<NodeId>(n), glt_bytes(cfg, true));
      if (a.is_null()) {  // taken by someone else: the whole table goes to host memory
        s->on_chip = false;
        s->fallback = "device memory of node " + std::to_string(n) + " is full" + kHostSuffix;
        s->glt.clear();
        break;
      }
      s->glt.push_back(a);
    }
  }
  if (!s->on_chip) {
    s->release_by_cas = b.capabilities().failed_cas_writes_back;
    for (uint32_t n = 0; n < s->memory_nodes; ++n) {
      const NodeId node = static_cast<NodeId>(n);
      const uint64_t bytes = glt_bytes(cfg, false);
      const RemoteAddr a = cfg.shared_name.empty() ? b.allocate(node, bytes, kCacheLine)
                                                   : b.allocate_shared(node, cfg.shared_name + "/glt", bytes);
      if (a.is_null()) return {Status::kOutOfBounds, {}};
      s->glt.push_back(a);
    }
  }
  // Allocation comes zeroed: every lock free.
  if (cfg.hierarchical) {
    for (uint32_t c = 0; c < s->compute_nodes; ++c) {
      s->llt.push_back(hocl::LocalTable::create(uint64_t{s->memory_nodes} * cfg.locks_per_node));
      if (!s->llt.back()) return {Status::kOutOfBounds, {}};
    }
  }
  Hocl h;
  h.state_ = std::move(s);
  return {Status::kOk, std::move(h)};
}

uint32_t Hocl::index_of(RemoteAddr guarded) const {
  return static_cast<uint32_t>(mix(guarded.raw()) % state_->cfg.locks_per_node);
}

RemoteAddr Hocl::word_addr(NodeId node, uint32_t index) const {
  const State& s = *state_;
  LW_CHECK_MSG(node < s.memory_nodes && index < s.cfg.locks_per_node,
               "lock " + std::to_string(index) + " of node " + std::to_string(node));
  return s.on_chip ? s.glt[node] + uint64_t{index / kLanes} * kWord : s.glt[node] + uint64_t{index} * kWord;
}

uint64_t Hocl::lane_mask(uint32_t index) const {
  return state_->on_chip ? kLaneMask << (kLaneBits * (index % kLanes)) : ~uint64_t{0};
}

const HoclConfig& Hocl::config() const { return state_->cfg; }
bool Hocl::on_chip() const { return state_->on_chip; }
const std::string& Hocl::fallback() const { return state_->fallback; }

HoclStats Hocl::stats() const {
  const State& s = *state_;
  HoclStats o;
  o.acquisitions = s.acquisitions.load();
  o.handovers = s.handovers.load();
  o.global_cas = s.global_cas.load();
  o.global_cas_failed = s.global_cas_failed.load();
  o.local_waits = s.local_waits.load();
  o.gave_up = s.gave_up.load();
  return o;
}

namespace {

// Takes the global lock of `g` (CAS until it is free), counting each failed
// attempt in *spins; kRetryExhausted past max_spins, a verb's error as is.
Task<Status> take_global(Hocl::State& s, smart::Context& ctx, RemoteAddr word, uint64_t mask, Hocl::Grant* g,
                         uint64_t* spins) {
  const uint64_t id = uint64_t{g->compute_node} + 1;
  const uint32_t shift = s.on_chip ? static_cast<uint32_t>(kLaneBits * (g->index % kLanes)) : 0;
  RetryPolicy policy;
  Backoff backoff(policy);
  for (;;) {
    ++g->remote_attempts;
    ++s.global_cas;
    Result<uint64_t> r;
    if (s.on_chip) {
      // Context has no masked CAS: a one-request batch through its throttle.
      Batch b;
      b.masked_cas(word, 0, id << shift, mask, mask);
      const Status st = co_await ctx.execute(b);
      r = {st, b[0].old_value};
    } else if (s.cfg.backoff) {
      r = co_await ctx.backoff_cas(word, 0, id);
    } else {
      r = co_await ctx.cas(word, 0, id);
    }
    if (!r.ok()) co_return r.status;
    if ((r.value & mask) == 0) co_return Status::kOk;
    // Another process's ids (shared_name) are outside this run's range.
    LW_CHECK_MSG(!s.cfg.shared_name.empty() || ((r.value & mask) >> shift) <= s.compute_nodes,
                 "GLT lock " + std::to_string(g->index) + " holds " + std::to_string(r.value));
    ++s.global_cas_failed;
    if (++*spins > s.cfg.max_spins) co_return Status::kRetryExhausted;
    // backoff_cas slept already (when the runtime's backoff is on); the
    // masked CAS counts the retry for SMART and backs off here (jittered
    // exponential, as the spinlocks) under the same condition, so that with
    // the runtime's backoff off both GLT layouts spin without sleeping, as
    // Sherman's try_lock_addr and FG's locks do.
    if (s.on_chip && s.cfg.backoff) {
      ctx.note_retry();
      if (ctx.config().backoff) co_await backoff.wait(ctx.worker());
    }
  }
}

}  // namespace

Task<Result<Hocl::Grant>> Hocl::lock(smart::Context& ctx, RemoteAddr guarded) const {
  State& s = *state_;
  Worker& w = ctx.worker();
  const Placement& p = w.placement();
  LW_CHECK_MSG(p.kind == Placement::Kind::kCompute && p.node < s.compute_nodes, "HOCL serves compute workers");
  LW_CHECK_MSG(guarded.node() < s.memory_nodes, "guarded address " + guarded.to_string());
  Grant g;
  g.node = guarded.node();
  g.index = index_of(guarded);
  g.compute_node = p.node;
  const RemoteAddr word = word_addr(g.node, g.index);
  const uint64_t mask = lane_mask(g.index);
  uint64_t spins = 0;
  if (!s.cfg.hierarchical) {
    const Status st = co_await take_global(s, ctx, word, mask, &g, &spins);
    if (st == Status::kRetryExhausted) ++s.gave_up;
    if (!ok(st)) co_return Result<Grant>{st, {}};
    ++s.acquisitions;
    co_return Result<Grant>{Status::kOk, g};
  }
  // Fig. 6 lines 6-16: queue on the local lock first.
  hocl::LocalTable& llt = s.local(p.node);
  const uint64_t e = s.entry(g.node, g.index);
  const hocl::LocalTable::Arrival a = llt.arrive(e);
  g.ticket = a.ticket;
  if (!a.holder) {
    ++s.local_waits;
    for (;;) {
      co_await w.sleep(s.cfg.local_poll_ns);
      const hocl::Turn t = llt.poll(e, g.ticket);
      if (t == hocl::Turn::kMineHanded) {
        g.handed_over = true;
        ++s.handovers;
        ++s.acquisitions;
        co_return Result<Grant>{Status::kOk, g};
      }
      if (t == hocl::Turn::kMine) break;
      if (++spins > s.cfg.max_spins && llt.abandon(e, g.ticket)) {
        ++s.gave_up;
        co_return Result<Grant>{Status::kRetryExhausted, {}};
      }
    }
  }
  // Lines 17-19: the global lock.
  const Status st = co_await take_global(s, ctx, word, mask, &g, &spins);
  if (!ok(st)) {
    llt.pass(e, g.ticket, /*released=*/false);
    if (st == Status::kRetryExhausted) ++s.gave_up;
    co_return Result<Grant>{st, {}};
  }
  ++s.acquisitions;
  co_return Result<Grant>{Status::kOk, g};
}

bool Hocl::release_global(const Grant& g, Batch& batch) const {
  const State& s = *state_;
  LW_CHECK_MSG(batch.empty() || batch[0].remote.node() == g.node, "the release batch is for another node");
  if (s.cfg.hierarchical &&
      s.local(g.compute_node).decide(s.entry(g.node, g.index), g.ticket, s.cfg.handover, s.cfg.max_handover))
    return false;  // handed over at release_local: no remote access
  LW_CHECK_MSG(batch.size() < Batch::kMax, "no room in the batch for the release");
  // Appended after the caller's write-backs: WRITEs on one QP execute in
  // order, so the lock is free only once the node is written back.
  const RemoteAddr word = word_addr(g.node, g.index);
  if (s.on_chip) batch.write(word + 2 * (g.index % kLanes), s.zero, 2);
  else if (s.release_by_cas) batch.cas(word, uint64_t{g.compute_node} + 1, 0);  // the id take_global set
  else batch.write(word, s.zero, 8);
  return true;
}

void Hocl::release_local(Worker& w, const Grant& g) const {
  const State& s = *state_;
  if (!s.cfg.hierarchical) return;
  LW_CHECK_MSG(w.placement().node == g.compute_node, "releasing another compute node's lock");
  s.local(g.compute_node).pass(s.entry(g.node, g.index), g.ticket, /*released=*/true);
}

Task<Status> Hocl::unlock(smart::Context& ctx, const Grant& g) const {
  Batch b;
  Status st = Status::kOk;
  // An empty batch (a handover) is not posted: Worker::execute refuses it.
  if (release_global(g, b)) st = co_await ctx.execute(b);
  release_local(ctx.worker(), g);
  co_return st;
}

}  // namespace lw::locks
