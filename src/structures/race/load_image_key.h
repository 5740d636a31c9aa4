// The set-up store's key of a RACE load image (base/setup_store.h): the
// records, in load order, and the layout of the table they were loaded into
// (LoadLayout, compared with its defaulted ==). A figure's points load the
// same records into tables at the same addresses and install the first
// one's image (HashTable::host_load) instead of inserting them one by one.
#pragma once

#include <span>

#include "base/setup_store.h"
#include "latchwork/structures/race/hash_table.h"

namespace lw::race {

inline SetupKey load_image_key(const HashTable& table, const HostRecords& records) {
  SetupKey k("race.load-image");
  k.add_compared(table.load_layout()).add(std::span<const std::pair<uint64_t, uint64_t>>(records));
  return k;
}

}  // namespace lw::race
