// The partitioned store's layout (store.h): per node and table a bucket index
// and a record heap holding every copy the node keeps, per node one log area.
#include "latchwork/txn/store.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "latchwork/base/assert.h"

namespace lw::txn {

namespace {

uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// Allocates `bytes` on `node`: named when the store is shared across processes.
RemoteAddr alloc(Backend& b, const StoreOptions& o, NodeId node, const std::string& what, uint64_t bytes) {
  bytes = std::max<uint64_t>(bytes, kCacheLine);
  if (o.shared_name.empty()) return b.allocate(node, bytes, kCacheLine);
  return b.allocate_shared(node, o.shared_name + "/txn/" + what, bytes);
}

// Host writes are bounded like any transfer (kMaxTransferBytes).
void write_chunked(Backend& b, RemoteAddr at, const std::vector<std::byte>& image) {
  constexpr uint64_t kChunk = 4u << 20;
  for (uint64_t done = 0; done < image.size(); done += kChunk)
    b.host_write(at + done, image.data() + done, std::min<uint64_t>(kChunk, image.size() - done));
}

}  // namespace

std::string StoreOptions::validate() const {
  std::ostringstream e;
  if (nodes == 0 || nodes > 1024) e << "store nodes must be in [1, 1024]";
  else if (replicas == 0 || replicas > 4) e << "replicas must be in [1, 4]";
  else if (coordinators == 0 || coordinators > (1u << 20)) e << "coordinators must be in [1, 2^20]";
  else if (log_ring_bytes < 2048 || log_ring_bytes % kCacheLine != 0 || log_ring_bytes > (64u << 20))
    e << "log_ring_bytes must be a multiple of 64 in [2048, 64 MiB]";
  else if (!(index_load > 0 && index_load <= 1)) e << "index_load must be in (0, 1]";
  else if (max_probe == 0 || max_probe > 64) e << "max_probe must be in [1, 64]";
  return e.str();
}

void StoreLoader::add(TableId table, uint64_t key, std::span<const std::byte> payload) {
  LW_CHECK_MSG(payload.size() <= kMaxPayloadBytes, "a record payload longer than kMaxPayloadBytes");
  rows_.push_back({table, key, blob_.size(), static_cast<uint32_t>(payload.size())});
  blob_.insert(blob_.end(), payload.begin(), payload.end());
}

size_t StoreLoader::records() const { return rows_.size(); }

uint64_t Store::bucket_of(TableId t, uint64_t key, uint64_t buckets) const {
  LW_CHECK(buckets > 0);
  return mix64((uint64_t{t} << 56) ^ key ^ 0x5bd1e995ull) % buckets;
}

uint64_t Store::find_in_bucket(std::span<const std::byte, kBucketBytes> bucket, uint64_t key) {
  for (uint32_t s = 0; s < kBucketSlots; ++s) {
    uint64_t k, off;
    std::memcpy(&k, bucket.data() + s * 16, 8);
    std::memcpy(&off, bucket.data() + s * 16 + 8, 8);
    if (k == key + 1) return off;
  }
  return 0;
}

std::unique_ptr<Store> Store::build(Backend& b, std::vector<TableSpec> tables, HomeFn home, const StoreLoader& loader,
                                    const StoreOptions& o, std::string* error) {
  auto fail = [&](const std::string& m) -> std::unique_ptr<Store> {
    if (error) *error = m;
    return nullptr;
  };
  if (std::string e = o.validate(); !e.empty()) return fail(e);
  if (tables.empty() || tables.size() > kMaxTables) return fail("a store needs 1 to 16 tables");
  if (o.nodes > b.config().memory_nodes) return fail("the store wants more nodes than the backend's memory nodes");
  for (const TableSpec& t : tables)
    if (t.payload_bytes == 0 || t.payload_bytes > kMaxPayloadBytes)
      return fail("table " + t.name + ": payload_bytes must be in [1, " + std::to_string(kMaxPayloadBytes) + "]");
  if (!home) return fail("no home function");

  std::unique_ptr<Store> s(new Store(b, o));
  s->replicas_ = std::min(o.replicas, o.nodes);
  s->tables_ = std::move(tables);
  s->home_ = std::move(home);
  const uint32_t nt = static_cast<uint32_t>(s->tables_.size());
  s->placement_.assign(o.nodes, std::vector<TablePlacement>(nt));
  s->keys_.assign(nt, {});
  s->dir_.assign(nt, {});

  // Assign each copy its index in its node's heap (load order); row_dir
  // keeps each row's entry in load order for the images below.
  std::vector<std::vector<uint64_t>> count(o.nodes, std::vector<uint64_t>(nt, 0));
  std::vector<DirEntry> row_dir;
  row_dir.reserve(loader.rows_.size());
  for (const StoreLoader::Row& r : loader.rows_) {
    if (r.table >= nt) return fail("a record of table " + std::to_string(r.table) + " which does not exist");
    // An index slot holds key + 1 (0 marks a free slot).
    if (r.key == ~uint64_t{0}) return fail("key 2^64-1 is reserved (an index slot stores key + 1)");
    if (r.bytes > s->tables_[r.table].payload_bytes)
      return fail("a payload longer than table " + s->tables_[r.table].name + "'s payload_bytes");
    const NodeId primary = s->home_(r.table, r.key, o.nodes);
    if (primary >= o.nodes) return fail("home() named a node beyond the store's nodes");
    DirEntry d{r.key, {0, 0, 0, 0}};
    for (uint32_t rep = 0; rep < s->replicas_; ++rep) {
      const NodeId n = static_cast<NodeId>((primary + rep) % o.nodes);
      d.slot[rep] = static_cast<uint32_t>(count[n][r.table]++);
    }
    s->dir_[r.table].push_back(d);
    s->keys_[r.table].push_back(r.key);
    row_dir.push_back(d);
  }
  for (uint32_t t = 0; t < nt; ++t) {
    auto& d = s->dir_[t];
    std::sort(d.begin(), d.end(), [](const DirEntry& a, const DirEntry& c) { return a.key < c.key; });
    for (size_t i = 1; i < d.size(); ++i)
      if (d[i].key == d[i - 1].key)
        return fail("key " + std::to_string(d[i].key) + " of table " + s->tables_[t].name + " loaded twice");
  }

  // Every copy's place in its node's heap (the records themselves are
  // written once the heaps are allocated, below).
  struct Copy {
    uint64_t key;
    uint64_t slot;
  };
  std::vector<std::vector<std::vector<Copy>>> copies(o.nodes, std::vector<std::vector<Copy>>(nt));
  std::vector<std::vector<std::vector<std::byte>>> index(o.nodes, std::vector<std::vector<std::byte>>(nt));
  std::vector<NodeId> row_primary(loader.rows_.size());
  for (size_t row = 0; row < loader.rows_.size(); ++row) {
    const StoreLoader::Row& r = loader.rows_[row];
    row_primary[row] = s->home_(r.table, r.key, o.nodes);
    for (uint32_t rep = 0; rep < s->replicas_; ++rep) {
      const NodeId n = static_cast<NodeId>((row_primary[row] + rep) % o.nodes);
      copies[n][r.table].push_back({r.key, row_dir[row].slot[rep]});
    }
  }

  // Per node and table: an index whose probe chains fit max_probe (index_load
  // is an upper bound: a table whose chains do not fit gets more buckets),
  // then the allocations, in the same order in every process.
  for (uint32_t n = 0; n < o.nodes; ++n) {
    for (uint32_t t = 0; t < nt; ++t) {
      TablePlacement& p = s->placement_[n][t];
      p.record_count = count[n][t];
      const double per_bucket = kBucketSlots * o.index_load;
      uint64_t buckets = std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(p.record_count) / per_bucket) + 1);
      constexpr uint32_t kGrowths = 6;
      bool built = false;
      for (uint32_t g = 0; g <= kGrowths && !built; ++g, buckets *= 2) {
        p.buckets = buckets;
        p.max_probe = static_cast<uint32_t>(std::min<uint64_t>(o.max_probe, p.buckets));
        std::vector<std::byte>& idx = index[n][t];
        idx.assign(p.buckets * kBucketBytes, std::byte{0});
        // Slots fill in order and are never freed, so a bucket's first free
        // slot is its count of used ones: one byte per bucket to look at.
        std::vector<uint8_t> used(p.buckets, 0);
        built = true;
        for (const Copy& c : copies[n][t]) {
          uint64_t b = s->bucket_of(static_cast<TableId>(t), c.key, p.buckets);
          bool placed = false;
          for (uint32_t probe = 0; probe < p.max_probe; ++probe) {
            if (used[b] < kBucketSlots) {
              std::byte* slot = idx.data() + b * kBucketBytes + uint64_t{used[b]++} * 16;
              const uint64_t k1 = c.key + 1, rel = c.slot * s->record_bytes(t);
              std::memcpy(slot, &k1, 8);
              std::memcpy(slot + 8, &rel, 8);  // relative until the heap is placed
              placed = true;
              break;
            }
            if (++b == p.buckets) b = 0;  // probes wrap (max_probe <= buckets)
          }
          if (!placed) {
            built = false;
            break;
          }
        }
      }
      if (!built)
        return fail("table " + s->tables_[t].name + ": a probe chain longer than max_probe (" +
                    std::to_string(o.max_probe) + ") on node " + std::to_string(n) + ": raise max_probe");
      const std::string tag = "n" + std::to_string(n) + "/t" + std::to_string(t);
      p.index = alloc(b, o, static_cast<NodeId>(n), tag + "/index", p.buckets * kBucketBytes);
      p.records = alloc(b, o, static_cast<NodeId>(n), tag + "/records", p.record_count * s->record_bytes(t));
      if (p.index.is_null() || p.records.is_null())
        return fail("the store does not fit memory node " + std::to_string(n) + ": raise memory_node_bytes");
      // Slots now name node offsets.
      std::vector<std::byte>& idx = index[n][t];
      for (size_t at = 0; at < idx.size(); at += 16) {
        uint64_t k, rel;
        std::memcpy(&k, idx.data() + at, 8);
        if (k == 0) continue;
        std::memcpy(&rel, idx.data() + at + 8, 8);
        const uint64_t off = p.records.offset() + rel;
        std::memcpy(idx.data() + at + 8, &off, 8);
      }
    }
    s->logs_.push_back(alloc(b, o, static_cast<NodeId>(n), "n" + std::to_string(n) + "/logs",
                             uint64_t{o.coordinators} * o.log_ring_bytes));
    if (s->logs_.back().is_null())
      return fail("the log rings do not fit memory node " + std::to_string(n) + ": raise memory_node_bytes");
  }
  if (o.write_images) {
    for (uint32_t n = 0; n < o.nodes; ++n)
      for (uint32_t t = 0; t < nt; ++t) write_chunked(b, s->placement_[n][t].index, index[n][t]);
    s->write_records(loader, row_dir, row_primary);
  }
  return s;
}

