#include "latchwork/structures/jasny/tuple_store.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "latchwork/sync/optimistic_variants.h"
#include "latchwork/sync/switch_latched.h"
#include "base/setup_store.h"
#include "verbs/host_image.h"
#include "verbs/node_memory_reuse.h"

namespace lw {
namespace {

struct NamedScheme {
  const char* name;
  bool correct;
  void (*apply)(TupleStoreOptions*);
};

void pessimistic(TupleStoreOptions* o, LatchOptimization level) {
  o->scheme = TupleScheme::kPessimistic;
  o->optimization = level;
  o->mode = LatchMode::kReaderWriter;
  if (o->layout == LatchLayout::kFooter) o->layout = LatchLayout::kHeader;
}

void optimistic(TupleStoreOptions* o, ConsistencyScheme c, bool relaxed = false) {
  o->scheme = TupleScheme::kOptimistic;
  o->consistency = c;
  o->relaxed_read = relaxed;
}

const NamedScheme kSchemes[] = {
    {"pessimistic-basic", true, [](TupleStoreOptions* o) { pessimistic(o, LatchOptimization::kBasic); }},
    {"pessimistic-speculative", true,
     [](TupleStoreOptions* o) { pessimistic(o, LatchOptimization::kSpeculativeRead); }},
    {"pessimistic-combining", true,
     [](TupleStoreOptions* o) { pessimistic(o, LatchOptimization::kWriteCombining); }},
    {"pessimistic-async", true, [](TupleStoreOptions* o) { pessimistic(o, LatchOptimization::kAsyncUnlatch); }},
    // Write unlatch with FAA readers loses unlatches (§3.3): negative control.
    {"write-unlatch-faa", false,
     [](TupleStoreOptions* o) {
       pessimistic(o, LatchOptimization::kWriteUnlatch);
       o->layout = LatchLayout::kFooter;
     }},
    // Write unlatch with a CAS-only latch (RCC-NOWAIT): correct.
    {"write-unlatch-cas", true,
     [](TupleStoreOptions* o) {
       pessimistic(o, LatchOptimization::kWriteUnlatch);
       o->layout = LatchLayout::kFooter;
       o->mode = LatchMode::kExclusiveOnly;
     }},
    {"versioning", true, [](TupleStoreOptions* o) { optimistic(o, ConsistencyScheme::kVersioning); }},
    {"crc64", true, [](TupleStoreOptions* o) { optimistic(o, ConsistencyScheme::kCrc64); }},
    {"farm", true, [](TupleStoreOptions* o) { optimistic(o, ConsistencyScheme::kFarm); }},
    {"bookend", false, [](TupleStoreOptions* o) { optimistic(o, ConsistencyScheme::kBookend); }},
    // §6: consistent reads without the final validation.
    {"crc64-relaxed", true, [](TupleStoreOptions* o) { optimistic(o, ConsistencyScheme::kCrc64, true); }},
    {"farm-relaxed", true, [](TupleStoreOptions* o) { optimistic(o, ConsistencyScheme::kFarm, true); }},
    {"reversed-write-unlatch", true,
     [](TupleStoreOptions* o) { o->scheme = TupleScheme::kReversedWriteUnlatch; }},
    {"out-of-place", true, [](TupleStoreOptions* o) { o->scheme = TupleScheme::kOutOfPlace; }},
    {"in-place-marking", false, [](TupleStoreOptions* o) { o->scheme = TupleScheme::kInPlaceMarking; }},
    // §5.5: the switch verifies reads and unlatches on the write's ACK.
    {"switch-optimistic", true,
     [](TupleStoreOptions* o) {
       o->scheme = TupleScheme::kSwitchOptimistic;
       o->relaxed_read = false;
     }},
    {"switch-optimistic-relaxed", true,
     [](TupleStoreOptions* o) {
       o->scheme = TupleScheme::kSwitchOptimistic;
       o->relaxed_read = true;
     }},
};

// The runs of non-zero 8-byte words of an image, to write it over zeroed
// memory with as few host writes as it needs.
class NonZeroWords {
 public:
  explicit NonZeroWords(std::span<const std::byte> image) : image_(image) {
    LW_CHECK(image.size() % kWord == 0);
    for (uint64_t at = 0; at < image.size(); at += kWord) {
      uint64_t v;
      std::memcpy(&v, image.data() + at, kWord);
      if (v == 0) continue;
      if (!runs_.empty() && runs_.back().second == at) runs_.back().second += kWord;
      else runs_.emplace_back(at, at + kWord);
    }
  }
  void write(Backend& b, RemoteAddr at) const {
    for (const auto& [lo, hi] : runs_) b.host_write(at + lo, image_.data() + lo, hi - lo);
  }

