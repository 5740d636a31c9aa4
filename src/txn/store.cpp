// The partitioned store's layout (store.h): per node and table a bucket index
// and a record heap holding every copy the node keeps, per node one log area.
#include "latchwork/txn/store.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <sstream>

#include "base/setup_store.h"
#include "latchwork/base/assert.h"
#include "latchwork/base/zero_bytes.h"
#include "latchwork/txn/store_plan.h"
#include "verbs/host_image.h"
#include "verbs/node_memory_reuse.h"

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

// Writes an image at `at`, leaving its all-zero pages unwritten: allocate()
// hands out zeroed memory (backend.h; conformance case allocate-zeroed), and
// TPC-C's empty order slots are zero records, each page a fault for nothing.
void write_image(Backend& b, RemoteAddr at, const std::byte* data, uint64_t len) {
  constexpr uint64_t kPiece = 4096;
  auto zero = [&](uint64_t from) { return all_zero(data + from, std::min(kPiece, len - from)); };
  uint64_t run = 0;  // start of the pending non-zero run
  for (uint64_t at_piece = 0; at_piece < len; at_piece += kPiece) {
    if (!zero(at_piece)) continue;
    if (run < at_piece) b.host_write(at + run, data + run, at_piece - run);
    run = at_piece + kPiece;
  }
  if (run < len) b.host_write(at + run, data + run, len - run);
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
  if (expected_ != nullptr) {
    const StoreLoader& e = expected_->loader;
    if (matched_ < e.rows_.size()) {
      const Row& r = e.rows_[matched_];
      if (r.table == table && r.key == key && r.bytes == payload.size() &&
          std::equal(payload.begin(), payload.end(), e.blob_.begin() + static_cast<std::ptrdiff_t>(r.payload_at))) {
        ++matched_;
        return;
      }
    }
    settle();  // a different record: from here on, a loader of its own
  }
  rows_.push_back({table, key, blob_.size(), static_cast<uint32_t>(payload.size())});
  blob_.insert(blob_.end(), payload.begin(), payload.end());
}

void StoreLoader::expect(std::shared_ptr<const StorePlan> plan) {
  LW_CHECK_MSG(rows_.empty() && expected_ == nullptr, "expect() comes before the first add()");
  expected_ = std::move(plan);
  matched_ = 0;
}

bool StoreLoader::loaded_expected() const {
  return expected_ != nullptr && matched_ == expected_->loader.rows_.size();
}

void StoreLoader::settle() {
  if (expected_ == nullptr) return;
  const StoreLoader& e = expected_->loader;
  // Payloads are appended in order: the first matched_ rows' are a prefix.
  const size_t blob = matched_ == 0 ? 0 : e.rows_[matched_ - 1].payload_at + e.rows_[matched_ - 1].bytes;
  rows_.assign(e.rows_.begin(), e.rows_.begin() + static_cast<std::ptrdiff_t>(matched_));
  blob_.assign(e.blob_.begin(), e.blob_.begin() + static_cast<std::ptrdiff_t>(blob));
  expected_.reset();
  matched_ = 0;
}

bool StoreLoader::operator==(const StoreLoader& o) const {
  if (expected_ == nullptr && o.expected_ == nullptr) return rows_ == o.rows_ && blob_ == o.blob_;
  StoreLoader a = *this, b = o;  // rare: compare settled copies
  a.settle();
  b.settle();
  return a.rows_ == b.rows_ && a.blob_ == b.blob_;
}

void StoreLoader::reserve(size_t records, size_t payload_bytes) {
  if (expected_ != nullptr) return;  // following a plan: likely nothing to store
  rows_.reserve(rows_.size() + records);
  blob_.reserve(blob_.size() + payload_bytes);
}

size_t StoreLoader::records() const { return expected_ != nullptr ? matched_ : rows_.size(); }

