// Logging (DrTM+H §5.4): a redo entry per backup node with the writes whose
// partition it backs up, written into this coordinator's ring on that node
// (one-sided WRITE, or RPCs carrying it); lazy reclaim asks the backup's CPU
// to apply entries to its copies and free the space (a one-way message every
// reclaim_every commits, a call when the ring is full, and in drain()).
// FORD instead writes undo entries (old images) to every replica's ring
// before write-back; they are never applied, so the ring just wraps.
#include <algorithm>
#include <cstring>

#include "latchwork/base/assert.h"
#include "txn_state.h"

namespace lw::txn {

using namespace wire;

namespace {
constexpr uint64_t kWrapWord = kWrap;   // a WRITE source that never changes
constexpr uint32_t kReclaimTries = 64;  // sync reclaims while a copy is busy
constexpr Nanos kReclaimBackoffNs = 2'000;
}  // namespace

Task<TxnStatus> Txn::State::log(const RecIndexes& ws) {
  const bool undo = d.undo_log;
  if (!undo && store.replicas() <= 1) co_return TxnStatus::kOk;
  const uint32_t first_rep = undo ? 0 : 1;
  for (NodeId n = 0; n < store.nodes(); ++n) {
    std::vector<std::byte>& entry = bufs[n];
    entry.clear();
    put(entry, EntryHead{});
    uint32_t count = 0;
    for (uint32_t i : ws) {
      const Rec& r = recs[i];
      bool here = false;
      for (uint32_t rep = first_rep; rep < store.replicas(); ++rep) here = here || store.node_of(r.table, r.key, rep) == n;
      if (!here) continue;
      const std::span<const std::byte> payload = undo ? std::span<const std::byte>(r.value) : r.update;
      put(entry, LogItem{r.table, 0, r.payload_bytes, r.key, undo ? r.version : r.version + 1});
      put_bytes(entry, payload, pad8(r.payload_bytes));
      ++count;
    }
    if (count == 0) continue;
    const uint64_t len = entry.size() + 8;
    put(entry, len);
    w.compute(CpuWork::kCopyByte, entry.size());  // the entry built
    const EntryHead head{len, t.coordinator_, count};
    std::memcpy(entry.data(), &head, sizeof head);

    NodeState& ns = nodes[n];
    const uint64_t cap = store.options().log_ring_bytes - kRingHeader;
    if (len > cap) co_return fail(Status::kBadLength);  // raise log_ring_bytes
    const uint64_t off = ns.log_head % cap;
    const uint64_t skip = cap - off < len ? cap - off : 0;
    const uint64_t need = skip + len;
    if (!undo) {
      for (uint32_t a = 0; ns.log_head + need - ns.log_tail > cap; ++a) {
        if (a == kReclaimTries) co_return fail(Status::kRetryExhausted);
        if (a > 0) co_await w.sleep(kReclaimBackoffNs);
        if (Status s = co_await reclaim(n, true); !ok(s)) co_return fail(s);
      }
    }
    const RemoteAddr ring = store.log_ring(n, t.coordinator_);
    const RemoteAddr data = ring + kRingHeader;
    const uint64_t at = (ns.log_head + skip) % cap;
    if (d.phases.log == Primitive::kTwoSided) {
      std::vector<std::byte> req;
      if (skip) {
        put(req, (data + off).offset());
        put(req, kWrap);
        const Result<uint32_t> r = co_await call(n, kLogIx, req, reply);
        if (!r.ok()) co_return fail(r.status);
      }
      for (uint64_t done = 0; done < len;) {
        const uint64_t chunk = std::min<uint64_t>(len - done, kMaxRpcBytes - 8);
        req.clear();
        put(req, (data + at + done).offset());
        put_bytes(req, std::span<const std::byte>(entry).subspan(done, chunk), chunk);
        const Result<uint32_t> r = co_await call(n, kLogIx, req, reply);
        if (!r.ok()) co_return fail(r.status);
        done += chunk;
      }
    } else {
      Batch b;
      if (skip) b.write(data + off, &kWrapWord, 8);
      b.write(data + at, entry.data(), static_cast<uint32_t>(len));
      if (Status s = co_await exec(b, n); !ok(s)) co_return fail(s);
    }
    ns.log_head += need;
    if (undo) ns.log_tail = ns.log_head;
  }
  co_return TxnStatus::kOk;
}

Task<Status> Txn::State::reclaim(NodeId n, bool wait) {
  NodeState& ns = nodes[n];
  const ReclaimRequest r{store.log_ring(n, t.coordinator_).offset(), ns.log_head};
  std::span<const std::byte> req(reinterpret_cast<const std::byte*>(&r), sizeof r);
  ++t.counters_.reclaims;
  ns.reclaim_sent = ns.log_head;
  if (!wait) co_return w.send(n, e.impl().ids[kReclaimIx], req);
  const Result<uint32_t> res = co_await call(n, kReclaimIx, req, reply);
  if (!res.ok()) co_return res.status;
  if (res.value < 8) co_return Status::kBadLength;
  ns.log_tail = std::max(ns.log_tail, get<uint64_t>(reply, 0));
  co_return Status::kOk;
}

Task<Status> Txn::State::after_commit() {
  if (d.undo_log || store.replicas() <= 1) co_return Status::kOk;
  if (++since_reclaim < d.reclaim_every) co_return Status::kOk;
  since_reclaim = 0;
  // Off the critical path (§5.4): one-way messages.
  for (NodeId n = 0; n < store.nodes(); ++n)
    if (nodes[n].log_head > nodes[n].reclaim_sent)
      if (Status s = co_await reclaim(n, false); !ok(s)) co_return s;
  co_return Status::kOk;
}

Task<Status> Txn::State::drain() {
  Status first = Status::kOk;
  if (!d.undo_log && store.replicas() > 1) {
    for (NodeId n = 0; n < store.nodes(); ++n) {
      for (uint32_t a = 0; nodes[n].log_tail < nodes[n].log_head; ++a) {
        if (a == kReclaimTries) {
          if (ok(first)) first = Status::kRetryExhausted;
          break;
        }
        if (a > 0) co_await w.sleep(kReclaimBackoffNs);
        if (Status s = co_await reclaim(n, true); !ok(s)) {
          if (ok(first)) first = s;
          break;
        }
      }
    }
  }
  // Complete unsignaled commits: a signaled request after them on each QP.
  for (NodeId n = 0; n < store.nodes(); ++n) {
    if (nodes[n].unsignaled == 0) continue;
    uint64_t sink = 0;
    Batch b;
    b.read(&sink, store.log_ring(n, t.coordinator_), 8);
    if (Status s = co_await exec(b, n); !ok(s) && ok(first)) first = s;
  }
  co_return first;
}

}  // namespace lw::txn