 private:
  std::span<const std::byte> image_;
  std::vector<std::pair<uint64_t, uint64_t>> runs_;  // [lo, hi) byte offsets
};

// Node n's initial tuples, `count` images `stride` bytes apart from
// `region`, installed as one host image where the backend can and a
// NodeMemoryReuse is in effect (repro): the bytes the per-tuple writes
// give, made once per figure, and installed for free in a mapping that held
// it (a jasny-fig16 point wrote and then zeroed 125 MB per node). False:
// not installed (write them).
bool install_initial_image(Backend& b, RemoteAddr region, uint64_t count, std::span<const std::byte> image) {
  if (!b.can_install_host_images() || !NodeMemoryReuse::active()) return false;
  const uint64_t stride = image.size(), lo = region.offset();
  // The set-up store's key (base/setup_store.h): where, how many, and the
  // bytes of one tuple; the range's bytes follow from them.
  SetupKey key("jasny.tuple-image");
  key.add(lo).add(count).add(image);
  auto img = SetupStore::process().get_or_make<const HostImage>(
      key, SetupLifetime::kReuseScope,
      [&] {
        return HostImage::capture(lo, count * stride, [&](uint64_t off, std::byte* dst, uint64_t len) {
          for (uint64_t done = 0; done < len;) {
            const uint64_t at = (off + done - lo) % stride, n = std::min(stride - at, len - done);
            std::memcpy(dst + done, image.data() + at, n);
            done += n;
          }
        });
      },
      [](const HostImage& i) { return i.stored_bytes(); });
  if (img == nullptr) return false;
  b.host_install_image(region.node(), *img);
  return true;
}

uint32_t payload_of(const TupleStoreOptions& o) {
  switch (o.scheme) {
    case TupleScheme::kPessimistic:
    case TupleScheme::kReversedWriteUnlatch:
    case TupleScheme::kInPlaceMarking:
    case TupleScheme::kSwitchOptimistic: return o.tuple_bytes - kWord;
    case TupleScheme::kOptimistic: return OptimisticLayout(o.consistency, o.tuple_bytes).payload_bytes();
    case TupleScheme::kOutOfPlace: return o.tuple_bytes;
  }
  return 0;
}

}  // namespace

const std::vector<std::string>& tuple_scheme_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const NamedScheme& s : kSchemes) v.push_back(s.name);
    return v;
  }();
  return names;
}

std::string parse_tuple_scheme(const std::string& name, TupleStoreOptions* inout) {
  for (const NamedScheme& s : kSchemes)
    if (name == s.name) {
      s.apply(inout);
      return {};
    }
  std::string all;
  for (const NamedScheme& s : kSchemes) all += std::string(all.empty() ? "" : ", ") + s.name;
  return "unknown scheme \"" + name + "\" (" + all + ")";
}

bool tuple_scheme_needs_silent_failed_cas(const std::string& name) {
  // Each frees, with a WRITE, a word that other workers CAS: the unlatch WRITE
  // of write-unlatch-cas and reversed-write-unlatch, the slot's unmarking of
  // out-of-place. A waiter's CAS that fails and writes back what it read
  // (Soft-RoCE; failed_cas_writes_back) rewrites the latched word over it.
  for (const char* n : {"write-unlatch-cas", "reversed-write-unlatch", "out-of-place"})
    if (name == n) return true;
  return false;
}

bool tuple_scheme_is_correct(const std::string& name) {
  for (const NamedScheme& s : kSchemes)
    if (name == s.name) return s.correct;
  return false;
}

void tuple_scheme_prepare_cluster(const std::string& name, ClusterConfig* c) {
  if (name.rfind("switch-optimistic", 0) != 0) return;
  c->network.programmable_switch.enabled = true;
  c->network.programmable_switch.program = "optimistic-latching";
}

