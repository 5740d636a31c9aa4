// The engine's RPC handlers: every two-sided phase, run by a memory node's
// CPU on its own memory (RpcServer). They depend only on the store's layout
// and the request bytes, so a `latchwork node` process can serve them.
//
// Their CPU time in the simulator: the dispatch every call pays
// (kRpcDispatchCpuNs, the echo handler's fitted cost), each memory access
// and the bytes it copies (charged by the simulator's RpcServer), and the
// measured work they do besides (RpcServer::compute: hashing a key, testing
// bucket slots, checking or stamping record lines; bench/cpu_work.cpp).
#include <algorithm>
#include <array>
#include <vector>

#include "latchwork/txn/txn.h"
#include "latchwork/verbs/rpc_builtin.h"
#include "wire.h"

namespace lw::txn {

namespace {

using namespace wire;

// Finds the record of (t, key) in this node's index with CPU reads: its node
// offset, or 0.
uint64_t find_record(RpcServer& srv, const Store& store, TableId t, uint64_t key) {
  if (t >= store.tables().size()) return 0;
  const TablePlacement& p = store.placement(srv.node(), t);
  const uint64_t first = store.bucket_of(t, key, p.buckets);
  srv.compute(CpuWork::kKeyHash, 1);
  for (uint32_t probe = 0; probe < p.max_probe; ++probe) {
    std::array<std::byte, kBucketBytes> bucket;
    if (!ok(srv.read(p.index.offset() + ((first + probe) % p.buckets) * kBucketBytes, bucket.data(), kBucketBytes)))
      return 0;
    srv.compute(CpuWork::kKeyScan, kBucketSlots);
    if (const uint64_t off = Store::find_in_bucket(bucket, key); off != 0) return off;
    bool full = true;
    for (uint32_t s = 0; s < kBucketSlots; ++s) full = full && get<uint64_t>(bucket, s * 16) != 0;
    if (!full) return 0;
  }
  return 0;
}

// Writes a record image (version in every line, payload) from offset 8 with
// CPU stores, leaving the lock word alone.
Status write_image(RpcServer& srv, uint64_t off, uint64_t version, std::span<const std::byte> payload) {
  std::array<std::byte, kMaxRecordLines * kRecordLine> img;
  const uint32_t bytes = record_bytes(static_cast<uint32_t>(payload.size()));
  encode_record(std::span<std::byte>(img.data(), bytes), version, payload);
  srv.compute(CpuWork::kFarmLine, bytes / kRecordLine);  // a version stamped in every line
  srv.compute(CpuWork::kCopyByte, payload.size());       // the payload into the image
  return srv.write(off + 8, img.data() + 8, bytes - 8);
}

Status h_get(const Store& store, RpcServer& srv, std::span<const std::byte> req, std::span<std::byte> rep,
             uint32_t* rep_bytes) {
  if (req.size() < sizeof(Header)) return Status::kBadLength;
  const Header h = get<Header>(req, 0);
  if (req.size() < sizeof(Header) + uint64_t{h.n} * sizeof(GetItem)) return Status::kBadLength;
  size_t out = 0;
  for (uint32_t i = 0; i < h.n; ++i) {
    const GetItem it = get<GetItem>(req, sizeof(Header) + i * sizeof(GetItem));
    GetReply r;
    const uint64_t off = find_record(srv, store, it.table, it.key);
    const uint32_t rb = off ? store.record_bytes(it.table) : 0;
    if (out + sizeof(GetReply) + rb > rep.size()) return Status::kBadLength;
    std::byte* img = rep.data() + out + sizeof(GetReply);
    if (off == 0) {
      r.code = kMissing;
    } else {
      r.addr = RemoteAddr(srv.node(), off).raw();
      r.code = kOk;
      if (it.lock) {
        const Result<uint64_t> c = srv.cas(off, 0, lock_word(h.coordinator));
        if (!c.ok()) return c.status;
        if (c.value != 0) r.code = kLocked;
      }
      if (r.code == kOk) {
        // A one-sided commit may be writing the lines: re-read a torn copy.
        r.code = kTorn;
        for (uint32_t a = 0; a < kMaxRecordRetries; ++a) {
          if (Status s = srv.read(off, img, rb); !ok(s)) return s;
          uint64_t lock;
          std::memcpy(&lock, img, 8);
          if (!it.lock && lock != 0) {
            r.code = kLocked;
            break;
          }
          srv.compute(CpuWork::kFarmLine, rb / kRecordLine);
          if (image_consistent(std::span<const std::byte>(img, rb), rb / kRecordLine)) {
            r.code = kOk;
            break;
          }
        }
      }
      if (r.code == kOk) r.bytes = rb;
    }
    std::memcpy(rep.data() + out, &r, sizeof r);
    out += sizeof(GetReply) + r.bytes;
  }
  *rep_bytes = static_cast<uint32_t>(out);
  return Status::kOk;
}

Status h_lock(RpcServer& srv, std::span<const std::byte> req, std::span<std::byte> rep, uint32_t* rep_bytes) {
  if (req.size() < sizeof(Header)) return Status::kBadLength;
  const Header h = get<Header>(req, 0);
  if (req.size() < sizeof(Header) + uint64_t{h.n} * 8 || sizeof(LockReply) + uint64_t{h.n} * 8 > rep.size())
    return Status::kBadLength;
  LockReply r{h.n, 0};
  for (uint32_t i = 0; i < h.n; ++i) {
    const uint64_t off = get<uint64_t>(req, sizeof(Header) + i * 8);
    const Result<uint64_t> c = srv.cas(off, 0, lock_word(h.coordinator));
    if (!c.ok()) return c.status;
    if (c.value != 0) {
      for (uint32_t j = 0; j < i; ++j) (void)srv.store(get<uint64_t>(req, sizeof(Header) + j * 8), 0);
      r.locked = i;
      break;
    }
    const Result<uint64_t> v = srv.load(off + kVersionOffset);
    if (!v.ok()) return v.status;
    std::memcpy(rep.data() + sizeof(LockReply) + i * 8, &v.value, 8);
  }
  std::memcpy(rep.data(), &r, sizeof r);
  *rep_bytes = static_cast<uint32_t>(sizeof(LockReply) + uint64_t{h.n} * 8);
  return Status::kOk;
}

Status h_validate(RpcServer& srv, std::span<const std::byte> req, std::span<std::byte> rep, uint32_t* rep_bytes) {
  if (req.size() < sizeof(Header)) return Status::kBadLength;
  const Header h = get<Header>(req, 0);
  if (req.size() < sizeof(Header) + uint64_t{h.n} * 8 || uint64_t{h.n} * sizeof(RecordHeader) > rep.size())
    return Status::kBadLength;
  for (uint32_t i = 0; i < h.n; ++i) {
    const uint64_t off = get<uint64_t>(req, sizeof(Header) + i * 8);
    RecordHeader rh;
    if (Status s = srv.read(off, &rh, sizeof rh); !ok(s)) return s;
    std::memcpy(rep.data() + i * sizeof rh, &rh, sizeof rh);
  }
  *rep_bytes = static_cast<uint32_t>(h.n * sizeof(RecordHeader));
  return Status::kOk;
}

Status h_unlock(RpcServer& srv, std::span<const std::byte> req, uint32_t* rep_bytes) {
  if (req.size() < sizeof(Header)) return Status::kBadLength;
  const Header h = get<Header>(req, 0);
  if (req.size() < sizeof(Header) + uint64_t{h.n} * 8) return Status::kBadLength;
  for (uint32_t i = 0; i < h.n; ++i) {
    const uint64_t off = get<uint64_t>(req, sizeof(Header) + i * 8);
    // Only our own lock: CAS it back.
    const Result<uint64_t> c = srv.cas(off, lock_word(h.coordinator), 0);
    if (!c.ok()) return c.status;
  }
  *rep_bytes = 0;
  return Status::kOk;
}

Status h_commit(RpcServer& srv, std::span<const std::byte> req, uint32_t* rep_bytes) {
  if (req.size() < sizeof(Header)) return Status::kBadLength;
  const Header h = get<Header>(req, 0);
  size_t at = sizeof(Header);
  for (uint32_t i = 0; i < h.n; ++i) {
    if (at + sizeof(CommitItem) > req.size()) return Status::kBadLength;
    const CommitItem it = get<CommitItem>(req, at);
    at += sizeof(CommitItem);
    if (it.payload_bytes > kMaxPayloadBytes || at + pad8(it.payload_bytes) > req.size()) return Status::kBadLength;
    if (Status s = write_image(srv, it.offset, it.version, req.subspan(at, it.payload_bytes)); !ok(s)) return s;
    if (Status s = srv.store(it.offset + kLockOffset, 0); !ok(s)) return s;
    at += pad8(it.payload_bytes);
  }
  *rep_bytes = 0;
  return Status::kOk;
}

Status h_log(RpcServer& srv, std::span<const std::byte> req, uint32_t* rep_bytes) {
  if (req.size() < 8) return Status::kBadLength;
  const uint64_t off = get<uint64_t>(req, 0);
  if (Status s = srv.write(off, req.data() + 8, req.size() - 8); !ok(s)) return s;
  *rep_bytes = 0;
  return Status::kOk;
}

// Applies one logged write to this node's backup copy if it is newer. The
// copy's lock word (unused on backups otherwise) serialises handlers on
// several cores applying to the same copy.
Status apply_item(const Store& store, RpcServer& srv, const LogItem& it, std::span<const std::byte> payload,
                  bool* applied) {
  *applied = false;
  const uint64_t off = find_record(srv, store, it.table, it.key);
  if (off == 0) return Status::kOk;  // not a copy this node holds: nothing to do
  constexpr uint32_t kSpins = 1000;
  for (uint32_t s = 0; s < kSpins; ++s) {
    const Result<uint64_t> c = srv.cas(off, 0, kLockedBit);
    if (!c.ok()) return c.status;
    if (c.value != 0) continue;
    const Result<uint64_t> v = srv.load(off + kVersionOffset);
    Status st = v.status;
    if (ok(st) && it.version > v.value) st = write_image(srv, off, it.version, payload);
    const Status u = srv.store(off, 0);
    *applied = ok(st);
    return ok(st) ? u : st;
  }
  return Status::kRetryExhausted;
}

Status h_reclaim(const Store& store, RpcServer& srv, std::span<const std::byte> req, std::span<std::byte> rep,
                 uint32_t* rep_bytes) {
  if (req.size() < sizeof(ReclaimRequest) || rep.size() < 8) return Status::kBadLength;
  const ReclaimRequest r = get<ReclaimRequest>(req, 0);
  const uint64_t cap = store.options().log_ring_bytes - kRingHeader;
  const Result<uint64_t> t0 = srv.load(r.ring);
  if (!t0.ok()) return t0.status;
  uint64_t pos = t0.value;
  std::vector<std::byte> entry;
  // Each step consumes at least 8 bytes: bounded by the ring's size.
  for (uint64_t step = 0; pos < r.to && step <= cap / 8; ++step) {
    const uint64_t at = pos % cap;
    const uint64_t data = r.ring + kRingHeader;
    const Result<uint64_t> len = srv.load(data + at);
    if (!len.ok()) return len.status;
    if (len.value == kWrap) {
      pos += cap - at;
      continue;
    }
    if (len.value < sizeof(EntryHead) + 8 || len.value % 8 != 0 || len.value > cap - at) break;  // not yet written
    entry.resize(len.value);
    if (Status s = srv.read(data + at, entry.data(), len.value); !ok(s)) return s;
    if (get<uint64_t>(entry, len.value - 8) != len.value) break;  // incomplete
    const EntryHead eh = get<EntryHead>(entry, 0);
    size_t p = sizeof(EntryHead);
    bool stop = false;
    for (uint32_t i = 0; i < eh.count && !stop; ++i) {
      if (p + sizeof(LogItem) > len.value - 8) return Status::kBadLength;
      const LogItem it = get<LogItem>(entry, p);
      p += sizeof(LogItem);
      if (it.payload_bytes > kMaxPayloadBytes || p + pad8(it.payload_bytes) > len.value - 8) return Status::kBadLength;
      bool applied = false;
      const Status s = apply_item(store, srv, it, std::span<const std::byte>(entry).subspan(p, it.payload_bytes),
                                  &applied);
      if (s == Status::kRetryExhausted) stop = true;  // a busy copy: the next reclaim redoes the entry
      else if (!ok(s)) return s;
      p += pad8(it.payload_bytes);
    }
    if (stop) break;
    pos += len.value;
  }
  // Publish the new tail (reclaims of one ring may run on two cores).
  uint64_t tail = t0.value;
  for (uint32_t a = 0; a < 64 && pos > tail; ++a) {
    const Result<uint64_t> c = srv.cas(r.ring, tail, pos);
    if (!c.ok()) return c.status;
    if (c.value == tail) tail = pos;
    else tail = c.value;
  }
  std::memcpy(rep.data(), &tail, 8);
  *rep_bytes = 8;
  return Status::kOk;
}

}  // namespace

std::vector<RpcHandler> Engine::handlers(Store& store) {
  const Store* s = &store;
  // Every handler's fixed cost is the dispatch; what each does beyond it is
  // charged as it runs (see the top of this file).
  constexpr Nanos kFixed = kRpcDispatchCpuNs;
  std::vector<RpcHandler> h(kHandlers);
  h[kGetIx] = {kGet, [s](RpcServer& v, auto req, auto rep, uint32_t* n) { return h_get(*s, v, req, rep, n); },
               kFixed};
  h[kLockIx] = {kLock, [](RpcServer& v, auto req, auto rep, uint32_t* n) { return h_lock(v, req, rep, n); },
                kFixed};
  h[kValidateIx] = {kValidate,
                    [](RpcServer& v, auto req, auto rep, uint32_t* n) { return h_validate(v, req, rep, n); }, kFixed};
  h[kUnlockIx] = {kUnlock, [](RpcServer& v, auto req, auto, uint32_t* n) { return h_unlock(v, req, n); }, kFixed};
  h[kCommitIx] = {kCommit, [](RpcServer& v, auto req, auto, uint32_t* n) { return h_commit(v, req, n); }, kFixed};
  h[kLogIx] = {kLog, [](RpcServer& v, auto req, auto, uint32_t* n) { return h_log(v, req, n); }, kFixed};
  h[kReclaimIx] = {kReclaim,
                   [s](RpcServer& v, auto req, auto rep, uint32_t* n) { return h_reclaim(*s, v, req, rep, n); },
                   kFixed};
  return h;
}

}  // namespace lw::txn
