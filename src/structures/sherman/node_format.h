// The byte layouts of a tree node under the three consistency schemes
// (tree.h): two-level versions (Sherman §4.4, Fig. 8), per-cache-line
// versions (SMART §5.2, FaRM) and FG+'s CRC-64. A node is decoded into a
// Node (fences, level, entries) and encoded back; decode() is the reader's
// consistency check.
//
// Every scheme stores the same 32-byte NodeHeader at the start of the node's
// *payload*, followed by the entries. The payload is the node minus what the
// scheme reserves for itself:
//
// kTwoLevel (node_bytes N):
//   0     1                 33                                     N-1   N
//   +-----+-----------------+----------------------------------+---+-----+
//   | FNV | NodeHeader (32) | entries ...                       |pad| RNV |
//   +-----+-----------------+----------------------------------+---+-----+
//   payload byte p is node byte 1 + p; FNV/RNV: the node version's low 4
//   bits, each in a byte of its own (Sherman packs them in nibbles).
//   leaf entry (key_bytes K), unsorted, key 0 = empty slot:
//     +-----+-----------------+-----------+-----+
//     | FEV | key (K: u64+0s) | value (8) | REV |   K + 10 bytes: 18 at K = 8
//     +-----+-----------------+-----------+-----+   (the paper's 17 packs FEV
//   and REV in 4 bits each; we give each a byte so the entry write is whole
//   bytes: 18 bytes at K = 8).
//
// kPerLine (N = 64 L):
//   line i:  0         2                                           64
//            +---------+--------------------------------------------+
//            | version | 62 payload bytes                           |
//            +---------+--------------------------------------------+
//   payload byte p is node byte 64 (p / 62) + 2 + p % 62. Every line carries
//   the node version (u16); the NodeHeader is payload 0..31 (line 0).
//   leaf entry: [key (K)][value (8)], unsorted, key 0 = empty; an entry that
//   fits a line's payload (K + 8 <= 62) never straddles a line: it starts at
//   the next line when the current one has no room (so an entry write is one
//   line: atomic). Larger entries straddle (their changes are node writes).
//
// kFgPlus:
//   0                  32                                   N-8         N
//   +------------------+------------------------------------+-----------+
//   | NodeHeader (32)  | entries, sorted                    | CRC-64    |
//   +------------------+------------------------------------+-----------+
//   payload byte p is node byte p; the CRC-64 covers bytes [0, N-8).
//   leaf entry: [key (K)][value (8)], sorted, header.count of them.
//
// Internal nodes (every scheme, sorted, written whole), in the payload after
// the header:
//   +----------------+--------------------+--------------------+---
//   | leftmost child | key 0 | child 1    | key 1 | child 2    | ...
//   +----------------+--------------------+--------------------+---
//   children[0] covers [low, key0), children[i] [key i-1, key i), the last
//   one up to high; header.count = number of keys.
//
// Capacities at 1 KB, key_bytes 8:
//   two-level  leaf 55, internal 61
//   per-line   leaf 46, internal 59
//   fg+        leaf 61, internal 61
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/structures/sherman/tree.h"

namespace lw::sherman {

// The high fence of the rightmost node of a level (+infinity).
inline constexpr uint64_t kInfinity = ~uint64_t{0};

struct NodeHeader {
  uint64_t low;       // fence low (inclusive)
  uint64_t high;      // fence high (exclusive); kInfinity for the rightmost
  uint64_t sibling;   // RemoteAddr raw of the right sibling; 0 for none
  uint8_t level;      // 0 = leaf
  uint8_t flags;      // bit 0: free (never set: nodes never merge)
  uint16_t count;     // internal and fg+ leaves: entries; unsorted leaves: 0
  uint16_t version;   // the node version (per-line: equal to the lines')
  uint16_t reserved;  // zero
};
static_assert(sizeof(NodeHeader) == 32);
static_assert(offsetof(NodeHeader, level) == 24);

inline constexpr uint32_t kHeaderBytes = sizeof(NodeHeader);
inline constexpr uint32_t kLineVersionBytes = 2;  // per-line: version at each line's start
inline constexpr uint32_t kLinePayload = 64 - kLineVersionBytes;
inline constexpr uint32_t kCrcBytes = 8;
inline constexpr uint8_t kFreeFlag = 1;

struct LeafEntry {
  uint64_t key = 0;      // 0: an empty slot
  uint64_t value = 0;
  uint8_t version = 0;   // two-level: FEV (4 bits)
  bool torn = false;     // two-level: FEV != REV when decoded
};

struct Node {
  uint8_t level = 0;
  bool free = false;
  uint64_t low = kMinKey, high = kInfinity;
  RemoteAddr sibling;
  uint16_t version = 0;
  // Leaf. Unsorted schemes: one per slot (leaf_capacity of them, key 0
  // empty). FG+: the entries, sorted by key (count of them).
  std::vector<LeafEntry> entries;
  // Internal: keys sorted, children.size() == keys.size() + 1.
  std::vector<uint64_t> keys;
  std::vector<RemoteAddr> children;