std::string TupleStoreOptions::validate() const {
  if (tuple_bytes < 64 || tuple_bytes > (16u << 10) || tuple_bytes % 64 != 0)
    return "tuple size must be a multiple of 64 in [64, 16384], got " + std::to_string(tuple_bytes);
  if (tuples == 0 || tuples > (1ull << 32)) return "tuples must be in [1, 2^32]";
  if (scheme == TupleScheme::kPessimistic && optimization == LatchOptimization::kWriteUnlatch &&
      layout != LatchLayout::kFooter)
    return "write unlatch needs the footer layout (the latch right after the data)";
  if (scheme == TupleScheme::kOutOfPlace && (writers == 0 || records_per_writer == 0))
    return "out-of-place updates need writers and records per writer";
  return {};
}

TupleStore::TupleStore(const TupleStoreOptions& o)
    : o_(o), payload_bytes_(payload_of(o)), layout_(o.layout, o.tuple_bytes - kWord) {}

std::string TupleStore::create(Backend& b, const TupleStoreOptions& o, std::unique_ptr<TupleStore>* out) {
  if (std::string e = o.validate(); !e.empty()) return e;
  std::unique_ptr<TupleStore> s(new TupleStore(o));
  const uint32_t m = b.config().memory_nodes;
  s->memory_nodes_ = m;
  switch (o.scheme) {
    case TupleScheme::kPessimistic: s->stride_ = s->layout_.stride(); break;
    case TupleScheme::kOptimistic: s->stride_ = o.tuple_bytes; break;
    case TupleScheme::kReversedWriteUnlatch:
    case TupleScheme::kInPlaceMarking:
    case TupleScheme::kSwitchOptimistic: s->stride_ = o.tuple_bytes; break;
    case TupleScheme::kOutOfPlace: s->stride_ = kWord; break;
  }
  const uint64_t per_node = (o.tuples + m - 1) / m;
  std::vector<std::byte> zero_payload(s->payload_bytes_);
  for (NodeId n = 0; n < m; ++n) {
    RemoteAddr region = b.allocate(n, per_node * s->stride_, 4096);
    if (region.is_null()) return "memory node " + std::to_string(n) + " has no room for " + std::to_string(per_node) + " tuples";
    s->regions_.push_back(region);
    RemoteAddr latches;
    if (o.scheme == TupleScheme::kPessimistic && o.layout == LatchLayout::kDecoupled) {
      latches = b.allocate(n, s->layout_.latch_array_bytes(per_node), 4096);
      if (latches.is_null()) return "no room for the latch array";
    }
    s->latch_arrays_.push_back(latches);
    if (o.scheme == TupleScheme::kSwitchOptimistic) {
      if (!b.capabilities().switch_optimistic_latching)
        return "scheme switch-optimistic needs the simulator's programmable switch running "
               "optimistic-latching (config network.switch: enabled, program)";
      const NodeId sw = b.config().switch_node();
      RemoteAddr versions = b.allocate(sw, per_node * kWord, kWord);
      if (versions.is_null())
        return "the switch has too few registers for " + std::to_string(o.tuples) + " tuples";
      const SwitchTupleMap map{region, o.tuple_bytes, per_node, versions};
      if (Status st = b.install_switch_tuples(map); st != Status::kOk)
        return "the switch refused the tuples: " + std::string(to_string(st));
      s->switch_versions_.push_back(versions);
    }
  }
  // Initial contents: payload zero, version 0, latches free. Fresh memory
  // reads as zero on every backend (Backend::allocate), so only the words of
  // the initial image that are not zero are written: none for most schemes,
  // the checksum word for CRC64. The image is computed once, not per tuple.
  if (o.scheme == TupleScheme::kOptimistic) {
    const OptimisticLayout l(o.consistency, o.tuple_bytes);
    std::vector<std::byte> image(o.tuple_bytes);
    l.encode(0, zero_payload, image);
    LW_CHECK(s->stride_ == image.size());
    const NonZeroWords initial(image);
    for (NodeId n = 0; n < m; ++n) {
      const uint64_t count = n < o.tuples ? (o.tuples - n + m - 1) / m : 0;  // keys k with k % m == n
      if (count == 0 || install_initial_image(b, s->regions_[n], count, image)) continue;
      for (uint64_t k = n; k < o.tuples; k += m) initial.write(b, s->tuple(k));
    }
  } else if (o.scheme == TupleScheme::kOutOfPlace) {
    for (uint64_t k = 0; k < o.tuples; ++k) {
      RemoteAddr rec = b.allocate(static_cast<NodeId>(k % m), o.tuple_bytes);
      if (rec.is_null()) return "no room for the initial records";
      b.host_store(s->tuple(k), rec.raw());
    }
  }
  if (o.scheme == TupleScheme::kOutOfPlace) {
    for (uint32_t wr = 0; wr < o.writers; ++wr) {
      RemoteAddr pool = b.allocate(static_cast<NodeId>(wr % m), o.records_per_writer * o.tuple_bytes);
      if (pool.is_null()) return "no room for the out-of-place records of writer " + std::to_string(wr);
      s->record_pools_.push_back(pool);
      s->records_used_.push_back(0);
    }
  }
  *out = std::move(s);
  return {};
}

