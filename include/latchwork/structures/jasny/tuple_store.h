// A NAM-DB-like remote tuple store: fixed-size tuples spread round-robin over
// the memory nodes (key k lives on node k % M, slot k / M), read and written
// one-sidedly under one synchronization scheme of Jasny et al.
//
// Each scheme lays a tuple of `tuple_bytes` out its own way (see the sync
// headers) and exposes payload_bytes() of it to the user:
//
//   pessimistic-*      latch word + data (LatchLayout decides where the latch sits)
//   versioning/crc64/farm/bookend   an OptimisticBlock of tuple_bytes; reads validate
//                                   the version once more at the end (§4, Fig. 13)
//   crc64-relaxed/farm-relaxed      the same without that final READ (§6)
//   reversed-write-unlatch          payload + version word (one WRITE unlatches)
//   out-of-place       slot word -> immutable records of tuple_bytes
//   in-place-marking   mark word + payload (broken: a negative control)
//   switch-optimistic  header word + payload; the version lives on the
//                      programmable switch (sync/switch_latched.h, §5.5)
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "latchwork/sync/latch_layout.h"
#include "latchwork/sync/optimistic.h"
#include "latchwork/sync/pessimistic_tuple.h"
#include "latchwork/sync/switch_latched.h"
#include "latchwork/verbs/backend.h"

namespace lw {

enum class TupleScheme : uint8_t {
  kPessimistic,
  kOptimistic,            // OptimisticBlock with `consistency`
  kReversedWriteUnlatch,
  kOutOfPlace,
  kInPlaceMarking,
  kSwitchOptimistic,      // needs the simulator's switch running optimistic-latching
};

struct TupleStoreOptions {
  TupleScheme scheme = TupleScheme::kPessimistic;
  LatchOptimization optimization = LatchOptimization::kAsyncUnlatch;  // pessimistic
  LatchLayout layout = LatchLayout::kHeader;                          // pessimistic
  LatchMode mode = LatchMode::kReaderWriter;                          // pessimistic
  ConsistencyScheme consistency = ConsistencyScheme::kVersioning;     // optimistic
  // Optimistic reads: false = latch semantics (a final version READ, §4);
  // true = the consistent read of §6 without it.
  bool relaxed_read = false;
  uint32_t tuple_bytes = 256;   // a multiple of 64, 64 B to 16 KB
  uint64_t tuples = 1024;
  // Out-of-place: fresh records each writer may use (never reused).
  uint64_t records_per_writer = 0;
  uint32_t writers = 0;

  std::string validate() const;
};

// The named schemes of `latchwork check` (and the workloads): e.g.
// "pessimistic-async", "write-unlatch-faa", "versioning", "in-place-marking".
const std::vector<std::string>& tuple_scheme_names();
std::string parse_tuple_scheme(const std::string& name, TupleStoreOptions* inout);
// Whether the named scheme is correct (the negative controls are not).
bool tuple_scheme_is_correct(const std::string& name);
// Whether the named scheme is correct only where a failed NIC CAS writes
// nothing back (Semantics::failed_cas_writes_back off): it frees a word that
// others CAS with a WRITE.
bool tuple_scheme_needs_silent_failed_cas(const std::string& name);
// Adds what the named scheme needs to a cluster (the switch and its program
// for switch-optimistic); leaves other schemes' clusters alone.
void tuple_scheme_prepare_cluster(const std::string& name, ClusterConfig* c);

class TupleStore {
 public:
  // Allocates and initialises every tuple (payload all zero, version 0).
  static std::string create(Backend& backend, const TupleStoreOptions& options,
                            std::unique_ptr<TupleStore>* out);

  const TupleStoreOptions& options() const { return o_; }
  uint32_t payload_bytes() const { return payload_bytes_; }
  // The bytes a key occupies in its region, [first, first + second): the
  // tuple with its latch and metadata (for out-of-place, the slot word).
  std::pair<RemoteAddr, uint64_t> key_range(uint64_t key) const { return {tuple(key), stride_}; }

  // Host-side, after run(): "" when the latch or lock word guarding `key`
  // (whichever the scheme has: latch, version, mark or slot word, or the
  // switch's version register) is free, else which word is taken and its
  // value. Tells a latch never released from operations that starved.
  std::string latch_state(Backend& backend, uint64_t key) const;

  Task<Status> read(Worker& w, uint64_t key, std::span<std::byte> payload,
                    const RetryPolicy& policy = {}) const;
  // `writer` indexes the caller's out-of-place records (0 .. writers-1).
  Task<Status> write(Worker& w, uint64_t key, std::span<const std::byte> payload, uint32_t writer,
                     HoldTimes* hold = nullptr, const RetryPolicy& policy = {});

 private:
  explicit TupleStore(const TupleStoreOptions& o);
  RemoteAddr tuple(uint64_t key) const;
  LatchedTuple latched(uint64_t key) const;
  SwitchLatchedTuple switch_latched(uint64_t key) const;

  TupleStoreOptions o_;
  uint32_t payload_bytes_ = 0;
  uint32_t memory_nodes_ = 1;
  TupleLayout layout_;
  std::vector<RemoteAddr> regions_;       // per memory node
  std::vector<RemoteAddr> latch_arrays_;  // per memory node (decoupled layout)
  std::vector<RemoteAddr> switch_versions_;  // per memory node: its tuples' registers
  uint64_t stride_ = 0;                   // of non-pessimistic schemes
  // Out-of-place records: per writer a base and how many it used.
  std::vector<RemoteAddr> record_pools_;
  std::vector<uint64_t> records_used_;
};

}  // namespace lw
