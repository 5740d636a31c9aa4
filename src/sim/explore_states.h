// The explorer's set of visited states: 128-bit state hashes mapped to dense
// ids, with what the search needs per state (how it was first reached, its
// depth). Open addressing over 32-bit ids, so a slot costs 4 bytes and a
// state 36; no allocation per insert once grown.
#pragma once

#include <cstdint>
#include <vector>

#include "explore_impl.h"

namespace lw::explore::detail {

class StateTable {
 public:
  static constexpr uint32_t kNone = ~uint32_t{0};

  StateTable() : slots_(1u << 12, kNone), mask_((1u << 12) - 1) {}

  // The id of `h`, inserting it (with its first path) if new.
  uint32_t find_or_insert(const H128& h, uint32_t parent, const Step& via, uint32_t depth, bool* inserted) {
    if ((keys_.size() + 1) * 10 > slots_.size() * 7) grow();
    size_t i = h.a & mask_;
    for (size_t probes = 0; probes <= mask_; ++probes, i = (i + 1) & mask_) {
      const uint32_t id = slots_[i];
      if (id == kNone) break;
      if (keys_[id] == h) {
        *inserted = false;
        return id;
      }
    }
    LW_CHECK(slots_[i] == kNone);
    const uint32_t id = static_cast<uint32_t>(keys_.size());
    LW_CHECK_MSG(id != kNone, "explore: more than 2^32 - 1 states");
    slots_[i] = id;
    keys_.push_back(h);
    parent_.push_back(parent);
    via_.push_back(via);
    depth_.push_back(depth);
    *inserted = true;
    return id;
  }

  size_t size() const { return keys_.size(); }
  const H128& key(uint32_t id) const { return keys_[id]; }
  uint32_t parent(uint32_t id) const { return parent_[id]; }
  const Step& via(uint32_t id) const { return via_[id]; }
  uint32_t depth(uint32_t id) const { return depth_[id]; }

  // The steps from the initial state to `id` along first discoveries.
  std::vector<Step> path_to(uint32_t id) const {
    std::vector<Step> path;
    for (size_t n = 0; id != 0 && n <= keys_.size(); ++n, id = parent_[id]) path.push_back(via_[id]);
    LW_CHECK(id == 0);
    return {path.rbegin(), path.rend()};
  }

 private:
  void grow() {
    std::vector<uint32_t> next(slots_.size() * 2, kNone);
    const size_t mask = next.size() - 1;
    for (uint32_t id = 0; id < keys_.size(); ++id) {
      size_t i = keys_[id].a & mask;
      for (size_t probes = 0; next[i] != kNone && probes <= mask; ++probes) i = (i + 1) & mask;
      next[i] = id;
    }
    slots_.swap(next);
    mask_ = mask;
  }

  std::vector<uint32_t> slots_;
  size_t mask_;
  std::vector<H128> keys_;
  std::vector<uint32_t> parent_;
  std::vector<Step> via_;
  std::vector<uint32_t> depth_;
};

}  // namespace lw::explore::detail