RemoteAddr TupleStore::tuple(uint64_t key) const {
  LW_CHECK_MSG(key < o_.tuples, "key " + std::to_string(key) + " out of range");
  return regions_[key % memory_nodes_] + (key / memory_nodes_) * stride_;
}

LatchedTuple TupleStore::latched(uint64_t key) const {
  const uint64_t i = key / memory_nodes_;
  const RemoteAddr region = regions_[key % memory_nodes_];
  const RemoteAddr latches = latch_arrays_[key % memory_nodes_];
  return {layout_.latch(region, latches, i), layout_.data(region, i), payload_bytes_};
}

SwitchLatchedTuple TupleStore::switch_latched(uint64_t key) const {
  return {tuple(key), switch_versions_[key % memory_nodes_] + (key / memory_nodes_) * kWord, o_.tuple_bytes};
}

Task<Status> TupleStore::read(Worker& w, uint64_t key, std::span<std::byte> payload,
                              const RetryPolicy& policy) const {
  LW_CHECK(payload.size() == payload_bytes_);
  switch (o_.scheme) {
    case TupleScheme::kPessimistic:
      co_return co_await pessimistic_read(w, latched(key), o_.optimization, o_.mode, payload, policy);
    case TupleScheme::kOptimistic: {
      const OptimisticBlock block(o_.consistency, tuple(key), o_.tuple_bytes);
      if (o_.relaxed_read) co_return co_await block.read(w, payload, policy);
      co_return co_await block.read_validated(w, payload, policy);
    }
    case TupleScheme::kReversedWriteUnlatch:
      co_return co_await reversed_read(w, {tuple(key), payload_bytes_}, payload, policy);
    case TupleScheme::kOutOfPlace:
      co_return co_await out_of_place_read(w, {tuple(key), payload_bytes_}, payload, policy);
    case TupleScheme::kInPlaceMarking:
      co_return co_await in_place_marked_read(w, {tuple(key), payload_bytes_}, payload, policy);
    case TupleScheme::kSwitchOptimistic:
      co_return co_await switch_latched_read(w, switch_latched(key), payload, !o_.relaxed_read, policy);
  }
  co_return Status::kUnsupported;
}

Task<Status> TupleStore::write(Worker& w, uint64_t key, std::span<const std::byte> payload,
                               uint32_t writer, HoldTimes* hold, const RetryPolicy& policy) {
  LW_CHECK(payload.size() == payload_bytes_);
  switch (o_.scheme) {
    case TupleScheme::kPessimistic: {
      std::vector<std::byte> buf(payload_bytes_);
      co_return co_await pessimistic_update(
          w, latched(key), o_.optimization, o_.mode, buf,
          [&payload](std::span<std::byte> data) { std::memcpy(data.data(), payload.data(), data.size()); },
          hold, policy);
    }
    case TupleScheme::kOptimistic:
      co_return co_await OptimisticBlock(o_.consistency, tuple(key), o_.tuple_bytes).write(w, payload, policy);
    case TupleScheme::kReversedWriteUnlatch:
      co_return co_await reversed_write(w, {tuple(key), payload_bytes_}, payload, policy);
    case TupleScheme::kOutOfPlace: {
      LW_CHECK_MSG(writer < record_pools_.size(), "writer index out of range");
      if (records_used_[writer] >= o_.records_per_writer) co_return Status::kRetryExhausted;
      const RemoteAddr fresh = record_pools_[writer] + records_used_[writer]++ * o_.tuple_bytes;
      co_return co_await out_of_place_write(w, {tuple(key), payload_bytes_}, fresh, payload, policy);
    }
    case TupleScheme::kInPlaceMarking:
      co_return co_await in_place_marked_write(w, {tuple(key), payload_bytes_}, payload, policy);
    case TupleScheme::kSwitchOptimistic:
      co_return co_await switch_latched_write(w, switch_latched(key), payload, policy);
  }
  co_return Status::kUnsupported;
}

}  // namespace lw
