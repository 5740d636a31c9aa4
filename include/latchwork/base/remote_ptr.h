// Addresses in disaggregated memory.
//
// A remote address names a byte on a memory node:
//
//   bit 63          48 47                                   0
//      +-------------+--------------------------------------+
//      |  node (16)  |            offset (48)               |
//      +-------------+--------------------------------------+
//
// Offset 0 of every node is reserved, so the all-zero address is null and a
// default-constructed pointer can never alias real data.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>

namespace lw {

using NodeId = uint16_t;

class RemoteAddr {
 public:
  static constexpr int kOffsetBits = 48;
  static constexpr uint64_t kOffsetMask = (uint64_t{1} << kOffsetBits) - 1;

  constexpr RemoteAddr() = default;
  constexpr RemoteAddr(NodeId node, uint64_t offset)
      : raw_((uint64_t{node} << kOffsetBits) | (offset & kOffsetMask)) {}

  static constexpr RemoteAddr from_raw(uint64_t raw) {
    RemoteAddr a;
    a.raw_ = raw;
    return a;
  }

  constexpr NodeId node() const { return static_cast<NodeId>(raw_ >> kOffsetBits); }
  constexpr uint64_t offset() const { return raw_ & kOffsetMask; }
  constexpr uint64_t raw() const { return raw_; }
  constexpr bool is_null() const { return raw_ == 0; }
  constexpr explicit operator bool() const { return !is_null(); }

  // Byte arithmetic stays on the same node.
  constexpr RemoteAddr operator+(uint64_t bytes) const { return {node(), offset() + bytes}; }
  constexpr RemoteAddr operator-(uint64_t bytes) const { return {node(), offset() - bytes}; }

  constexpr auto operator<=>(const RemoteAddr&) const = default;

  std::string to_string() const;

 private:
  uint64_t raw_ = 0;
};
static_assert(sizeof(RemoteAddr) == 8);

// A typed remote address. Arithmetic moves by sizeof(T) like a C pointer.
template <typename T>
class RemotePtr {
 public:
  constexpr RemotePtr() = default;
  constexpr explicit RemotePtr(RemoteAddr addr) : addr_(addr) {}
  constexpr RemotePtr(NodeId node, uint64_t offset) : addr_(node, offset) {}

  constexpr RemoteAddr addr() const { return addr_; }
  constexpr NodeId node() const { return addr_.node(); }
  constexpr uint64_t offset() const { return addr_.offset(); }
  constexpr bool is_null() const { return addr_.is_null(); }
  constexpr explicit operator bool() const { return !is_null(); }

  constexpr RemotePtr operator+(int64_t n) const {
    return RemotePtr(addr_ + static_cast<uint64_t>(n * static_cast<int64_t>(sizeof(T))));
  }
  constexpr RemotePtr operator-(int64_t n) const { return *this + (-n); }
  constexpr RemotePtr& operator+=(int64_t n) { return *this = *this + n; }

  // Reinterpret as another type at the same address (like reinterpret_cast).
  template <typename U>
  constexpr RemotePtr<U> cast() const { return RemotePtr<U>(addr_); }

  constexpr auto operator<=>(const RemotePtr&) const = default;

 private:
  RemoteAddr addr_;
};

}  // namespace lw
