// The one mechanism for reusing set-up: a keyed, bounded, thread-safe store
// of immutable products (memory images of loaded structures, key sets, Zipf
// tables), shared by runs that build the same data again (a figure's points,
// a check sweep's seeds). Private to the toolkit (not installed).
//
// The identity rule, for every product: its SetupKey holds every input the
// product depends on, appended by the producer's key function beside it, and
// a product is shared only between equal keys. Inputs are appended as bytes
// (values with no padding: has_unique_object_representations, enforced at
// compile time) or, for option structs and object identities, as values kept
// in the key and compared with their operator== (a defaulted == compares a
// field added later with no change here; a shared_ptr compares the object,
// which the key holds alive, so its address is never reused). The store
// compares whole keys: a hash only finds candidates.
//
// What stays outside it, and why (docs/api.md, "Set-up reuse"):
// NodeMemoryReuse keeps released node memory's pages (no content, no key:
// a page is a page); txn::StorePlanCache compares a load record by record
// while it is being loaded, so its key is not known before the work it
// saves; ReproSession reuses whole run results (not set-up).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "latchwork/base/assert.h"

namespace lw {

namespace internal {
template <class T>
struct IsSpan : std::false_type {};
template <class T, size_t N>
struct IsSpan<std::span<T, N>> : std::true_type {};
// A value whose bytes say what it is: no padding, and not a pointer or a
// span (whose bytes are an address, not what it points at).
template <class T>
concept KeyBytes = std::is_trivially_copyable_v<T> && std::has_unique_object_representations_v<T> &&
                   !std::is_pointer_v<T> && !IsSpan<T>::value;
}  // namespace internal

class SetupKey {
 public:
  // `kind` names the product ("race.load"): keys of different kinds differ.
  explicit SetupKey(std::string_view kind) { add(kind); }

  // A value's bytes. No padding, so equal values give equal bytes.
  template <internal::KeyBytes T>
  SetupKey& add(const T& v) {
    append(&v, sizeof v);
    return *this;
  }
  SetupKey& add(double v) { return add(std::bit_cast<uint64_t>(v)); }
  SetupKey& add(bool v) { return add(uint8_t{v}); }
  SetupKey& add(std::string_view s) {
    add(uint64_t{s.size()});
    append(s.data(), s.size());
    return *this;
  }
  // A span's elements, with their count. Viewed, not copied, until the
  // store keeps the key (own()): the caller's data must outlive its use of
  // the key. A Sherman load's key views 16 MB of pairs; copying them for
  // every lookup tripled a figure's set-up on this project's VMs.
  template <internal::KeyBytes T>
  SetupKey& add(std::span<const T> s) {
    add(uint64_t{s.size()});
    append_view(s.data(), s.size_bytes());
    return *this;
  }
  // Pairs of words (key-value pairs): std::pair is not trivially copyable.
  SetupKey& add(std::span<const std::pair<uint64_t, uint64_t>> s);

  // Copies every viewed span into the key (the store does, to keep it).
  void own();

  // A value kept in the key and compared with ==: option structs (their
  // defaulted ==) and shared_ptrs (the object: held alive by the key).
  template <class T>
  SetupKey& add_compared(T v) {
    parts_.push_back(Part{std::make_shared<const T>(std::move(v)), &typeid(T),
                          [](const void* a, const void* b) { return *static_cast<const T*>(a) == *static_cast<const T*>(b); },
                          sizeof(T), length_});
    return *this;
  }

  bool operator==(const SetupKey& o) const;
  uint64_t hash() const;  // of the bytes; computed once
  uint64_t bytes() const;  // what the key holds, about (counted in the store's bound)