// Slots were given out in load order per node and table, so walking the rows
// in load order fills each heap front to back: each heap is written through
// a small buffer, in chunks, instead of being staged whole in host memory
// (for the large stores, staging cost more than everything else in set-up).
void Store::write_records(const StoreLoader& loader, const std::vector<DirEntry>& row_dir,
                          const std::vector<NodeId>& row_primary) {
  constexpr uint64_t kChunkBytes = 256u << 10;
  struct Heap {
    uint64_t written = 0;  // records already written
    uint64_t buffered = 0;  // records in `buf` after those
    std::vector<std::byte> buf;
  };
  const uint32_t nt = static_cast<uint32_t>(tables_.size());
  std::vector<Heap> heaps(size_t{o_.nodes} * nt);
  auto flush = [&](NodeId n, uint32_t t) {
    Heap& h = heaps[size_t{n} * nt + t];
    const uint64_t rb = record_bytes(static_cast<TableId>(t));
    if (h.buffered == 0) return;
    b_.host_write(placement_[n][t].records + h.written * rb, h.buf.data(), h.buffered * rb);
    h.written += h.buffered;
    h.buffered = 0;
  };
  std::vector<std::byte> padded;  // one buffer for every row's payload
  for (size_t row = 0; row < loader.rows_.size(); ++row) {
    const StoreLoader::Row& r = loader.rows_[row];
    const uint64_t rb = record_bytes(r.table);
    padded.assign(payload_bytes(r.table), std::byte{0});
    std::copy_n(loader.blob_.data() + r.payload_at, r.bytes, padded.begin());
    const uint64_t per_chunk = std::max<uint64_t>(1, kChunkBytes / rb);
    for (uint32_t rep = 0; rep < replicas_; ++rep) {
      const NodeId n = static_cast<NodeId>((row_primary[row] + rep) % o_.nodes);
      Heap& h = heaps[size_t{n} * nt + r.table];
      LW_CHECK_MSG(row_dir[row].slot[rep] == h.written + h.buffered, "heap slots are given out in load order");
      if (h.buf.empty()) h.buf.resize(per_chunk * rb);
      encode_record(std::span<std::byte>(h.buf.data() + h.buffered * rb, rb), 0, padded);
      if (++h.buffered == per_chunk) flush(n, r.table);
    }
  }
  for (uint32_t n = 0; n < o_.nodes; ++n)
    for (uint32_t t = 0; t < nt; ++t) {
      flush(n, t);
      LW_CHECK(heaps[size_t{n} * nt + t].written == placement_[n][t].record_count);
    }
}

