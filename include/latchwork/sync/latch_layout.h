// Where a tuple's 8-byte latch lives relative to its data (Jasny et al. §3.2,
// Fig. 6). Tuples of one region sit back to back at a fixed stride.
//
//   header     | L | data ........ | L | data ........ |       latch first
//   footer     | data ........ | L | data ........ | L |       latch last: a WRITE of
//                                                              data + latch unlatches
//                                                              (write unlatch, §3.3)
//   padded     | pad | L | data ........ | pad | L | ...        8 more bytes per stride,
//                                                              so latch addresses differ
//                                                              in their low 12 bits
//                                                              (the NIC's lock-table slot)
//   decoupled  latches | L | L | L | ... |                     latches back to back in an
//              data    | data .. | data .. | ...               array of their own
//
// The stride is 8 + data bytes rounded up to 8 (plus 8 when padded), so a
// 4088-byte tuple with a header makes 4 KB-aligned latches (Fig. 6(b)(i)).
#pragma once

#include <cstdint>
#include <string_view>

#include "latchwork/base/layout.h"
#include "latchwork/base/remote_ptr.h"

namespace lw {

enum class LatchLayout : uint8_t { kHeader, kFooter, kPadded, kDecoupled };
const char* to_string(LatchLayout l);
bool parse_latch_layout(std::string_view name, LatchLayout* out);

class TupleLayout {
 public:
  TupleLayout(LatchLayout layout, uint32_t data_bytes);

  LatchLayout layout() const { return layout_; }
  uint32_t data_bytes() const { return data_bytes_; }
  uint64_t stride() const { return stride_; }
  // Bytes of the tuple region, and of the separate latch array (decoupled only).
  uint64_t region_bytes(uint64_t tuples) const { return tuples * stride_; }
  uint64_t latch_array_bytes(uint64_t tuples) const {
    return layout_ == LatchLayout::kDecoupled ? tuples * kWord : 0;
  }
  RemoteAddr latch(RemoteAddr region, RemoteAddr latch_array, uint64_t i) const;
  RemoteAddr data(RemoteAddr region, uint64_t i) const;
  // Whether the latch directly follows the data (one WRITE covers both).
  bool latch_follows_data() const { return layout_ == LatchLayout::kFooter; }

 private:
  LatchLayout layout_;
  uint32_t data_bytes_;
  uint64_t stride_;
};

}  // namespace lw
