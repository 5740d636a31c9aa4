// `latchwork check`: runs a structure under one synchronization scheme over
// many seeds on the simulator, records a history (every write stores a
// unique value that fills the payload), and checks it: every read returned a
// whole value that was current at some instant during the read, exclusive
// latch holds never overlapped, and no operation gave up on a latch that was
// never released. Each violation is explained by the RDMA relaxations the
// simulator applied to the operations involved, with a replay command.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "latchwork/check/history.h"
#include "latchwork/config/cluster_config.h"
#include "latchwork/structures/tuple_store.h"

namespace lw {

struct CheckOptions {
  std::string structure = "tuples";   // tuples | btree
  std::string scheme = "versioning";  // a tuple_scheme_names() or btree_check_scheme_names() entry
  uint32_t tuple_bytes = 256;
  uint32_t keys = 4;            // few keys: writers and readers meet
  uint32_t ops_per_worker = 30;
  uint32_t read_percent = 50;
  uint32_t max_attempts = 400;  // latch and validation retries before giving up
  std::string validate() const;
  // validate(), and the seeds' cluster built from `base` is valid, its queue
  // pairs hold the scheme's outstanding work requests and the structure fits
  // in its memory (a dry run of the set-up): "" or a message (exit 2).
  std::string validate(const ClusterConfig& base) const;
};

struct CheckFinding {
  std::string kind;         // torn-read, stale-read, ..., stuck-latch
  std::string detail;       // what the history shows
  std::vector<std::string> relaxations;  // switch names that acted on it
  std::vector<std::string> causes;       // what they did, e.g. "READ ... fetched line 3 before line 0"
};

struct CheckSeedResult {
  uint64_t seed = 0;
  uint64_t ops = 0;
  uint64_t gave_up = 0;
  uint64_t trace_hash = 0;
  std::vector<CheckFinding> findings;
};

// One seed: `base` gives the backend and semantics; the cluster shape is the
// check's own (2 compute nodes x 2 threads x 2 coroutines, 1 memory node).
// The seed also picks how wide the relaxations' windows are (a READ's fetch
// spread 0.8-30 us, an atomic's window 0.15-3 us), which the contract leaves
// unbounded.
CheckSeedResult run_check_seed(const ClusterConfig& base, const CheckOptions& o, uint64_t seed);

// The B-tree (structure "btree"): 256-byte nodes so that splits race the
// lookups; schemes btree-optimistic and btree-pessimistic.
inline const std::vector<std::string>& btree_check_scheme_names() {
  static const std::vector<std::string> names = {"btree-optimistic", "btree-pessimistic"};
  return names;
}
CheckSeedResult run_btree_check_seed(const ClusterConfig& base, const CheckOptions& o, uint64_t seed);

}  // namespace lw
