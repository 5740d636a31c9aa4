#include "latchwork/base/status.h"

namespace lw {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kOutOfBounds: return "out_of_bounds";
    case Status::kMisaligned: return "misaligned";
    case Status::kUnregistered: return "unregistered";
    case Status::kWrongNode: return "wrong_node";
    case Status::kBadLength: return "bad_length";
    case Status::kQueueFull: return "queue_full";
    case Status::kFlushed: return "flushed";
    case Status::kRetryExhausted: return "retry_exhausted";
    case Status::kUnsupported: return "unsupported";
    case Status::kTransport: return "transport";
  }
  return "unknown";
}

}  // namespace lw
