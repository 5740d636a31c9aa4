// A coordinator's transactions: the read and write sets and the Execution
// phase (DrTM+H §5.1, §6.1): one-sided READs (bucket then record, or one
// READ on a location-cache hit), an RPC to the primary, or hybrid: a hit
// READs, a miss calls and refills the cache from the reply's address.
#include <algorithm>
#include <cstring>

#include "latchwork/base/assert.h"
#include "txn_state.h"

namespace lw::txn {

using namespace wire;

Txn::State::State(Txn& tx) : t(tx), e(tx.e_), w(tx.w_), store(tx.e_.store()), d(tx.e_.design()) {
  recs.reserve(kMaxTxnRecords);
  spare.reserve(3 * kMaxTxnRecords);
  nodes.resize(store.nodes());
  bufs.resize(store.nodes());
  reply.resize(kMaxRpcBytes);
  if (d.location_cache) cache = e.impl().caches.at(thread_index(store.backend().config(), w.placement())).get();
  if (e.runtime() != nullptr) ctx.emplace(*e.runtime(), w);
}

void Txn::State::recycle_records() {
  for (Rec& r : recs)
    for (std::vector<std::byte>* b : {&r.image, &r.value, &r.update})
      if (b->capacity() > 0 && spare.size() < 3 * kMaxTxnRecords) spare.push_back(std::move(*b));
  recs.clear();
}

std::vector<std::byte> Txn::State::zeroed(size_t bytes) {
  if (spare.empty()) return std::vector<std::byte>(bytes);
  std::vector<std::byte> b = std::move(spare.back());
  spare.pop_back();
  b.assign(bytes, std::byte{0});
  return b;
}

NodeId Txn::State::mixed_node() const {
  return w.placement().on_memory_node() ? static_cast<NodeId>(w.placement().node) : NodeId{0};
}

Primitive Txn::State::lock_prim(const Rec& r) const {
  if (d.broken == Broken::kMixedAtomics) return r.node == mixed_node() ? Primitive::kTwoSided : Primitive::kOneSided;
  return d.phases.lock;
}

Task<Status> Txn::State::exec(Batch& b, NodeId node) {
  Status s = ctx ? co_await ctx->execute(b) : co_await w.execute(b);
  // Completions come in posting order: every earlier unsignaled request on
  // this queue pair has executed.
  nodes[node].unsignaled = 0;
  nodes[node].buffer_busy = false;
  co_return s;
}

Task<Status> Txn::State::post_or_exec(Batch& b, NodeId node) {
  // A bound on unsignaled requests per queue pair per coroutine keeps the
  // queue depth ClusterConfig asks for.
  if (d.passive_ack && nodes[node].unsignaled + b.size() <= Batch::kMax) {
    nodes[node].unsignaled += b.size();
    co_return w.post(b);
  }
  co_return co_await exec(b, node);
}

Task<Result<uint32_t>> Txn::State::call(NodeId node, uint32_t handler, std::span<const std::byte> req,
                                        std::span<std::byte> rep) {
  LW_CHECK_MSG(e.impl().have_handlers, "a two-sided phase without registered handlers");
  w.compute(CpuWork::kCopyByte, req.size());  // the request built
  const Result<uint32_t> r = co_await w.call(node, e.impl().ids[handler], req, rep);
  if (r.ok()) w.compute(CpuWork::kCopyByte, r.value);  // the reply taken apart
  co_return r;
}

TxnStatus Txn::State::fail(Status s) {
  t.status_ = TxnStatus::kFailed;
  t.error_ = s;
  return TxnStatus::kFailed;
}

TxnStatus Txn::State::aborted(Phase p) {
  // Every aborted attempt is a retry for SMART's retry rate (t_max, c_max),
  // whichever phase found the conflict (FORD's fail at execution's CAS).
  if (ctx) ctx->note_retry();
  t.status_ = TxnStatus::kAborted;
  t.abort_phase_ = p;
  return TxnStatus::kAborted;
}

Task<void> Txn::State::open_op() {
  if (ctx && !op_open) {
    co_await ctx->begin_op(read_only ? 1 : 0);
    op_open = true;
  }
}

void Txn::State::close_op(bool ok) {
  if (ctx && op_open) {
    ctx->end_op(ok);
    op_open = false;
  }
}

Txn::Txn(Engine& engine, Worker& w, uint32_t coordinator)
    : e_(engine), w_(w), coordinator_(coordinator), s_(std::make_unique<State>(*this)) {
  LW_CHECK_MSG(coordinator < engine.store().options().coordinators,
               "a coordinator index beyond StoreOptions::coordinators (log rings)");
}
Txn::~Txn() = default;

void Txn::begin(bool read_only, uint32_t type) {
  State& s = *s_;
  for (const Rec& r : s.recs)
    LW_CHECK_MSG(!r.locked, "begin() while the previous attempt holds locks: commit() or abort() it");
  s.recycle_records();
  s.fetched_upto = 0;
  s.read_only = read_only;
  s.type = type;
  if (!s.retrying) s.first_start = w_.now();
  s.retrying = false;
  for (Nanos& p : s.phase) p = 0;
  status_ = TxnStatus::kOk;
  error_ = Status::kOk;
}

namespace {
RecordId declare(Txn::State& s, TableId t, uint64_t key, bool for_update) {
  for (RecordId i = 0; i < s.recs.size(); ++i)
    if (s.recs[i].table == t && s.recs[i].key == key) {
      s.recs[i].for_update = s.recs[i].for_update || for_update;
      return i;
    }
  LW_CHECK_MSG(s.recs.size() < kMaxTxnRecords, "more than kMaxTxnRecords records in one transaction");
  LW_CHECK_MSG(t < s.store.tables().size(), "a read of a table the store does not have");
  LW_CHECK_MSG(!for_update || !s.read_only, "read_for_update in a read-only transaction");
  s.w.compute(CpuWork::kTxnRecord, 1);  // the set searched, the buffers set up
  Rec& r = s.recs.emplace_back();
  r.table = t;
  r.key = key;
  r.for_update = for_update;
  r.node = s.store.node_of(t, key, 0);
  r.payload_bytes = s.store.payload_bytes(t);
  r.bytes = s.store.record_bytes(t);
  r.image = s.zeroed(r.bytes);
  r.value = s.zeroed(r.payload_bytes);
  r.update = s.zeroed(r.payload_bytes);
  return static_cast<RecordId>(s.recs.size() - 1);
}
}  // namespace

RecordId Txn::read(TableId t, uint64_t key) { return declare(*s_, t, key, false); }
RecordId Txn::read_for_update(TableId t, uint64_t key) { return declare(*s_, t, key, true); }

std::span<const std::byte> Txn::value(RecordId r) const {
  const Rec& x = s_->recs.at(r);
  LW_CHECK_MSG(x.fetched, "value() of a record not fetched yet");
  return x.value;
}

std::span<std::byte> Txn::update(RecordId r) {
  Rec& x = s_->recs.at(r);
  LW_CHECK_MSG(x.fetched && x.for_update, "update() of a record not fetched by read_for_update");
  return x.update;
}

Task<TxnStatus> Txn::fetch() {
  State& s = *s_;
  if (status_ != TxnStatus::kOk) co_return status_;
  co_await s.open_op();
  const Nanos t0 = w_.now();
  TxnStatus st = co_await s.fetch_pending();
  s.phase[static_cast<size_t>(Phase::kExecute)] += w_.now() - t0;
  if (st != TxnStatus::kOk) {
    co_await s.release_locks();
    if (st == TxnStatus::kAborted) {
      ++counters_.aborted;
      ++counters_.aborts_by_phase[static_cast<size_t>(Phase::kExecute)];
      s.retrying = true;
    } else {
      ++counters_.failed;
    }
    s.close_op(false);
  }
  co_return st;
}

Task<void> Txn::abort() {
  State& s = *s_;
  co_await s.release_locks();
  s.close_op(false);
  s.retrying = false;  // a user abort is not retried: status() stays as it was
}

Task<Status> Txn::drain() { co_return co_await s_->drain(); }

Task<TxnStatus> Txn::State::fetch_pending() {
  const size_t from = fetched_upto, to = recs.size();
  fetched_upto = to;
  RecIndexes ix;
  if (d.speculative_reads) {
    for (size_t i = from; i < to; ++i) ix.push_back(static_cast<uint32_t>(i));
    co_return co_await fetch_set(ix);
  }
  for (size_t i = from; i < to; ++i) {
    ix.clear();
    ix.push_back(static_cast<uint32_t>(i));
    if (TxnStatus st = co_await fetch_set(ix); st != TxnStatus::kOk) co_return st;
  }
  co_return TxnStatus::kOk;
}

// Issues the reads of `ix` together: bucket READs of cache misses per node,
// then one batch of record READs per node (CAS+READ where the write set is
// locked at execution), then one RPC per node for the two-sided ones. The
// Worker awaits one submission at a time per coroutine, so batches to
// different nodes go out one after the other (doorbell batching within a
// node, not outstanding requests across nodes).
Task<TxnStatus> Txn::State::fetch_set(const RecIndexes& ix) {
  const Primitive prim = read_only ? d.phases.ro_read : d.phases.execute;
  RecIndexes one_lock, one_plain, misses, rpc_lock, rpc_plain;
  for (uint32_t i : ix) {
    Rec& r = recs[i];
    if (r.fetched) continue;
    const bool lock = d.lock_at_execution && r.for_update && !read_only;
    if (prim == Primitive::kTwoSided) {
      (lock ? rpc_lock : rpc_plain).push_back(i);
      continue;
    }
    if (cache != nullptr) {
      r.addr = cache->find(r.table, r.key);
      if (!r.addr && e.options().warm_cache) r.addr = store.address(r.table, r.key, 0);
      ++(r.addr ? t.counters_.cache_hits : t.counters_.cache_misses);
    }
    if (!r.addr && prim == Primitive::kHybrid) {
      (lock ? rpc_lock : rpc_plain).push_back(i);
      continue;
    }
    if (!r.addr) misses.push_back(i);
    (lock ? one_lock : one_plain).push_back(i);
  }
  if (!misses.empty())
    if (TxnStatus st = co_await lookup(misses); st != TxnStatus::kOk) co_return st;
  if (!one_lock.empty())
    if (TxnStatus st = co_await read_one_sided(one_lock, true); st != TxnStatus::kOk) co_return st;
  if (!one_plain.empty())
    if (TxnStatus st = co_await read_one_sided(one_plain, false); st != TxnStatus::kOk) co_return st;
  if (!rpc_lock.empty())
    if (TxnStatus st = co_await read_rpc(rpc_lock, true); st != TxnStatus::kOk) co_return st;
  if (!rpc_plain.empty())
    if (TxnStatus st = co_await read_rpc(rpc_plain, false); st != TxnStatus::kOk) co_return st;
  co_return TxnStatus::kOk;
}

// Probes the bucket chains of `ix` with one-sided READs, probe by probe.
Task<TxnStatus> Txn::State::lookup(RecIndexes& ix) {
  RecIndexes left = ix;
  for (uint32_t probe = 0; probe < store.options().max_probe && !left.empty(); ++probe) {
    for (NodeId n = 0; n < store.nodes(); ++n) {
      Batch b;
      RecIndexes in;
      for (uint32_t i : left) {
        Rec& r = recs[i];
        if (r.node != n) continue;
        const TablePlacement& p = store.placement(n, r.table);
        if (probe >= p.max_probe) continue;
        const uint64_t bucket = (store.bucket_of(r.table, r.key, p.buckets) + probe) % p.buckets;
        b.read(r.bucket.data(), p.index + bucket * kBucketBytes, kBucketBytes);
        in.push_back(i);
        if (b.size() == Batch::kMax) {
          if (Status s = co_await exec(b, n); !ok(s)) co_return fail(s);
          b.clear();
        }
      }
      if (!b.empty())
        if (Status s = co_await exec(b, n); !ok(s)) co_return fail(s);
    }
    RecIndexes next;
    for (uint32_t i : left) {
      Rec& r = recs[i];
      const uint64_t off = Store::find_in_bucket(r.bucket, r.key);
      if (off != 0) {
        r.addr = RemoteAddr(r.node, off);
        if (cache != nullptr) cache->fill(r.table, r.key, r.addr);
        continue;
      }
      bool full = true;
      for (uint32_t s = 0; s < kBucketSlots; ++s) full = full && get<uint64_t>(r.bucket, s * 16) != 0;
      if (!full) co_return fail(Status::kOutOfBounds);  // the key is not in the store
      next.push_back(i);
    }
    left = next;
  }
  if (!left.empty()) co_return fail(Status::kOutOfBounds);
  co_return TxnStatus::kOk;
}

// Checks a fetched image: torn -> caller re-reads; locked by another -> abort.
TxnStatus Txn::State::accept(Rec& r) {
  const RecordView v = decode_record(r.image, r.value);
  if (v.lock != 0 && !r.locked) return aborted(Phase::kExecute);
  r.version = v.version;
  if (r.locked) r.lock_version = v.version;
  std::copy(r.value.begin(), r.value.end(), r.update.begin());
  w.compute(CpuWork::kCopyByte, 2 * uint64_t{r.payload_bytes});  // decoded into value, copied to update
  r.fetched = true;
  return TxnStatus::kOk;
}

Task<TxnStatus> Txn::State::read_one_sided(const RecIndexes& ix, bool lock) {
  const uint32_t per = lock ? 2 : 1;
  const uint64_t lw = lock_word(t.coordinator_);
  for (NodeId n = 0; n < store.nodes(); ++n) {
    RecIndexes in;
    for (uint32_t i : ix)
      if (recs[i].node == n) in.push_back(i);
    for (size_t at = 0; at < in.size();) {
      Batch b;
      const size_t first = at;
      for (; at < in.size() && b.size() + per <= Batch::kMax; ++at) {
        Rec& r = recs[in[at]];
        // CAS then READ on one QP: the READ sees the record after the CAS.
        if (lock) b.cas(r.addr + kLockOffset, 0, lw);
        b.read(r.image.data(), r.addr, r.bytes);
      }
      if (Status s = co_await exec(b, n); !ok(s)) co_return fail(s);
      if (lock)
        for (size_t k = first; k < at; ++k) {
          Rec& r = recs[in[k]];
          r.locked = b[static_cast<uint32_t>((k - first) * 2)].old_value == 0;
          r.locked_at_fetch = r.locked;
          r.locked_by_rpc = false;
        }
    }
  }
  for (uint32_t i : ix) {
    Rec& r = recs[i];
    if (lock && !r.locked) co_return aborted(Phase::kExecute);
    // A torn image is re-read alone, a bounded number of times.
    for (uint32_t a = 0; !wire::image_consistent(r.image, r.bytes / kRecordLine); ++a) {
      ++t.counters_.torn_reads;
      if (a == kMaxRecordRetries) co_return aborted(Phase::kExecute);
      Batch b;
      b.read(r.image.data(), r.addr, r.bytes);
      if (Status s = co_await exec(b, r.node); !ok(s)) co_return fail(s);
    }
    if (TxnStatus st = accept(r); st != TxnStatus::kOk) co_return st;
  }
  co_return TxnStatus::kOk;
}

Task<TxnStatus> Txn::State::read_rpc(const RecIndexes& ix, bool lock) {
  bool abort = false;
  for (NodeId n = 0; n < store.nodes(); ++n) {
    RecIndexes in;
    for (uint32_t i : ix)
      if (recs[i].node == n) in.push_back(i);
    for (size_t at = 0; at < in.size();) {
      // As many records as the request and the reply hold.
      std::vector<std::byte>& req = bufs[n];
      req.clear();
      put(req, Header{0, t.coordinator_});
      size_t reply_bytes = 0;
      const size_t first = at;
      for (; at < in.size(); ++at) {
        const Rec& r = recs[in[at]];
        if (req.size() + sizeof(GetItem) > kMaxRpcBytes || reply_bytes + sizeof(GetReply) + r.bytes > kMaxRpcBytes)
          break;
        put(req, GetItem{r.table, static_cast<uint16_t>(lock ? 1 : 0), 0, r.key});
        reply_bytes += sizeof(GetReply) + r.bytes;
      }
      const uint32_t count = static_cast<uint32_t>(at - first);
      std::memcpy(req.data(), &count, 4);
      const Result<uint32_t> res = co_await call(n, kGetIx, req, reply);
      if (!res.ok()) co_return fail(res.status);
      size_t p = 0;
      for (size_t k = first; k < at; ++k) {
        Rec& r = recs[in[k]];
        if (p + sizeof(GetReply) > res.value) co_return fail(Status::kBadLength);
        const GetReply g = get<GetReply>(reply, p);
        p += sizeof(GetReply);
        if (g.code == kMissing) co_return fail(Status::kOutOfBounds);
        if (g.code == kTorn) ++t.counters_.torn_reads;
        if (g.code != kOk) {
          abort = true;  // locked or torn: abort once every locked record is known
          continue;
        }
        if (g.bytes != r.bytes || p + g.bytes > res.value) co_return fail(Status::kBadLength);
        std::memcpy(r.image.data(), reply.data() + p, g.bytes);
        p += g.bytes;
        r.addr = RemoteAddr::from_raw(g.addr);
        if (cache != nullptr) cache->fill(r.table, r.key, r.addr);
        if (lock) {
          r.locked = true;
          r.locked_by_rpc = true;
          r.locked_at_fetch = true;
        }
        if (TxnStatus st = accept(r); st != TxnStatus::kOk) abort = true;
      }
    }
  }
  if (abort) co_return aborted(Phase::kExecute);
  co_return TxnStatus::kOk;
}

}  // namespace lw::txn
