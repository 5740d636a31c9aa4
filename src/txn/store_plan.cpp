// The store's layout from its records (store_plan.h): heap slots in load
// order, bucket indexes whose probe chains fit max_probe, the directory.
#include "latchwork/txn/store_plan.h"

#include <algorithm>
#include <cstring>

#include "latchwork/base/assert.h"

namespace lw::txn {

namespace {

template <typename T>
uint64_t vector_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

}  // namespace

std::string StorePlan::check_shape(const std::vector<TableSpec>& tables, const StoreOptions& o) {
  if (std::string e = o.validate(); !e.empty()) return e;
  if (tables.empty() || tables.size() > kMaxTables) return "a store needs 1 to 16 tables";
  for (const TableSpec& t : tables)
    if (t.payload_bytes == 0 || t.payload_bytes > kMaxPayloadBytes)
      return "table " + t.name + ": payload_bytes must be in [1, " + std::to_string(kMaxPayloadBytes) + "]";
  return "";
}

uint64_t StorePlan::bytes() const {
  uint64_t n = vector_bytes(loader.rows_) + vector_bytes(loader.blob_) + vector_bytes(row_primary) +
               vector_bytes(row_dir);
  for (const auto& d : dir) n += vector_bytes(d);
  for (const auto& k : keys) n += vector_bytes(k);
  for (const auto& node : parts)
    for (const Part& p : node) n += vector_bytes(p.index);
  return n;
}

std::string StorePlan::fit_error(const StorePlan& s, const StoreOptions& o) {
  if (o.node_bytes == 0) return "";
  const auto& rows = s.loader.rows_;
  const uint32_t nt = static_cast<uint32_t>(s.tables.size());
  std::vector<std::vector<uint64_t>> copies(o.nodes, std::vector<uint64_t>(nt, 0));
  for (size_t row = 0; row < rows.size(); ++row) {
    if (rows[row].table >= nt) return "";  // make() names this error
    for (uint32_t rep = 0; rep < s.replicas; ++rep) ++copies[(s.row_primary[row] + rep) % o.nodes][rows[row].table];
  }
  auto mib = [](uint64_t b) { return std::to_string((b + (1 << 20) - 1) >> 20) + " MiB"; };
  const uint64_t logs = uint64_t{o.coordinators} * o.log_ring_bytes;
  for (uint32_t n = 0; n < o.nodes; ++n) {
    uint64_t records = 0, indexes = 0;
    for (uint32_t t = 0; t < nt; ++t) {
      records += copies[n][t] * s.record_bytes(static_cast<TableId>(t));
      // make()'s smallest index for these copies (it may grow, never shrink).
      indexes += (static_cast<uint64_t>(static_cast<double>(copies[n][t]) / (kBucketSlots * o.index_load)) + 1) *
                 kBucketBytes;
    }
    if (records + indexes + logs > o.node_bytes)
      return kStoreDoesNotFit + std::to_string(n) + ": it needs at least " + mib(records + indexes + logs) +
             " (record copies " + mib(records) + ", indexes " + mib(indexes) + ", log rings " + mib(logs) +
             ") of the node's " + mib(o.node_bytes) + ": raise memory_node_bytes";
  }
  return "";
}

bool StorePlan::fits(const StoreOptions& o) const {
  return o.nodes == nodes && std::min(o.replicas, o.nodes) == replicas && o.index_load == index_load &&
         o.max_probe == max_probe;
}

std::vector<NodeId> StorePlan::primaries(const std::vector<TableSpec>& tables, const HomeFn& home,
                                         const StoreLoader& loader, uint32_t nodes, std::string* error) {
  std::vector<NodeId> out;
  auto fail = [&](const std::string& m) {
    if (error) *error = m;
    return std::vector<NodeId>();
  };
  if (!home) return fail("no home function");
  LW_CHECK_MSG(loader.expected_ == nullptr, "primaries() of a loader still following a plan: settle() it");
  out.reserve(loader.rows_.size());
  for (const StoreLoader::Row& r : loader.rows_) {
    if (r.table >= tables.size()) return fail("a record of table " + std::to_string(r.table) + " which does not exist");
    const NodeId primary = home(r.table, r.key, nodes);
    if (primary >= nodes) return fail("home() named a node beyond the store's nodes");
    out.push_back(primary);
  }
  return out;
}

std::shared_ptr<const StorePlan> StorePlan::make(std::vector<TableSpec> tables, const HomeFn& home, StoreLoader loader,
                                                 const StoreOptions& o, std::string* error) {
  loader.settle();
  if (std::string e = check_shape(tables, o); !e.empty()) {
    if (error) *error = e;
    return nullptr;
  }
  std::string e;
  std::vector<NodeId> primary = primaries(tables, home, loader, o.nodes, &e);
  if (!e.empty()) {
    if (error) *error = e;
    return nullptr;
  }
  return make(std::move(tables), std::move(primary), std::move(loader), o, error);
}

std::shared_ptr<const StorePlan> StorePlan::make(std::vector<TableSpec> tables, std::vector<NodeId> row_primary,
                                                 StoreLoader loader, const StoreOptions& o, std::string* error) {
  auto fail = [&](const std::string& m) -> std::shared_ptr<const StorePlan> {
    if (error) *error = m;
    return nullptr;
  };
  loader.settle();
  if (std::string e = check_shape(tables, o); !e.empty()) return fail(e);
  LW_CHECK_MSG(row_primary.size() == loader.rows_.size(), "one primary per loaded row");

  auto s = std::make_shared<StorePlan>();
  s->tables = std::move(tables);
  s->nodes = o.nodes;
  s->replicas = std::min(o.replicas, o.nodes);
  s->index_load = o.index_load;
  s->max_probe = o.max_probe;
  s->row_primary = std::move(row_primary);
  s->loader = std::move(loader);
  const auto& rows = s->loader.rows_;
  const uint32_t nt = static_cast<uint32_t>(s->tables.size());
  if (std::string e = fit_error(*s, o); !e.empty()) return fail(e);
  s->parts.assign(o.nodes, std::vector<Part>(nt));
  s->keys.assign(nt, {});
  s->dir.assign(nt, {});

  // Assign each copy its index in its node's heap (load order); row_dir
  // keeps each row's entry in load order for the images.
  std::vector<uint64_t> per_table(nt, 0);
  for (const StoreLoader::Row& r : rows) {
    if (r.table >= nt) return fail("a record of table " + std::to_string(r.table) + " which does not exist");
    ++per_table[r.table];
  }
  for (uint32_t t = 0; t < nt; ++t) {
    s->keys[t].reserve(per_table[t]);
    s->dir[t].reserve(per_table[t]);
  }
  std::vector<std::vector<uint64_t>> count(o.nodes, std::vector<uint64_t>(nt, 0));
  s->row_dir.reserve(rows.size());
  for (size_t row = 0; row < rows.size(); ++row) {
    const StoreLoader::Row& r = rows[row];
    // An index slot holds key + 1 (0 marks a free slot).
    if (r.key == ~uint64_t{0}) return fail("key 2^64-1 is reserved (an index slot stores key + 1)");
    if (r.bytes > s->tables[r.table].payload_bytes)
      return fail("a payload longer than table " + s->tables[r.table].name + "'s payload_bytes");
    LW_CHECK(s->row_primary[row] < o.nodes);
    DirEntry d{r.key, {0, 0, 0, 0}};
    for (uint32_t rep = 0; rep < s->replicas; ++rep) {
      const NodeId n = static_cast<NodeId>((s->row_primary[row] + rep) % o.nodes);
      d.slot[rep] = static_cast<uint32_t>(count[n][r.table]++);
    }
    s->dir[r.table].push_back(d);
    s->keys[r.table].push_back(r.key);
    s->row_dir.push_back(d);
  }
  for (uint32_t t = 0; t < nt; ++t) {
    auto& d = s->dir[t];
    std::sort(d.begin(), d.end(), [](const DirEntry& a, const DirEntry& c) { return a.key < c.key; });
    for (size_t i = 1; i < d.size(); ++i)
      if (d[i].key == d[i - 1].key)
        return fail("key " + std::to_string(d[i].key) + " of table " + s->tables[t].name + " loaded twice");
  }

  // Every copy's key and slot, per node and table.
  struct Copy {
    uint64_t key;
    uint64_t slot;
  };
  std::vector<std::vector<std::vector<Copy>>> copies(o.nodes, std::vector<std::vector<Copy>>(nt));
  for (uint32_t n = 0; n < o.nodes; ++n)
    for (uint32_t t = 0; t < nt; ++t) copies[n][t].reserve(count[n][t]);
  for (size_t row = 0; row < rows.size(); ++row) {
    const StoreLoader::Row& r = rows[row];
    for (uint32_t rep = 0; rep < s->replicas; ++rep) {
      const NodeId n = static_cast<NodeId>((s->row_primary[row] + rep) % o.nodes);
      copies[n][r.table].push_back({r.key, s->row_dir[row].slot[rep]});
    }
  }

  // Per node and table: an index whose probe chains fit max_probe (index_load
  // is an upper bound: a table whose chains do not fit gets more buckets).
  for (uint32_t n = 0; n < o.nodes; ++n) {
    for (uint32_t t = 0; t < nt; ++t) {
      Part& p = s->parts[n][t];
      p.record_count = count[n][t];
      const double per_bucket = kBucketSlots * o.index_load;
      uint64_t buckets = std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(p.record_count) / per_bucket) + 1);
      constexpr uint32_t kGrowths = 6;
      const uint64_t rb = s->record_bytes(static_cast<TableId>(t));
      bool built = false;
      for (uint32_t g = 0; g <= kGrowths && !built; ++g, buckets *= 2) {
        p.buckets = buckets;
        p.max_probe = static_cast<uint32_t>(std::min<uint64_t>(o.max_probe, p.buckets));
        p.index.assign(p.buckets * kBucketBytes, std::byte{0});
        // Slots fill in order and are never freed, so a bucket's first free
        // slot is its count of used ones: one byte per bucket to look at.
        std::vector<uint8_t> used(p.buckets, 0);
        built = true;
        for (const Copy& c : copies[n][t]) {
          uint64_t b = store_bucket(static_cast<TableId>(t), c.key, p.buckets);
          bool placed = false;
          for (uint32_t probe = 0; probe < p.max_probe; ++probe) {
            if (used[b] < kBucketSlots) {
              std::byte* slot = p.index.data() + b * kBucketBytes + uint64_t{used[b]++} * 16;
              const uint64_t k1 = c.key + 1, rel = c.slot * rb;
              std::memcpy(slot, &k1, 8);
              std::memcpy(slot + 8, &rel, 8);
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
        return fail("table " + s->tables[t].name + ": a probe chain longer than max_probe (" +
                    std::to_string(o.max_probe) + ") on node " + std::to_string(n) + ": raise max_probe");
    }
  }
  return s;
}

}  // namespace lw::txn
