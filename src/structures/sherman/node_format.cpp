// Node layouts: see node_format.h for the drawings.
#include "node_format.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "latchwork/base/assert.h"
#include "latchwork/base/crc64.h"
#include "latchwork/base/layout.h"

namespace lw::sherman {

RemoteAddr Node::child_for(uint64_t key) const {
  LW_CHECK(!is_leaf() && children.size() == keys.size() + 1);
  // The first key greater than `key`: its index is the child.
  const size_t i = static_cast<size_t>(std::upper_bound(keys.begin(), keys.end(), key) - keys.begin());
  return children[i];
}

int Node::find(uint64_t key) const {
  LW_CHECK(key != 0);
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].key == key) return static_cast<int>(i);
  return -1;
}

int Node::find_empty() const {
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].key == 0) return static_cast<int>(i);
  return -1;
}

uint32_t Node::used() const {
  uint32_t n = 0;
  for (const LeafEntry& e : entries) n += e.key != 0;
  return n;
}

NodeFormat::NodeFormat(Scheme scheme, uint32_t node_bytes, uint32_t key_bytes)
    : scheme_(scheme), node_bytes_(node_bytes), key_bytes_(key_bytes) {
  LW_CHECK(node_bytes % kCacheLine == 0 && node_bytes >= 2 * kCacheLine);
  LW_CHECK(key_bytes % 8 == 0 && key_bytes >= 8);
  switch (scheme) {
    case Scheme::kTwoLevel: payload_bytes_ = node_bytes - 2; break;
    case Scheme::kPerLine: payload_bytes_ = node_bytes / kCacheLine * kLinePayload; break;
    case Scheme::kFgPlus: payload_bytes_ = node_bytes - kCrcBytes; break;
  }
  const uint32_t pair = key_bytes + 8;
  const uint32_t first = kHeaderBytes + 8;  // after the header and the leftmost child
  internal_capacity_ = payload_bytes_ > first ? (payload_bytes_ - first) / pair : 0;
  const uint32_t e = scheme == Scheme::kTwoLevel ? key_bytes + 10 : pair;
  for (uint32_t p = kHeaderBytes;;) {
    if (scheme == Scheme::kPerLine && e <= kLinePayload) {
      const uint32_t rem = kLinePayload - p % kLinePayload;
      if (e > rem) p += rem;  // never straddle a line
    }
    if (p + e > payload_bytes_) break;
    slot_pos_.push_back(p);
    p += e;
  }
}

uint32_t NodeFormat::byte_of(uint32_t p) const {
  LW_CHECK(p < payload_bytes_);
  switch (scheme_) {
    case Scheme::kTwoLevel: return 1 + p;
    case Scheme::kPerLine: return (p / kLinePayload) * kCacheLine + kLineVersionBytes + p % kLinePayload;
    case Scheme::kFgPlus: return p;
  }
  return 0;
}

void NodeFormat::put(std::byte* node, uint32_t p, const void* src, uint32_t len) const {
  LW_CHECK(p + len <= payload_bytes_);
  const auto* s = static_cast<const std::byte*>(src);
  if (scheme_ != Scheme::kPerLine) {
    std::memcpy(node + byte_of(p), s, len);
    return;
  }
  while (len > 0) {  // piecewise: the payload skips each line's version
    const uint32_t n = std::min(len, kLinePayload - p % kLinePayload);
    std::memcpy(node + byte_of(p), s, n);
    s += n;
    p += n;
    len -= n;
  }
}

void NodeFormat::get(const std::byte* node, uint32_t p, void* dst, uint32_t len) const {
  LW_CHECK(p + len <= payload_bytes_);
  auto* d = static_cast<std::byte*>(dst);
  if (scheme_ != Scheme::kPerLine) {
    std::memcpy(d, node + byte_of(p), len);
    return;
  }
  while (len > 0) {
    const uint32_t n = std::min(len, kLinePayload - p % kLinePayload);
    std::memcpy(d, node + byte_of(p), n);
    d += n;
    p += n;
    len -= n;
  }
}

// A key occupies key_bytes: the uint64 then zero padding (put_key's caller
// has zeroed the image).
void NodeFormat::put_key(std::byte* node, uint32_t p, uint64_t key) const { put(node, p, &key, 8); }
uint64_t NodeFormat::get_key(const std::byte* node, uint32_t p) const {
  uint64_t k = 0;
  get(node, p, &k, 8);
  return k;
}

