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
  chunks.reserve(Worker::kMaxBatchesAwaited);
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

Task<Status> Txn::State::exec_chunks(bool together) {
  if (chunks.empty()) co_return Status::kOk;
  if (!together || chunks.size() == 1) {
    // One node after another, in node order.
    for (Chunk& c : chunks)
      if (Status s = co_await exec(c.b, c.node); !ok(s)) co_return s;
    co_return Status::kOk;
  }
  // Every node's batches out together, awaited once (DrTM+H §6.1's
  // outstanding requests across machines).
  std::array<Batch*, Worker::kMaxBatchesAwaited> all;
  LW_CHECK(chunks.size() <= all.size());
  for (size_t k = 0; k < chunks.size(); ++k) all[k] = &chunks[k].b;
  const std::span<Batch* const> batches(all.data(), chunks.size());
  const Status s = ctx ? co_await ctx->execute_all(batches) : co_await w.execute_all(batches);
  for (const Chunk& c : chunks) {
    nodes[c.node].unsignaled = 0;
    nodes[c.node].buffer_busy = false;
  }
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
// locked at execution), then one RPC per node for the two-sided ones.
// Batches to different nodes go out together and are awaited once
// (exec_chunks: doorbell batching within a node, outstanding requests across
// nodes), and so do the RPCs (read_rpc); reads that lock go node by node.
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
    chunks.clear();
    for (NodeId n = 0; n < store.nodes(); ++n) {
      Chunk* c = nullptr;
      for (uint32_t i : left) {
        Rec& r = recs[i];
        if (r.node != n) continue;
        const TablePlacement& p = store.placement(n, r.table);
        if (probe >= p.max_probe) continue;
        const uint64_t bucket = (store.bucket_of(r.table, r.key, p.buckets) + probe) % p.buckets;
        if (c == nullptr || c->b.size() == Batch::kMax) c = &chunks.emplace_back(Chunk{n, {}, {}});
        c->b.read(r.bucket.data(), p.index + bucket * kBucketBytes, kBucketBytes);
      }
    }
    if (Status s = co_await exec_chunks(true); !ok(s)) co_return fail(s);
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
  chunks.clear();
  for (NodeId n = 0; n < store.nodes(); ++n) {
    Chunk* c = nullptr;
    for (uint32_t i : ix) {
      Rec& r = recs[i];
      if (r.node != n) continue;
      if (c == nullptr || c->b.size() + per > Batch::kMax) c = &chunks.emplace_back(Chunk{n, {}, {}});
      // CAS then READ on one QP: the READ sees the record after the CAS.
      if (lock) c->b.cas(r.addr + kLockOffset, 0, lw);
      c->b.read(r.image.data(), r.addr, r.bytes);
      c->recs.push_back(i);
    }
  }
  // Locks are taken node by node, in node order: CASes to every node at once
  // let conflicting transactions abort each other in step (FORD's TPC-C
  // livelocked under `latchwork check` so).
  if (Status s = co_await exec_chunks(!lock); !ok(s)) co_return fail(s);
  if (lock)
    for (const Chunk& c : chunks)
      for (uint32_t k = 0; k < c.recs.size(); ++k) {
        Rec& r = recs[c.recs[k]];
        r.locked = c.b[2 * k].old_value == 0;
        r.locked_at_fetch = r.locked;
        r.locked_by_rpc = false;
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

// In rounds of at most one GET request per node, each holding as many of the
// node's records as the request and the reply hold. A round's calls go out
// together and are awaited once (call_all: FaSST's and DrTM+H's requests to
// several machines at once), unless they take locks: those go node by node,
// in node order, as read_one_sided's do.
Task<TxnStatus> Txn::State::read_rpc(const RecIndexes& ix, bool lock) {
  bool abort = false;
  rpc_parts.resize(store.nodes());  // kept: their reply buffers are reused
  for (NodeId n = 0; n < store.nodes(); ++n) {
    RpcPart& part = rpc_parts[n];
    part.node = n;
    part.in.clear();
    part.first = part.end = 0;
    for (uint32_t i : ix)
      if (recs[i].node == n) part.in.push_back(i);
  }
  // Bounded: every round takes at least one record of every part it serves.
  for (bool more = true; more;) {
    more = false;
    std::array<RpcCall*, Worker::kMaxCallsAwaited> calls;
    uint32_t k = 0;
    for (RpcPart& part : rpc_parts) {
      part.first = part.end;
      if (part.first == part.in.size()) continue;  // done, or no records on the node
      std::vector<std::byte>& req = bufs[part.node];
      req.clear();
      put(req, Header{0, t.coordinator_});
      size_t reply_bytes = 0;
      for (; part.end < part.in.size(); ++part.end) {
        const Rec& r = recs[part.in[part.end]];
        if (req.size() + sizeof(GetItem) > kMaxRpcBytes || reply_bytes + sizeof(GetReply) + r.bytes > kMaxRpcBytes)
          break;
        put(req, GetItem{r.table, static_cast<uint16_t>(lock ? 1 : 0), 0, r.key});
        reply_bytes += sizeof(GetReply) + r.bytes;
      }
      LW_CHECK_MSG(part.end > part.first, "a record larger than an RPC reply");
      more = more || part.end < part.in.size();
      const uint32_t count = static_cast<uint32_t>(part.end - part.first);
      std::memcpy(req.data(), &count, 4);
      if (part.reply.size() < kMaxRpcBytes) part.reply.resize(kMaxRpcBytes);
      part.call = RpcCall{.node = part.node, .handler = e.impl().ids[kGetIx], .request = req, .reply = part.reply};
      LW_CHECK(k < calls.size());
      calls[k++] = &part.call;
    }
    if (k == 0) break;
    if (lock || k == 1) {
      for (uint32_t c = 0; c < k; ++c) {
        RpcCall& call = *calls[c];
        const Result<uint32_t> res = co_await this->call(call.node, kGetIx, call.request, call.reply);
        call.status = res.status;
        call.reply_bytes = res.value;
      }
    } else {
      LW_CHECK_MSG(e.impl().have_handlers, "a two-sided phase without registered handlers");
      for (uint32_t c = 0; c < k; ++c) w.compute(CpuWork::kCopyByte, calls[c]->request.size());  // built
      co_await w.call_all(std::span<RpcCall* const>(calls.data(), k));
      for (uint32_t c = 0; c < k; ++c)
        if (calls[c]->status == Status::kOk) w.compute(CpuWork::kCopyByte, calls[c]->reply_bytes);  // taken apart
    }
    for (RpcPart& part : rpc_parts) {
      if (part.first == part.end) continue;
      if (TxnStatus st = take_gets(part, lock, &abort); st != TxnStatus::kOk) co_return st;
    }
  }
  if (abort) co_return aborted(Phase::kExecute);
  co_return TxnStatus::kOk;
}

// The reply to one GET request: records fetched (and locked), or why not.
TxnStatus Txn::State::take_gets(RpcPart& part, bool lock, bool* abort) {
  if (part.call.status != Status::kOk) return fail(part.call.status);
  const uint32_t got = part.call.reply_bytes;
  const std::span<const std::byte> reply = part.reply;
  size_t p = 0;
  for (size_t k = part.first; k < part.end; ++k) {
    Rec& r = recs[part.in[k]];
    if (p + sizeof(GetReply) > got) return fail(Status::kBadLength);
    const GetReply g = get<GetReply>(reply, p);
    p += sizeof(GetReply);
    if (g.code == kMissing) return fail(Status::kOutOfBounds);
    if (g.code == kTorn) ++t.counters_.torn_reads;
    if (g.code != kOk) {
      *abort = true;  // locked or torn: abort once every locked record is known
      continue;
    }
    if (g.bytes != r.bytes || p + g.bytes > got) return fail(Status::kBadLength);
    std::memcpy(r.image.data(), reply.data() + p, g.bytes);
    p += g.bytes;
    r.addr = RemoteAddr::from_raw(g.addr);
    if (cache != nullptr) cache->fill(r.table, r.key, r.addr);
    if (lock) {
      r.locked = true;
      r.locked_by_rpc = true;
      r.locked_at_fetch = true;
    }
    if (TxnStatus st = accept(r); st != TxnStatus::kOk) *abort = true;
  }
  return TxnStatus::kOk;
}

}  // namespace lw::txn
