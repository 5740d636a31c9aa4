// BTree::latch_state: whether any node's latch word is still taken after a
// run. Walks the pool rather than the tree: a latch left taken by a broken
// split may sit on a node no parent points to.
#include <algorithm>
#include <cstdio>

#include "latchwork/structures/jasny/btree.h"
#include "latchwork/sync/optimistic.h"

namespace lw {

std::string BTree::latch_state(Backend& b) const {
  if (o_.sync == BTreeSync::kUnsynchronized) return {};
  // The counter counts every FAA, also of allocations that found the pool spent.
  const uint64_t used = std::min<uint64_t>(b.host_load(counter_), o_.max_nodes);
  uint64_t taken = 0;
  RemoteAddr first;
  uint64_t first_word = 0;
  for (uint64_t i = 0; i < used; ++i) {
    const uint64_t v = b.host_load(node_at(i));
    const bool held = o_.sync == BTreeSync::kOptimistic ? VersionWord::latched(v) : v != 0;
    if (!held) continue;
    if (taken++ == 0) {
      first = node_at(i);
      first_word = v;
    }
  }
  if (taken == 0) return {};
  char word[24];
  std::snprintf(word, sizeof word, "0x%llx", static_cast<unsigned long long>(first_word));
  return std::to_string(taken) + " node latch word(s) taken; the first, node " + first.to_string() +
         (first == root_ ? " (the root)" : "") + ", is " + word;
}

}  // namespace lw