Node NodeFormat::empty_leaf() const {
  Node n;
  n.level = 0;
  if (!sorted_leaves()) n.entries.resize(leaf_capacity());
  return n;
}

void NodeFormat::encode(const Node& n, std::byte* out) const {
  std::memset(out, 0, node_bytes_);
  NodeHeader h{};
  h.low = n.low;
  h.high = n.high;
  h.sibling = n.sibling.raw();
  h.level = n.level;
  h.flags = n.free ? kFreeFlag : 0;
  h.version = n.version;
  LW_CHECK_MSG(n.low < n.high, "a node with empty fences");
  if (n.is_leaf()) {
    LW_CHECK(n.keys.empty() && n.children.empty());
    if (sorted_leaves()) {
      LW_CHECK(n.entries.size() <= leaf_capacity());
      h.count = static_cast<uint16_t>(n.entries.size());
      for (size_t i = 0; i < n.entries.size(); ++i) {
        const LeafEntry& e = n.entries[i];
        LW_CHECK_MSG(e.key != 0 && (i == 0 || n.entries[i - 1].key < e.key), "fg+ leaf entries must be sorted");
        put_key(out, slot_pos_[i], e.key);
        put(out, slot_pos_[i] + key_bytes_, &e.value, 8);
      }
    } else {
      LW_CHECK_MSG(n.entries.size() == leaf_capacity(), "an unsorted leaf has one entry per slot");
      for (size_t i = 0; i < n.entries.size(); ++i) {
        const LeafEntry& e = n.entries[i];
        const uint32_t p = slot_pos_[i];
        if (scheme_ == Scheme::kTwoLevel) {
          const uint8_t v = e.version & 0xf;
          put(out, p, &v, 1);
          put_key(out, p + 1, e.key);
          put(out, p + 1 + key_bytes_, &e.value, 8);
          put(out, p + 1 + key_bytes_ + 8, &v, 1);
        } else {
          put_key(out, p, e.key);
          put(out, p + key_bytes_, &e.value, 8);
        }
      }
    }
  } else {
    LW_CHECK(n.entries.empty());
    LW_CHECK_MSG(n.children.size() == n.keys.size() + 1 && n.keys.size() <= internal_capacity_,
                 "an internal node's shape");
    h.count = static_cast<uint16_t>(n.keys.size());
    uint64_t child = n.children[0].raw();
    put(out, kHeaderBytes, &child, 8);
    for (size_t i = 0; i < n.keys.size(); ++i) {
      LW_CHECK_MSG(n.low < n.keys[i] && n.keys[i] < n.high && (i == 0 || n.keys[i - 1] < n.keys[i]),
                   "internal keys sorted inside the fences");
      const uint32_t p = kHeaderBytes + 8 + static_cast<uint32_t>(i) * (key_bytes_ + 8);
      put_key(out, p, n.keys[i]);
      child = n.children[i + 1].raw();
      put(out, p + key_bytes_, &child, 8);
    }
  }
  put(out, 0, &h, sizeof h);
  switch (scheme_) {
    case Scheme::kTwoLevel: {
      const auto v = static_cast<std::byte>(n.version & 0xf);
      out[0] = v;
      out[node_bytes_ - 1] = v;
      break;
    }
    case Scheme::kPerLine:
      for (uint32_t l = 0; l < node_bytes_ / kCacheLine; ++l) std::memcpy(out + l * kCacheLine, &n.version, 2);
      break;
    case Scheme::kFgPlus: {
      const uint64_t crc = crc64(out, node_bytes_ - kCrcBytes);
      std::memcpy(out + node_bytes_ - kCrcBytes, &crc, kCrcBytes);
      break;
    }
  }
}

