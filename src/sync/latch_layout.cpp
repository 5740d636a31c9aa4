#include "latchwork/sync/latch_layout.h"

#include "latchwork/base/assert.h"

namespace lw {

const char* to_string(LatchLayout l) {
  switch (l) {
    case LatchLayout::kHeader: return "header";
    case LatchLayout::kFooter: return "footer";
    case LatchLayout::kPadded: return "padded";
    case LatchLayout::kDecoupled: return "decoupled";
  }
  return "?";
}

bool parse_latch_layout(std::string_view name, LatchLayout* out) {
  for (auto l : {LatchLayout::kHeader, LatchLayout::kFooter, LatchLayout::kPadded, LatchLayout::kDecoupled})
    if (name == to_string(l)) {
      *out = l;
      return true;
    }
  return false;
}

TupleLayout::TupleLayout(LatchLayout layout, uint32_t data_bytes)
    : layout_(layout), data_bytes_(data_bytes) {
  LW_CHECK_MSG(data_bytes > 0 && data_bytes % kWord == 0, "tuple data is whole words");
  const uint64_t body = layout == LatchLayout::kDecoupled ? data_bytes : uint64_t{data_bytes} + kWord;
  stride_ = body + (layout == LatchLayout::kPadded ? kWord : 0);
}

RemoteAddr TupleLayout::latch(RemoteAddr region, RemoteAddr latch_array, uint64_t i) const {
  switch (layout_) {
    case LatchLayout::kHeader: return region + i * stride_;
    case LatchLayout::kFooter: return region + i * stride_ + data_bytes_;
    case LatchLayout::kPadded: return region + i * stride_ + kWord;
    case LatchLayout::kDecoupled: return latch_array + i * kWord;
  }
  return {};
}

RemoteAddr TupleLayout::data(RemoteAddr region, uint64_t i) const {
  switch (layout_) {
    case LatchLayout::kHeader: return region + i * stride_ + kWord;
    case LatchLayout::kFooter: return region + i * stride_;
    case LatchLayout::kPadded: return region + i * stride_ + 2 * kWord;
    case LatchLayout::kDecoupled: return region + i * stride_;
  }
  return {};
}

}  // namespace lw