uint64_t store_bucket(TableId t, uint64_t key, uint64_t buckets) {
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

std::unique_ptr<Store> Store::build(Backend& b, std::vector<TableSpec> tables, HomeFn home, StoreLoader loader,
                                    const StoreOptions& o, std::string* error) {
  std::shared_ptr<const StorePlan> plan = StorePlan::make(std::move(tables), home, std::move(loader), o, error);
  if (!plan) return nullptr;
  return build(b, std::move(plan), std::move(home), o, error);
}

std::unique_ptr<Store> Store::build(Backend& b, std::shared_ptr<const StorePlan> plan, HomeFn home,
                                    const StoreOptions& o, std::string* error) {
  auto fail = [&](const std::string& m) -> std::unique_ptr<Store> {
    if (error) *error = m;
    return nullptr;
  };
  if (std::string e = o.validate(); !e.empty()) return fail(e);
  LW_CHECK_MSG(plan != nullptr && plan->fits(o), "a store plan built for other layout options");
  if (o.nodes > b.config().memory_nodes) return fail("the store wants more nodes than the backend's memory nodes");
  if (!home) return fail("no home function");

  std::unique_ptr<Store> s(new Store(b, o));
  s->replicas_ = plan->replicas;
  s->home_ = std::move(home);
  s->plan_ = std::move(plan);
  const StorePlan& pl = *s->plan_;
  const uint32_t nt = static_cast<uint32_t>(pl.tables.size());
  s->placement_.assign(o.nodes, std::vector<TablePlacement>(nt));
  // An image is only worth capturing where it can be installed again.
  const bool images = o.shared_name.empty() && b.can_install_host_images() && NodeMemoryReuse::active();
  Allocations allocations;
  auto noted = [&](RemoteAddr a, uint64_t bytes) {
    allocations.at.push_back(a);
    allocations.bytes.push_back(std::max<uint64_t>(bytes, kCacheLine));
    return a;
  };
  // The allocations, in the same order in every process.
  for (uint32_t n = 0; n < o.nodes; ++n) {
    for (uint32_t t = 0; t < nt; ++t) {
      const StorePlan::Part& part = pl.parts[n][t];
      TablePlacement& p = s->placement_[n][t];
      p.buckets = part.buckets;
      p.max_probe = part.max_probe;
      p.record_count = part.record_count;
      const std::string tag = "n" + std::to_string(n) + "/t" + std::to_string(t);
      p.index = noted(alloc(b, o, static_cast<NodeId>(n), tag + "/index", p.buckets * kBucketBytes),
                      p.buckets * kBucketBytes);
      const uint64_t heap = p.record_count * s->record_bytes(static_cast<TableId>(t));
      p.records = noted(alloc(b, o, static_cast<NodeId>(n), tag + "/records", heap), heap);
      if (p.index.is_null() || p.records.is_null())
        return fail(kStoreDoesNotFit + std::to_string(n) + ": raise memory_node_bytes");
    }
    // The log rings start zero and stay out of the image: runs that differ
    // only in coordinators share it.
    s->logs_.push_back(alloc(b, o, static_cast<NodeId>(n), "n" + std::to_string(n) + "/logs",
                             uint64_t{o.coordinators} * o.log_ring_bytes));
    if (s->logs_.back().is_null())
      return fail("the log rings do not fit memory node " + std::to_string(n) + ": raise memory_node_bytes");
  }
  if (o.write_images) {
    if (!images || !s->install_images(allocations)) {
      s->write_indexes();
      s->write_records();
      if (images) s->capture_images(allocations);
    }
  }
  return s;
}

namespace {

using StoreImages = std::vector<std::shared_ptr<const HostImage>>;  // one per store node

// The set-up store's key of a built store's memory (base/setup_store.h):
// the plan (the same object: StorePlanCache hands out one per load of the
// same records, tables, home answers and layout; held by the key) and every
// allocation's address and size.
SetupKey images_key(const std::shared_ptr<const StorePlan>& plan, const std::vector<RemoteAddr>& at,
                    const std::vector<uint64_t>& bytes) {
  SetupKey k("txn.store-images");
  k.add_compared(plan).add(std::span<const RemoteAddr>(at)).add(std::span<const uint64_t>(bytes));
  return k;
}

// Node n's allocations, first to last: [lo, hi) in offsets.
void node_range(const std::vector<RemoteAddr>& at, const std::vector<uint64_t>& bytes, NodeId n, uint64_t* lo,
                uint64_t* hi) {
  *lo = ~uint64_t{0};
  *hi = 0;
  for (size_t i = 0; i < at.size(); ++i) {
    if (at[i].node() != n) continue;
    *lo = std::min(*lo, at[i].offset());
    *hi = std::max(*hi, at[i].offset() + bytes[i]);
  }
  LW_CHECK(*lo < *hi);
}

}  // namespace

bool Store::install_images(const Allocations& a) {
  const auto found = SetupStore::process().find<const StoreImages>(images_key(plan_, a.at, a.bytes));
  if (found == nullptr) return false;
  LW_CHECK(found->size() == o_.nodes);
  for (uint32_t n = 0; n < o_.nodes; ++n) {
    uint64_t lo, hi;
    node_range(a.at, a.bytes, static_cast<NodeId>(n), &lo, &hi);
    const HostImage& img = *(*found)[n];
    LW_CHECK(img.offset() == lo && img.bytes() == hi - lo);
    b_.host_install_image(static_cast<NodeId>(n), img);
  }
  return true;
}

void Store::capture_images(const Allocations& a) const {
  auto taken = std::make_shared<StoreImages>();
  uint64_t bytes = 0;
  for (uint32_t n = 0; n < o_.nodes; ++n) {
    uint64_t lo, hi;
    node_range(a.at, a.bytes, static_cast<NodeId>(n), &lo, &hi);
    const NodeId node = static_cast<NodeId>(n);
    auto img = HostImage::capture(lo, hi - lo, [&](uint64_t off, std::byte* dst, uint64_t len) {
      b_.host_read(RemoteAddr(node, off), dst, len);
    });
    if (!img) return;  // no image: later builds write as this one did
    bytes += img->stored_bytes();
    taken->push_back(std::move(img));
  }
  SetupStore::process().add<const StoreImages>(images_key(plan_, a.at, a.bytes), std::move(taken), bytes,
                                               SetupLifetime::kReuseScope);
}

// Each index image through one chunk buffer, its used slots' offsets moved
// from the heap's start to the node's.
void Store::write_indexes() {
  constexpr uint64_t kChunkBytes = 256u << 10;
  static_assert(kChunkBytes % kBucketBytes == 0);
  std::vector<std::byte> chunk(kChunkBytes);
  for (uint32_t n = 0; n < o_.nodes; ++n)
    for (uint32_t t = 0; t < plan_->tables.size(); ++t) {
      const std::vector<std::byte>& idx = plan_->parts[n][t].index;
      const TablePlacement& p = placement_[n][t];
      for (uint64_t done = 0; done < idx.size(); done += kChunkBytes) {
        const uint64_t len = std::min<uint64_t>(kChunkBytes, idx.size() - done);
        std::memcpy(chunk.data(), idx.data() + done, len);
        for (uint64_t at = 0; at < len; at += 16) {
          uint64_t k, rel;
          std::memcpy(&k, chunk.data() + at, 8);
          if (k == 0) continue;
          std::memcpy(&rel, chunk.data() + at + 8, 8);
          const uint64_t off = p.records.offset() + rel;
          std::memcpy(chunk.data() + at + 8, &off, 8);
        }
        write_image(b_, p.index + done, chunk.data(), len);
      }
    }
}

// Slots were given out in load order per node and table, so walking the rows
// in load order fills each heap front to back: each heap is written through
// a small buffer, in chunks, instead of being staged whole in host memory
// (for the large stores, staging cost more than everything else in set-up).
void Store::write_records() {
  const StoreLoader& loader = plan_->loader;
  const std::vector<StorePlan::DirEntry>& row_dir = plan_->row_dir;
  const std::vector<NodeId>& row_primary = plan_->row_primary;
  constexpr uint64_t kChunkBytes = 256u << 10;
  struct Heap {
    uint64_t written = 0;  // records already written
    uint64_t buffered = 0;  // records in `buf` after those
    std::vector<std::byte> buf;
  };
  const uint32_t nt = static_cast<uint32_t>(plan_->tables.size());
  std::vector<Heap> heaps(size_t{o_.nodes} * nt);
  auto flush = [&](NodeId n, uint32_t t) {
    Heap& h = heaps[size_t{n} * nt + t];
    const uint64_t rb = record_bytes(static_cast<TableId>(t));
    if (h.buffered == 0) return;
    write_image(b_, placement_[n][t].records + h.written * rb, h.buf.data(), h.buffered * rb);
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

const std::vector<TableSpec>& Store::tables() const { return plan_->tables; }

NodeId Store::node_of(TableId t, uint64_t key, uint32_t replica) const {
  LW_CHECK(replica < replicas_);
  return static_cast<NodeId>((home_(t, key, o_.nodes) + replica) % o_.nodes);
}

const TablePlacement& Store::placement(NodeId n, TableId t) const { return placement_.at(n).at(t); }

RemoteAddr Store::address(TableId t, uint64_t key, uint32_t replica) const {
  if (t >= plan_->dir.size() || replica >= replicas_) return {};
  const auto& d = plan_->dir[t];
  auto it = std::lower_bound(d.begin(), d.end(), key,
                             [](const StorePlan::DirEntry& a, uint64_t k) { return a.key < k; });
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

const std::vector<uint64_t>& Store::keys(TableId t) const { return plan_->keys.at(t); }

RemoteAddr Store::log_ring(NodeId node, uint32_t coordinator) const {
  LW_CHECK(node < logs_.size() && coordinator < o_.coordinators);
  return logs_[node] + uint64_t{coordinator} * o_.log_ring_bytes;
}

}  // namespace lw::txn
