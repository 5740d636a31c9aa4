// Validation (lock the write set, re-check its versions, validate the read
// set), Logging and Commit (DrTM+H §5.2-§5.5), each with its phase's
// primitive; read-only transactions validate only (R+V).
#include <algorithm>
#include <cstring>

#include "latchwork/base/assert.h"
#include "txn_state.h"

namespace lw::txn {

using namespace wire;

namespace {
constexpr uint64_t kZero = 0;  // the source of unlock WRITEs: never changes
}

Task<TxnStatus> Txn::commit() {
  State& s = *s_;
  if (status_ != TxnStatus::kOk) co_return status_;
  LW_CHECK_MSG(s.fetched_upto == s.recs.size(), "commit() with reads declared but not fetched");
  RecIndexes ws, rs;
  for (uint32_t i = 0; i < s.recs.size(); ++i) (s.recs[i].for_update ? ws : rs).push_back(i);
  const bool ro = ws.empty();
  auto phase = [&](Phase p) -> Nanos& { return s.phase[static_cast<size_t>(p)]; };
  TxnStatus st = TxnStatus::kOk;
  Nanos t0 = w_.now();
  if (ro) {
    // §5.5: a single-record read-only transaction needs no validation.
    if (s.recs.size() > 1 && s.d.broken != Broken::kNoReadValidation)
      st = co_await s.validate_reads(rs, s.read_only ? s.d.phases.ro_validate : s.d.phases.validate);
    phase(Phase::kValidate) += w_.now() - t0;
  } else {
    st = co_await s.lock_writes(ws);
    if (st == TxnStatus::kOk && s.d.broken != Broken::kNoReadValidation)
      st = co_await s.validate_reads(rs, s.d.phases.validate);
    phase(Phase::kValidate) += w_.now() - t0;
    if (st == TxnStatus::kOk) {
      t0 = w_.now();
      st = co_await s.log(ws);
      phase(Phase::kLog) += w_.now() - t0;
    }
    if (st == TxnStatus::kOk) {
      t0 = w_.now();
      st = co_await s.write_back(ws);
      phase(Phase::kCommit) += w_.now() - t0;
    }
  }
  if (st != TxnStatus::kOk) {
    co_await s.release_locks();
    if (st == TxnStatus::kAborted) {
      ++counters_.aborted;
      ++counters_.aborts_by_phase[static_cast<size_t>(abort_phase_)];
      s.retrying = true;
    } else {
      ++counters_.failed;
    }
    s.close_op(false);
    co_return st;
  }
  const Nanos end = w_.now();
  ++counters_.committed;
  for (size_t p = 0; p < static_cast<size_t>(Phase::kCount); ++p) counters_.phase_ns[p] += s.phase[p];
  s.close_op(true);
  if (e_.options().on_commit) {
    CommitRecord c;
    c.id = (uint64_t{coordinator_} << 32) | (s.seq & 0xffffffffu);
    c.coordinator = coordinator_;
    c.who = w_.placement();
    c.type = s.type;
    c.read_only = s.read_only;
    c.start = s.first_start;
    c.end = end;
    for (const Rec& r : s.recs) {
      c.reads.push_back({r.table, r.key, r.version});
      if (r.for_update)
        c.writes.push_back({r.table, r.key, r.version + 1, payload_hash(r.update)});
    }
    e_.options().on_commit(c);
  }
  ++s.seq;
  if (!ro)
    if (Status e = co_await s.after_commit(); !ok(e)) {
      error_ = e;  // the commit stands; a reclaim failed (reported, not retried)
    }
  co_return TxnStatus::kOk;
}

// Locks every write-set record not locked at Execution and reads its version
// in the same round trip (§5.2): one-sided, per node one batch of
// [CAS lock, READ version] per record; two-sided, one RPC per node.
Task<TxnStatus> Txn::State::lock_writes(const RecIndexes& ws) {
  const uint64_t lw = lock_word(t.coordinator_);
  bool failed = false;
  for (NodeId n = 0; n < store.nodes() && !failed; ++n) {
    RecIndexes one, two;
    for (uint32_t i : ws) {
      const Rec& r = recs[i];
      if (r.node != n || r.locked) continue;
      (lock_prim(r) == Primitive::kTwoSided ? two : one).push_back(i);
    }
    for (size_t at = 0; at < one.size() && !failed;) {
      Batch b;
      const size_t first = at;
      for (; at < one.size() && b.size() + 2 <= Batch::kMax; ++at) {
        Rec& r = recs[one[at]];
        b.cas(r.addr + kLockOffset, 0, lw);
        b.read(&r.lock_version, r.addr + kVersionOffset, 8);
      }
      if (Status s = co_await exec(b, n); !ok(s)) co_return fail(s);
      for (size_t k = first; k < at; ++k) {
        Rec& r = recs[one[k]];
        r.locked = b[static_cast<uint32_t>((k - first) * 2)].old_value == 0;
        r.locked_by_rpc = false;
        failed = failed || !r.locked;
      }
    }
    for (size_t at = 0; at < two.size() && !failed;) {
      std::vector<std::byte>& req = bufs[n];
      req.clear();
      put(req, Header{0, t.coordinator_});
      const size_t first = at;
      for (; at < two.size() && req.size() + 8 <= kMaxRpcBytes && (at - first + 2) * 8 <= kMaxRpcBytes; ++at)
        put(req, recs[two[at]].addr.offset());
      const uint32_t count = static_cast<uint32_t>(at - first);
      std::memcpy(req.data(), &count, 4);
      const Result<uint32_t> res = co_await call(n, kLockIx, req, reply);
      if (!res.ok()) co_return fail(res.status);
      if (res.value < sizeof(LockReply) + uint64_t{count} * 8) co_return fail(Status::kBadLength);
      const LockReply lr = get<LockReply>(reply, 0);
      if (lr.locked < count) {
        failed = true;  // the handler released this request's locks
        break;
      }
      for (size_t k = first; k < at; ++k) {
        Rec& r = recs[two[k]];
        r.locked = true;
        r.locked_by_rpc = true;
        r.lock_version = get<uint64_t>(reply, sizeof(LockReply) + (k - first) * 8);
      }
    }
  }
  if (failed) co_return aborted(Phase::kValidate);
  // A locked record cannot change: its version now must be the one read.
  if (d.broken != Broken::kNoWriteRecheck)
    for (uint32_t i : ws)
      if (recs[i].lock_version != recs[i].version) co_return aborted(Phase::kValidate);
  co_return TxnStatus::kOk;
}

// The read set (records read, not written) unchanged and unlocked.
Task<TxnStatus> Txn::State::validate_reads(const RecIndexes& rs, Primitive p) {
  for (NodeId n = 0; n < store.nodes(); ++n) {
    RecIndexes in;
    for (uint32_t i : rs)
      if (recs[i].node == n) in.push_back(i);
    for (size_t at = 0; at < in.size();) {
      const size_t first = at;
      if (p == Primitive::kTwoSided) {
        std::vector<std::byte>& req = bufs[n];
        req.clear();
        put(req, Header{0, t.coordinator_});
        for (; at < in.size() && req.size() + 8 <= kMaxRpcBytes && (at - first + 1) * sizeof(RecordHeader) <= kMaxRpcBytes;
             ++at)
          put(req, recs[in[at]].addr.offset());
        const uint32_t count = static_cast<uint32_t>(at - first);
        std::memcpy(req.data(), &count, 4);
        const Result<uint32_t> res = co_await call(n, kValidateIx, req, reply);
        if (!res.ok()) co_return fail(res.status);
        if (res.value < count * sizeof(RecordHeader)) co_return fail(Status::kBadLength);
        for (size_t k = first; k < at; ++k)
          recs[in[k]].hdr = get<RecordHeader>(reply, (k - first) * sizeof(RecordHeader));
      } else {
        Batch b;
        for (; at < in.size() && b.size() < Batch::kMax; ++at) {
          Rec& r = recs[in[at]];
          b.read(&r.hdr, r.addr, sizeof(RecordHeader));
        }
        if (Status s = co_await exec(b, n); !ok(s)) co_return fail(s);
      }
      for (size_t k = first; k < at; ++k) {
        const Rec& r = recs[in[k]];
        if (r.hdr.lock != 0 || r.hdr.version != r.version) co_return aborted(Phase::kValidate);
      }
    }
  }
  co_return TxnStatus::kOk;
}

// Frees a lock this attempt holds: a WRITE of 0, or CAS(lock word -> 0)
// where a failed CAS may write back (Engine::Impl::release_by_cas).
void Txn::State::add_unlock(Batch& b, const Rec& r, uint64_t lw) const {
  if (e.impl().release_by_cas) {
    b.cas(r.addr + kLockOffset, lw, 0);
  } else {
    b.write(r.addr + kLockOffset, &kZero, 8);
  }
}

// Writes every new image and releases its lock (§5.3): one-sided, per node
// batches of [WRITE image from offset 8, WRITE 0 to the lock] (in order on
// one QP), posted unsignaled with passive ACK when the source can stay put;
// two-sided, a commit RPC per node (a one-way message with passive ACK).
// FORD writes the image to every backup first (no redo log).
Task<TxnStatus> Txn::State::write_back(const RecIndexes& ws) {
  for (uint32_t i : ws) {
    Rec& r = recs[i];
    const uint64_t v = r.version + 1;
    encode_record(r.image, v, r.update);
    w.compute(CpuWork::kCopyByte, r.bytes);
  }
  if (d.undo_log) {
    for (uint32_t rep = 1; rep < store.replicas(); ++rep)
      for (NodeId n = 0; n < store.nodes(); ++n) {
        Batch b;
        for (uint32_t i : ws) {
          Rec& r = recs[i];
          if (store.node_of(r.table, r.key, rep) != n) continue;
          // A backup's address: the same record index is not known to the
          // coordinator; the store's host directory is the layout both agree on.
          b.write(store.address(r.table, r.key, rep) + 8, r.image.data() + 8, r.bytes - 8);
          if (b.size() == Batch::kMax) {
            if (Status s = co_await exec(b, n); !ok(s)) co_return fail(s);
            b.clear();
          }
        }
        if (!b.empty())
          if (Status s = co_await exec(b, n); !ok(s)) co_return fail(s);
      }
  }
  const bool by_cas = e.impl().release_by_cas;
  const uint64_t lw = lock_word(t.coordinator_);
  for (NodeId n = 0; n < store.nodes(); ++n) {
    RecIndexes in;
    for (uint32_t i : ws)
      if (recs[i].node == n) in.push_back(i);
    if (in.empty()) continue;
    if (d.phases.commit == Primitive::kTwoSided) {
      for (size_t at = 0; at < in.size();) {
        std::vector<std::byte>& req = bufs[n];
        req.clear();
        put(req, Header{0, t.coordinator_});
        const size_t first = at;
        for (; at < in.size(); ++at) {
          const Rec& r = recs[in[at]];
          if (req.size() + sizeof(CommitItem) + pad8(r.payload_bytes) > kMaxRpcBytes) break;
          put(req, CommitItem{r.addr.offset(), r.version + 1, r.payload_bytes, 0});
          put_bytes(req, r.update, pad8(r.payload_bytes));
        }
        LW_CHECK(at > first);
        const uint32_t count = static_cast<uint32_t>(at - first);
        std::memcpy(req.data(), &count, 4);
        if (d.passive_ack) {
          if (Status s = w.send(n, e.impl().ids[kCommitIx], req); !ok(s)) co_return fail(s);
        } else {
          const Result<uint32_t> res = co_await call(n, kCommitIx, req, reply);
          if (!res.ok()) co_return fail(res.status);
        }
        for (size_t k = first; k < at; ++k) recs[in[k]].locked = false;
      }
      continue;
    }
    // One-sided. Passive ACK posts unsignaled from post_buffer(n), which must
    // stay unchanged until a later signaled request to n completes.
    uint64_t total = 0;
    for (uint32_t i : in) total += recs[i].bytes - 8;
    const bool passive = d.passive_ack && !by_cas && !nodes[n].buffer_busy && 2 * in.size() <= Batch::kMax &&
                         nodes[n].unsignaled + 2 * in.size() <= Batch::kMax;
    if (passive) {
      std::span<std::byte> buf = w.post_buffer(n, total);
      Batch b;
      uint64_t at = 0;
      for (uint32_t i : in) {
        Rec& r = recs[i];
        std::memcpy(buf.data() + at, r.image.data() + 8, r.bytes - 8);
        w.compute(CpuWork::kCopyByte, r.bytes - 8);
        b.write(r.addr + 8, buf.data() + at, r.bytes - 8);
        add_unlock(b, r, lw);  // a WRITE of 0: passive only where no CAS is needed
        at += r.bytes - 8;
      }
      nodes[n].buffer_busy = true;
      nodes[n].unsignaled += b.size();
      if (Status s = w.post(b); !ok(s)) co_return fail(s);
    } else {
      for (size_t at = 0; at < in.size();) {
        Batch b;
        for (; at < in.size() && b.size() + 2 <= Batch::kMax; ++at) {
          Rec& r = recs[in[at]];
          b.write(r.addr + 8, r.image.data() + 8, r.bytes - 8);
          add_unlock(b, r, lw);  // after the image: a WRITE or atomic waits for earlier WRITEs
        }
        if (Status s = co_await exec(b, n); !ok(s)) co_return fail(s);
      }
    }
    for (uint32_t i : in) recs[i].locked = false;
  }
  co_return TxnStatus::kOk;
}

// Releases every lock this attempt holds (abort paths): a one-sided WRITE of
// 0, or an unlock RPC for locks taken with CPU CAS.
Task<void> Txn::State::release_locks() {
  const uint64_t lw = lock_word(t.coordinator_);
  for (NodeId n = 0; n < store.nodes(); ++n) {
    RecIndexes one, two;
    for (uint32_t i = 0; i < recs.size(); ++i) {
      const Rec& r = recs[i];
      if (r.locked && r.node == n) (r.locked_by_rpc ? two : one).push_back(i);
    }
    for (size_t at = 0; at < one.size();) {
      Batch b;
      for (; at < one.size() && b.size() < Batch::kMax; ++at) add_unlock(b, recs[one[at]], lw);
      // A CAS's result lands in its work request: await it.
      const Status s = e.impl().release_by_cas ? co_await exec(b, n) : co_await post_or_exec(b, n);
      if (!ok(s) && t.error_ == Status::kOk) t.error_ = s;
    }
    for (size_t at = 0; at < two.size();) {
      std::vector<std::byte>& req = bufs[n];
      req.clear();
      put(req, Header{0, t.coordinator_});
      const size_t first = at;
      for (; at < two.size() && req.size() + 8 <= kMaxRpcBytes; ++at) put(req, recs[two[at]].addr.offset());
      const uint32_t count = static_cast<uint32_t>(at - first);
      std::memcpy(req.data(), &count, 4);
      Status s;
      if (d.passive_ack) {
        s = w.send(n, e.impl().ids[kUnlockIx], req);
      } else {
        const Result<uint32_t> res = co_await call(n, kUnlockIx, req, reply);
        s = res.status;
      }
      if (!ok(s) && t.error_ == Status::kOk) t.error_ = s;
    }
    for (uint32_t i : one) recs[i].locked = false;
    for (uint32_t i : two) recs[i].locked = false;
  }
}

}  // namespace lw::txn