 private:
  struct Part {
    std::shared_ptr<const void> value;
    const std::type_info* type;
    bool (*equal)(const void*, const void*);
    uint64_t size;
    size_t at;  // the bytes appended before it: order is part of the key
  };
  // The key's bytes in order: owned runs and viewed spans. A viewed span
  // stays a segment of its own when owned, so equal keys have equal
  // segments, and its hash samples it the same way before and after.
  struct Segment {
    std::string owned;
    const char* view = nullptr;  // while viewed
    size_t len = 0;
    bool sampled = false;  // a span: hashed by its length and ends
    std::string_view bytes() const { return view ? std::string_view(view, len) : std::string_view(owned); }
  };
  void append(const void* p, size_t n) {
    if (segs_.empty() || segs_.back().sampled) segs_.emplace_back();
    segs_.back().owned.append(static_cast<const char*>(p), n);
    segs_.back().len += n;
    length_ += n;
    hashed_ = false;
  }
  void append_view(const void* p, size_t n) {
    segs_.push_back(Segment{{}, static_cast<const char*>(p), n, true});
    length_ += n;
    hashed_ = false;
  }
  std::vector<Segment> segs_;
  size_t length_ = 0;
  mutable uint64_t hash_ = 0;  // once asked
  mutable bool hashed_ = false;
  std::vector<Part> parts_;
};

// How long a product is kept: for the process (cheap to hold, used by many
// runs: key sets, Zipf tables), or while node memory reuse is in effect
// (NodeMemoryReuse: repro and check make one; memory images, which pay off
// only there and hold a lot). Producers of the second kind add only while
// one is in effect; its end drops them (drop_scoped).
enum class SetupLifetime : uint8_t { kProcess, kReuseScope };

class SetupStore {
 public:
  // The process's store (bounded by kProcessBytes).
  static SetupStore& process();
  // A figure's images (DrTM+H's stores, RACE's loads, Sherman's trees,
  // Jasny's tuple tables) and key sets held at once: 2 GB fits the largest
  // repro group's (SMART Figs. 7-8's loads, DrTM+H's TPC-C stores) on this
  // project's 24 GB machines.
  static constexpr uint64_t kProcessBytes = uint64_t{2} << 30;
  static constexpr size_t kMaxEntries = 256;

  explicit SetupStore(uint64_t max_bytes) : max_bytes_(max_bytes) {}
  SetupStore(const SetupStore&) = delete;
  SetupStore& operator=(const SetupStore&) = delete;

  // The product kept under `key`, or null. A kept product of another type
  // under an equal key is a producer's bug (kinds name their type).
  template <class T>
  std::shared_ptr<T> find(const SetupKey& key) {
    return std::static_pointer_cast<T>(find_erased(key, typeid(T)));
  }
  // Keeps `product` (`bytes`: what it holds) under `key` and returns it, or
  // the product an equal key kept first (another thread made it too). One
  // larger than the bound is returned and not kept; the least recently used
  // go first to make room.
  template <class T>
  std::shared_ptr<T> add(SetupKey key, std::shared_ptr<T> product, uint64_t bytes, SetupLifetime life) {
    return std::static_pointer_cast<T>(
        add_erased(std::move(key), std::const_pointer_cast<std::remove_const_t<T>>(std::move(product)), typeid(T),
                   bytes, life));
  }
  // find(), else make() (-> std::shared_ptr<T>, outside the lock) and add().
  // `bytes_of(const T&)`: what the made product holds.
  template <class T, class Make, class BytesOf>
  std::shared_ptr<T> get_or_make(const SetupKey& key, SetupLifetime life, Make make, BytesOf bytes_of) {
    if (auto hit = find<T>(key)) return hit;
    std::shared_ptr<T> made = make();
    if (made == nullptr) return nullptr;
    const uint64_t b = bytes_of(*made);
    return add<T>(key, std::move(made), b, life);
  }

  // Drops every product kept for a reuse scope (its end: NodeMemoryReuse).
  void drop_scoped();

  uint64_t hits() const;
  uint64_t misses() const;
  uint64_t bytes() const;
  size_t entries() const;

 private:
  struct Entry {
    SetupKey key;
    uint64_t hash;
    std::shared_ptr<void> product;
    const std::type_info* type;
    uint64_t bytes;
    SetupLifetime life;
  };
  std::shared_ptr<void> find_erased(const SetupKey& key, const std::type_info& type);
  std::shared_ptr<void> add_erased(SetupKey key, std::shared_ptr<void> product, const std::type_info& type,
                                   uint64_t bytes, SetupLifetime life);
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> entries_;  // most recently used first
  uint64_t bytes_ = 0, hits_ = 0, misses_ = 0;
};

}  // namespace lw
