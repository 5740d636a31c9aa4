// TupleStore::latch_state: whether a key's latch or lock word is still taken
// after a run, read host-side. Each scheme keeps its "taken" bit elsewhere.
#include <cstdio>

#include "latchwork/base/hex.h"
#include "latchwork/structures/jasny/tuple_store.h"
#include "latchwork/sync/exclusive_latch.h"
#include "latchwork/sync/optimistic_variants.h"

namespace lw {
namespace {

std::string taken(uint64_t key, const char* word, RemoteAddr at, uint64_t v, const std::string& why) {
  return "key " + std::to_string(key) + "'s " + word + " at " + at.to_string() + " is " + hex(v) + " (" +
         why + ")";
}

// A reader/writer latch word: bit 0 exclusive, readers in steps of 2. A
// count near 2^63 is an underflow (a reader's FAA(-2) after its +2 was lost).
std::string rw_why(uint64_t v) {
  const uint64_t readers = v / RwLatch::kReader;
  std::string why = (v & RwLatch::kExclusive) ? "held exclusively" : "";
  if (readers > 0) {
    if (!why.empty()) why += ", ";
    why += readers > (uint64_t{1} << 62) ? "reader count underflowed" : std::to_string(readers) + " reader(s)";
  }
  return why;
}

}  // namespace

std::string TupleStore::latch_state(Backend& b, uint64_t key) const {
  switch (o_.scheme) {
    case TupleScheme::kPessimistic: {
      const RemoteAddr at = latched(key).latch;
      const uint64_t v = b.host_load(at);
      if (v == 0) return {};
      return taken(key, "latch word", at, v, o_.mode == LatchMode::kReaderWriter ? rw_why(v) : "held");
    }
    case TupleScheme::kOptimistic: {
      const uint64_t v = b.host_load(tuple(key));
      if (!VersionWord::latched(v)) return {};
      return taken(key, "version word", tuple(key), v, "latched");
    }
    case TupleScheme::kReversedWriteUnlatch: {
      const RemoteAddr at = ReversedVersionTuple{tuple(key), payload_bytes_}.word();
      const uint64_t v = b.host_load(at);
      if (!VersionWord::latched(v)) return {};
      return taken(key, "version word", at, v, "latched");
    }
    case TupleScheme::kOutOfPlace: {
      const uint64_t v = b.host_load(tuple(key));
      if ((v & OutOfPlaceSlot::kMark) == 0) return {};
      return taken(key, "slot word", tuple(key), v, "marked: an update in progress");
    }
    case TupleScheme::kInPlaceMarking: {
      const uint64_t v = b.host_load(tuple(key));
      if (v == 0) return {};
      return taken(key, "mark word", tuple(key), v, "marked");
    }
    case TupleScheme::kSwitchOptimistic: {
      const RemoteAddr at = switch_latched(key).version;
      const uint64_t v = b.host_load(at);
      if ((v & 1) == 0) return {};
      return taken(key, "switch version register", at, v, "odd: latched");
    }
  }
  return {};
}

}  // namespace lw