bool NodeFormat::decode(const std::byte* in, Node* n, std::string* why) const {
  auto fail = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  uint16_t version = 0;
  switch (scheme_) {
    case Scheme::kTwoLevel: {
      const auto fnv = static_cast<uint8_t>(in[0]), rnv = static_cast<uint8_t>(in[node_bytes_ - 1]);
      if (fnv != rnv) return fail("FNV " + std::to_string(fnv) + " != RNV " + std::to_string(rnv));
      break;
    }
    case Scheme::kPerLine: {
      std::memcpy(&version, in, 2);
      for (uint32_t l = 1; l < node_bytes_ / kCacheLine; ++l) {
        uint16_t v;
        std::memcpy(&v, in + l * kCacheLine, 2);
        if (v != version)
          return fail("line " + std::to_string(l) + " has version " + std::to_string(v) + ", line 0 " +
                      std::to_string(version));
      }
      break;
    }
    case Scheme::kFgPlus: {
      uint64_t stored;
      std::memcpy(&stored, in + node_bytes_ - kCrcBytes, kCrcBytes);
      if (stored != crc64(in, node_bytes_ - kCrcBytes)) return fail("CRC-64 mismatch");
      break;
    }
  }
  NodeHeader h;
  get(in, 0, &h, sizeof h);
  if (scheme_ == Scheme::kPerLine && h.version != version) return fail("header version differs from the lines'");
  if (scheme_ == Scheme::kTwoLevel && (h.version & 0xf) != static_cast<uint8_t>(in[0]))
    return fail("header version differs from FNV");
  if (h.low >= h.high) return fail("empty fences");
  if (h.level > 64) return fail("level " + std::to_string(h.level));
  n->level = h.level;
  n->free = (h.flags & kFreeFlag) != 0;
  n->low = h.low;
  n->high = h.high;
  n->sibling = RemoteAddr::from_raw(h.sibling);
  n->version = h.version;
  n->entries.clear();
  n->keys.clear();
  n->children.clear();
  if (h.level == 0) {
    if (sorted_leaves()) {
      if (h.count > leaf_capacity()) return fail("leaf count " + std::to_string(h.count));
      n->entries.resize(h.count);
      for (uint32_t i = 0; i < h.count; ++i) {
        LeafEntry& e = n->entries[i];
        e.key = get_key(in, slot_pos_[i]);
        get(in, slot_pos_[i] + key_bytes_, &e.value, 8);
        if (e.key == 0 || (i > 0 && n->entries[i - 1].key >= e.key)) return fail("fg+ leaf keys not sorted");
      }
    } else {
      if (h.count != 0) return fail("unsorted leaf with a count");
      n->entries.resize(leaf_capacity());
      for (uint32_t i = 0; i < leaf_capacity(); ++i) {
        LeafEntry& e = n->entries[i];
        const uint32_t p = slot_pos_[i];
        if (scheme_ == Scheme::kTwoLevel) {
          uint8_t fev = 0, rev = 0;
          get(in, p, &fev, 1);
          e.key = get_key(in, p + 1);
          get(in, p + 1 + key_bytes_, &e.value, 8);
          get(in, p + 1 + key_bytes_ + 8, &rev, 1);
          e.version = fev;
          e.torn = fev != rev;
        } else {
          e.key = get_key(in, p);
          get(in, p + key_bytes_, &e.value, 8);
        }
      }
    }
  } else {
    if (h.count > internal_capacity_) return fail("internal count " + std::to_string(h.count));
    uint64_t child = 0;
    get(in, kHeaderBytes, &child, 8);
    n->children.push_back(RemoteAddr::from_raw(child));
    for (uint32_t i = 0; i < h.count; ++i) {
      const uint32_t p = kHeaderBytes + 8 + i * (key_bytes_ + 8);
      const uint64_t k = get_key(in, p);
      if (!(h.low < k && k < h.high) || (i > 0 && n->keys.back() >= k))
        return fail("internal keys not sorted inside the fences");
      n->keys.push_back(k);
      get(in, p + key_bytes_, &child, 8);
      n->children.push_back(RemoteAddr::from_raw(child));
    }
    for (RemoteAddr c : n->children)
      if (c.is_null()) return fail("internal node with a null child");
  }
  return true;
}

uint32_t NodeFormat::entry_offset(uint32_t slot) const {
  LW_CHECK(!sorted_leaves() && slot < slot_pos_.size());
  return byte_of(slot_pos_[slot]);
}

uint32_t NodeFormat::entry_bytes() const {
  return scheme_ == Scheme::kTwoLevel ? key_bytes_ + 10 : key_bytes_ + 8;
}

bool NodeFormat::entry_writable(uint32_t slot) const {
  switch (scheme_) {
    case Scheme::kTwoLevel: return true;
    case Scheme::kPerLine: {
      const uint32_t p = slot_pos_.at(slot);
      return p % kLinePayload + entry_bytes() <= kLinePayload;
    }
    case Scheme::kFgPlus: return false;
  }
  return false;
}

LeafEntry NodeFormat::decode_entry(const std::byte* in) const {
  LW_CHECK(scheme_ == Scheme::kPerLine);
  LeafEntry e;
  std::memcpy(&e.key, in, 8);
  std::memcpy(&e.value, in + key_bytes_, 8);
  return e;
}

}  // namespace lw::sherman
