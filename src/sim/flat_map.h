// A small open-addressed hash map from 64-bit keys to values, for the
// simulator's per-word and per-id bookkeeping (a handful of live entries,
// looked up on every verb). Linear probing with backward-shift deletion: no
// tombstones, so probes stay short however many keys come and go, and no
// allocation once the table has grown to the live set. Nothing iterates it,
// so its layout never decides anything the simulation does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "latchwork/base/assert.h"

namespace lw::sim {

template <typename V>
class FlatMap {
 public:
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // not a valid key

  V* find(uint64_t key) {
    const size_t i = index_of(key);
    return i == kNone ? nullptr : &slots_[i].value;
  }
  bool contains(uint64_t key) { return find(key) != nullptr; }

  // Inserts `value` under `key` unless present. Returns the entry and
  // whether it was inserted. The pointer lives until the next insert or erase.
  std::pair<V*, bool> emplace(uint64_t key, V value) {
    LW_CHECK(key != kEmpty);
    if (V* v = find(key)) return {v, false};
    if ((size_ + 1) * 2 > slots_.size()) grow();
    size_t i = home(key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i].key = key;
    slots_[i].value = std::move(value);
    ++size_;
    return {&slots_[i].value, true};
  }
  V& operator[](uint64_t key) { return *emplace(key, V{}).first; }
  // Inserts `value` under `key`, which the caller has just found absent
  // (find() returned null and nothing changed the map since): one probe run
  // instead of two.
  V* insert_absent(uint64_t key, V value) {
    LW_CHECK(key != kEmpty);
    if ((size_ + 1) * 2 > slots_.size()) grow();
    size_t i = home(key);
    while (slots_[i].key != kEmpty) {
      LW_CHECK_MSG(slots_[i].key != key, "insert_absent of a present key");
      i = (i + 1) & mask_;
    }
    slots_[i].key = key;
    slots_[i].value = std::move(value);
    ++size_;
    return &slots_[i].value;
  }

  // Removes `key`; returns whether it was there.
  bool erase(uint64_t key) {
    const size_t i = index_of(key);
    if (i == kNone) return false;
    erase_index(i);
    return true;
  }
  // Removes the entry `found` points to (from find(), nothing changed since).
  void erase_found(V* found) {
    const size_t i = static_cast<size_t>(reinterpret_cast<Slot*>(reinterpret_cast<char*>(found) -
                                                                 offsetof(Slot, value)) -
                                         slots_.data());
    LW_CHECK(i < slots_.size() && &slots_[i].value == found && slots_[i].key != kEmpty);
    erase_index(i);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Removes every entry whose value satisfies `drop`: one pass over the
  // table, then the rest put back (their probe runs change).
  template <typename Drop>
  void erase_if(Drop drop) {
    std::vector<Slot> keep;
    for (Slot& s : slots_)
      if (s.key != kEmpty && !drop(s.value)) keep.push_back(std::move(s));
    for (Slot& s : slots_) s = Slot{};
    size_ = 0;
    for (Slot& s : keep) {
      size_t i = home(s.key);
      while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
      slots_[i] = std::move(s);
      ++size_;
    }
  }

 private:
  struct Slot {
    uint64_t key = kEmpty;
    V value{};
  };
  static constexpr size_t kNone = ~size_t{0};

  void erase_index(size_t hole) {
    // Shift later members of the probe run back so lookups never stop early.
    for (size_t j = (hole + 1) & mask_, probes = 0; probes < mask_; j = (j + 1) & mask_, ++probes) {
      if (slots_[j].key == kEmpty) break;
      const size_t h = home(slots_[j].key);
      // Entry j may fill the hole unless its home lies cyclically in (hole, j].
      const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (stays) continue;
      slots_[hole] = std::move(slots_[j]);
      hole = j;
    }
    slots_[hole].key = kEmpty;
    slots_[hole].value = V{};
    --size_;
  }

  size_t index_of(uint64_t key) const {
    if (size_ == 0) return kNone;
    // Bounded by the table size; the table is never full, so an empty slot ends it.
    for (size_t i = home(key), probes = 0; probes <= mask_; i = (i + 1) & mask_, ++probes) {
      if (slots_[i].key == key) return i;
      if (slots_[i].key == kEmpty) return kNone;
    }
    return kNone;
  }

  size_t home(uint64_t key) const {
    // Fibonacci hashing: word offsets differ in their middle bits.
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void grow() {
    const size_t cap = slots_.empty() ? 16 : slots_.size() * 2;
    LW_CHECK(cap <= (size_t{1} << 40));
    std::vector<Slot> old(cap);
    old.swap(slots_);
    mask_ = cap - 1;
    shift_ = 64;
    for (size_t c = cap; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (Slot& s : old) {
      if (s.key == kEmpty) continue;
      size_t i = home(s.key);
      while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
      slots_[i] = std::move(s);
      ++size_;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t size_ = 0;
};

}  // namespace lw::sim