  bool is_leaf() const { return level == 0; }
  bool covers(uint64_t key) const { return low <= key && key < high; }
  // Internal: the child covering key (low <= key < high assumed).
  RemoteAddr child_for(uint64_t key) const;
  // Leaf: the slot holding key, or -1.
  int find(uint64_t key) const;
  // Unsorted leaf: the first empty slot, or -1.
  int find_empty() const;
  uint32_t used() const;  // leaf: non-empty entries
};

class NodeFormat {
 public:
  NodeFormat() = default;
  // node_bytes a multiple of 64; key_bytes a multiple of 8.
  NodeFormat(Scheme scheme, uint32_t node_bytes, uint32_t key_bytes);

  Scheme scheme() const { return scheme_; }
  uint32_t node_bytes() const { return node_bytes_; }
  uint32_t key_bytes() const { return key_bytes_; }
  uint32_t leaf_capacity() const { return static_cast<uint32_t>(slot_pos_.size()); }
  uint32_t internal_capacity() const { return internal_capacity_; }
  bool sorted_leaves() const { return scheme_ == Scheme::kFgPlus; }
  uint32_t payload_bytes() const { return payload_bytes_; }
  // Node byte of payload byte p.
  uint32_t byte_of(uint32_t p) const;

  // A node whose leaf entries vector has the shape of this format (unsorted:
  // leaf_capacity empty slots).
  Node empty_leaf() const;

  // The whole image. Two-level: FNV = RNV = version, each entry's FEV = REV
  // = its version (4 bits). Per-line: version in every line. FG+: the CRC.
  // `out` has node_bytes. Checks every invariant of the shape (capacity,
  // sorted keys, children count) before writing.
  void encode(const Node& n, std::byte* out) const;
  // Decodes and checks an image as read: two-level FNV == RNV (entries'
  // FEV != REV only mark the entry torn), per-line every line's version
  // equal, FG+ the CRC; then the header's shape (level, count). False (with
  // *why) when it fails.
  bool decode(const std::byte* in, Node* n, std::string* why = nullptr) const;

  // Unsorted leaves: slot i's bytes in the node, the range an entry write
  // sends (two-level: FEV..REV, K + 10 bytes; per-line: key and value).
  uint32_t entry_offset(uint32_t slot) const;
  uint32_t entry_bytes() const;
  // Whether an entry change may write the entry alone: two-level always;
  // per-line when the entry lies inside one line; FG+ never.
  bool entry_writable(uint32_t slot) const;
  // Per-line: the entry as READ alone at entry_offset (entry_bytes long).
  LeafEntry decode_entry(const std::byte* in) const;

 private:
  void put(std::byte* node, uint32_t p, const void* src, uint32_t len) const;
  void get(const std::byte* node, uint32_t p, void* dst, uint32_t len) const;
  void put_key(std::byte* node, uint32_t p, uint64_t key) const;
  uint64_t get_key(const std::byte* node, uint32_t p) const;

  Scheme scheme_ = Scheme::kTwoLevel;
  uint32_t node_bytes_ = 0, key_bytes_ = 0;
  uint32_t payload_bytes_ = 0;
  uint32_t internal_capacity_ = 0;
  std::vector<uint32_t> slot_pos_;  // payload position of each leaf slot
};

}  // namespace lw::sherman
