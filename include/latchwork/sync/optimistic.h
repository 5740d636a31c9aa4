// Optimistic synchronisation of a remote block (Jasny et al. §4, Figs. 12-13).
//
// Writers latch the block exclusively; readers do not latch but validate what
// they read with one of four consistency checks. Every block starts with the
// latch/version word, changed only by CAS:
//
//   bit 63                                        1   0
//      +-------------------------------------------+---+
//      |                 version                   | L |   L = latched
//      +-------------------------------------------+---+
//
// Block layouts (B = block bytes, a multiple of 64, 64-byte aligned):
//
//   versioning  | word | payload .............................. |
//               0      8                                         B
//     reader: READ word; READ payload; READ word again (three READs, in
//     sequence); valid if the word was unlatched and unchanged. Correct.
//
//   crc64       | word | payload ........................ | crc |
//               0      8                                B-8     B
//     reader: one READ; valid if unlatched and crc64(payload) matches.
//     Correct with high probability.
//
//   farm        | word | 56 B data | ver | 56 B data | ver | 56 B data | ...
//               0      8           64    72          128   136
//     every line starts with a version word; reader: one READ, valid if the
//     block is unlatched and all line versions equal the word's version.
//     Correct: a line is written atomically, with its version.
//
//   bookend     | word | payload ........................ | tail |
//               0      8                                B-8      B
//     reader: one READ, valid if unlatched and version == tail. Broken for
//     blocks over two lines: the lines of a READ may be fetched out of order
//     (Fig. 1). Kept as a negative control.
//
// Writer (all schemes): CAS word v|0 -> v|1; WRITE bytes 8..B with the new
// payload and metadata of version v+1; CAS word v|1 -> (v+1)|0.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "latchwork/base/remote_ptr.h"
#include "latchwork/sync/retry.h"

namespace lw {

enum class ConsistencyScheme : uint8_t { kVersioning, kCrc64, kFarm, kBookend };

const char* to_string(ConsistencyScheme s);
bool parse_scheme(std::string_view name, ConsistencyScheme* out);
// Whether the scheme detects every torn read (bookend does not).
constexpr bool scheme_is_correct(ConsistencyScheme s) { return s != ConsistencyScheme::kBookend; }

struct VersionWord {
  static constexpr uint64_t kLatched = 1;
  static constexpr uint64_t make(uint64_t version, bool latched) {
    return (version << 1) | (latched ? kLatched : 0);
  }
  static constexpr uint64_t version(uint64_t w) { return w >> 1; }
  static constexpr bool latched(uint64_t w) { return w & kLatched; }
};

// Where the payload lives inside a block of a given scheme.
class OptimisticLayout {
 public:
  OptimisticLayout(ConsistencyScheme scheme, uint32_t block_bytes);

  ConsistencyScheme scheme() const { return scheme_; }
  uint32_t block_bytes() const { return block_bytes_; }
  // Payload bytes a block holds.
  uint32_t payload_bytes() const { return payload_bytes_; }
  static bool valid_block_size(uint32_t block_bytes) {
    return block_bytes >= kCacheLine && block_bytes % kCacheLine == 0;
  }

  // Builds the block image (bytes 8..B-1 live at image[8..]) for version
  // `version`; image[0..8) receives the unlatched word of that version.
  void encode(uint64_t version, std::span<const std::byte> payload, std::span<std::byte> image) const;
  // Checks a block image read in one piece (schemes other than versioning).
  // Returns true if it passes the scheme's check, and extracts the payload.
  bool decode(std::span<const std::byte> image, std::span<std::byte> payload) const;
  // Extracts the payload without judging it (for ground-truth checks).
  void extract(std::span<const std::byte> image, std::span<std::byte> payload) const;

 private:
  ConsistencyScheme scheme_;
  uint32_t block_bytes_;
  uint32_t payload_bytes_;
};

// One remote block, synchronised optimistically.
class OptimisticBlock {
 public:
  OptimisticBlock(ConsistencyScheme scheme, RemoteAddr base, uint32_t block_bytes)
      : layout_(scheme, block_bytes), base_(base) {}

  const OptimisticLayout& layout() const { return layout_; }
  RemoteAddr addr() const { return base_; }

  // Latches, writes the payload (payload_bytes() long), unlatches.
  Task<Status> write(Worker& w, std::span<const std::byte> payload,
                     const RetryPolicy& policy = {}) const;

  // Publishes `payload` as `version` when this worker is the block's only
  // writer, without a latch, as in Jasny et al. Fig. 1: one WRITE of the whole
  // block (header, payload, trailer in address order). Versioning, whose
  // readers trust the word they read first, marks the word latched in a
  // WRITE before the data and unlatched after it, all posted as one batch on
  // one queue pair (WRITEs execute in order).
  Task<Status> write_single_writer(Worker& w, uint64_t version,
                                   std::span<const std::byte> payload) const;

  // Latches, reads the payload, lets `modify` change it, writes, unlatches:
  // a read-modify-write under the exclusive latch.
  Task<Status> update(Worker& w, const std::function<void(std::span<std::byte>)>& modify,
                      const RetryPolicy& policy = {}) const;

  struct Attempt {
    Status status = Status::kOk;
    bool valid = false;  // the scheme's check passed
  };
  // One optimistic read, no retry: fills `payload` and says whether it is
  // valid. `image` is scratch of block_bytes().
  Task<Attempt> try_read(Worker& w, std::span<std::byte> payload, std::span<std::byte> image) const;
  // Retries until a read validates (bounded by the policy). This is the
  // consistent read of §6: the data is whole, nothing more is promised.
  Task<Status> read(Worker& w, std::span<std::byte> payload, const RetryPolicy& policy = {}) const;
  // Latch semantics (§4.1, Fig. 13): after a read passes its check, READ the
  // word once more and accept only if it is unchanged, so that what the
  // caller did with the data is known to have happened while the block did
  // not change. One more round trip, except for versioning, whose third READ
  // already is that validation.
  Task<Status> read_validated(Worker& w, std::span<std::byte> payload,
                              const RetryPolicy& policy = {}) const;

 private:
  // CAS v|0 -> v|1; returns the latched word's version through *version.
  Task<Status> latch(Worker& w, uint64_t* version, const RetryPolicy& policy) const;
  // Writes `payload` as version+1 and unlatches.
  Task<Status> publish(Worker& w, uint64_t version, std::span<const std::byte> payload) const;

  OptimisticLayout layout_;
  RemoteAddr base_;
};

}  // namespace lw
