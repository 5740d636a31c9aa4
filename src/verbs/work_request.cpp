#include "latchwork/verbs/work_request.h"

namespace lw {

const char* to_string(Opcode op) {
  switch (op) {
    case Opcode::kRead: return "READ";
    case Opcode::kWrite: return "WRITE";
    case Opcode::kCas: return "CAS";
    case Opcode::kFaa: return "FAA";
    case Opcode::kMaskedCas: return "MASKED_CAS";
    case Opcode::kMaskedFaa: return "MASKED_FAA";
  }
  return "?";
}

uint64_t masked_add(uint64_t old, uint64_t add, uint64_t field_mask) {
  if (field_mask == 0) return old + add;
  uint64_t result = 0;
  int low = 0;
  for (int bit = 0; bit < 64; ++bit) {
    const bool top = ((field_mask >> bit) & 1) || bit == 63;
    if (!top) continue;
    const int width = bit - low + 1;
    const uint64_t mask = width == 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1) << low;
    result |= ((old & mask) + (add & mask)) & mask;
    low = bit + 1;
  }
  return result;
}

bool apply_atomic(const WorkRequest& wr, uint64_t old, uint64_t* new_value) {
  switch (wr.opcode) {
    case Opcode::kCas:
      if (old != wr.compare) return false;
      *new_value = wr.operand;
      return true;
    case Opcode::kFaa:
      *new_value = old + wr.operand;
      return true;
    case Opcode::kMaskedCas:
      if ((old & wr.compare_mask) != (wr.compare & wr.compare_mask)) return false;
      *new_value = (old & ~wr.swap_mask) | (wr.operand & wr.swap_mask);
      return true;
    case Opcode::kMaskedFaa:
      *new_value = masked_add(old, wr.operand, wr.field_mask);
      return true;
    case Opcode::kRead:
    case Opcode::kWrite:
      break;
  }
  return false;
}

}  // namespace lw
