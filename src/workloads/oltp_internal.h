// Shared by the OLTP workloads (tpcc.cpp, smallbank.cpp, tatp.cpp,
// tpce.cpp): payload field access, deterministic load values, the
// factories oltp.cpp dispatches to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "latchwork/base/random.h"
#include "latchwork/txn/workload.h"
#include "latchwork/workloads/oltp.h"

namespace lw::workloads::oltp_detail {

// Fields are 8-byte little-endian words at byte offsets of a payload.
inline uint64_t get(std::span<const std::byte> p, size_t off) {
  uint64_t v = 0;
  std::memcpy(&v, p.data() + off, sizeof v);
  return v;
}
inline int64_t get_signed(std::span<const std::byte> p, size_t off) { return static_cast<int64_t>(get(p, off)); }
inline void put(std::span<std::byte> p, size_t off, uint64_t v) { std::memcpy(p.data() + off, &v, sizeof v); }
inline void put_signed(std::span<std::byte> p, size_t off, int64_t v) { put(p, off, static_cast<uint64_t>(v)); }

// A value of the initial data that depends only on (table, key, field):
// loads need no Rng and are the same on every process.
inline uint64_t load_value(uint32_t table, uint64_t key, uint32_t field) {
  uint64_t s = (uint64_t{table} << 56) ^ (uint64_t{field} << 48) ^ key;
  splitmix64(s);
  return splitmix64(s);
}

// A payload under construction for the loader.
class Row {
 public:
  explicit Row(uint32_t bytes) : bytes_(bytes, std::byte{0}) {}
  Row& set(size_t off, uint64_t v) {
    put(bytes_, off, v);
    return *this;
  }
  std::span<const std::byte> span() const { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

inline void push(txn::TxnInput& in, uint64_t v) { in.args.at(in.nargs++) = v; }

// Index of `x` in a mix of percentages (sums to 100): which type was drawn.
inline uint32_t pick_type(Rng& rng, std::span<const uint32_t> percents) {
  uint64_t r = rng.below(100);
  for (uint32_t i = 0; i < percents.size(); ++i) {
    if (r < percents[i]) return i;
    r -= percents[i];
  }
  return static_cast<uint32_t>(percents.size() - 1);
}

// Host-side read of a record's primary for check(): false when absent.
inline bool host_payload(const txn::Store& s, txn::TableId t, uint64_t key, std::vector<std::byte>* payload,
                         txn::RecordView* view = nullptr) {
  payload->assign(s.payload_bytes(t), std::byte{0});
  txn::RecordView v;
  if (!s.host_read(t, key, 0, &v, *payload)) return false;
  if (view) *view = v;
  return true;
}

std::unique_ptr<txn::TxnWorkload> make_tpcc(const OltpOptions& o);
std::unique_ptr<txn::TxnWorkload> make_smallbank(const OltpOptions& o);
std::unique_ptr<txn::TxnWorkload> make_tatp(const OltpOptions& o);
std::unique_ptr<txn::TxnWorkload> make_tpce(const OltpOptions& o);

}  // namespace lw::workloads::oltp_detail