NodeId Store::node_of(TableId t, uint64_t key, uint32_t replica) const {
  LW_CHECK(replica < replicas_);
  return static_cast<NodeId>((home_(t, key, o_.nodes) + replica) % o_.nodes);
}

const TablePlacement& Store::placement(NodeId n, TableId t) const { return placement_.at(n).at(t); }

RemoteAddr Store::address(TableId t, uint64_t key, uint32_t replica) const {
  if (t >= dir_.size() || replica >= replicas_) return {};
  const auto& d = dir_[t];
  auto it = std::lower_bound(d.begin(), d.end(), key, [](const DirEntry& a, uint64_t k) { return a.key < k; });
  if (it == d.end() || it->key != key) return {};
  const NodeId n = node_of(t, key, replica);
  return placement(n, t).records + uint64_t{it->slot[replica]} * record_bytes(t);
}

bool Store::host_read(TableId t, uint64_t key, uint32_t replica, RecordView* view, std::span<std::byte> payload) const {
  const RemoteAddr a = address(t, key, replica);
  if (a.is_null()) return false;
  std::vector<std::byte> img(record_bytes(t));
  b_.host_read(a, img.data(), img.size());
  std::vector<std::byte> full(payload_bytes(t));
  const RecordView v = decode_record(img, full);
  if (view) *view = v;
  std::copy_n(full.begin(), std::min(full.size(), payload.size()), payload.begin());
  return true;
}

const std::vector<uint64_t>& Store::keys(TableId t) const { return keys_.at(t); }

RemoteAddr Store::log_ring(NodeId node, uint32_t coordinator) const {
  LW_CHECK(node < logs_.size() && coordinator < o_.coordinators);
  return logs_[node] + uint64_t{coordinator} * o_.log_ring_bytes;
}

}  // namespace lw::txn
