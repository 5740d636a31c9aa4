// The built-in structures as check workloads of the public driver
// (driver.h): the tuple store under every synchronization scheme of Jasny et
// al., the B+-tree under optimistic and pessimistic lock coupling, and the
// RACE hash table with the SMART runtime's policies off (race) and on
// (smart-ht).
//
// Every write stores a value unique to that write (tuples: in every payload
// word), so the register model (history.h) sees torn, stale and future
// reads; exclusive latch holds go to the hold model; operations that give up
// are told apart by the driver as starvation (every latch free afterwards,
// a report) or a stuck latch (a failure). The hash table records into the
// map model (lookups of absent keys, removes) and checks its final contents
// by a full scan. The lock table (locks/lock.h: alock, spin, mcs and three
// broken variants) runs on memory-node threads of symmetric nodes, records
// its holds, increments a counter in every hold and checks bounded bypass
// (builtin_locks.cpp states the bounds). `latchwork check` runs these.
//
//   lw::check::BuiltinOptions b;
//   b.scheme = "bookend";
//   lw::check::Options o = lw::check::builtin_check_options(b, lw::check::Options::default_cluster());
//   if (std::string e = b.validate(o); !e.empty()) ...;
//   lw::check::Report r = lw::check::run(lw::check::builtin_workload(b), o);
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "latchwork/check/driver.h"
#include "latchwork/check/explore_workload.h"
#include "latchwork/config/cluster_config.h"

namespace lw::check {

// One built-in structure under one scheme.
struct BuiltinInfo {
  std::string structure;    // "tuples" | "btree" | "hash" | "locks"
  std::string scheme;       // the --scheme name
  bool correct = true;      // false: a negative control, expected to fail
  std::string description;  // one line
  // Correct only where a failed NIC CAS writes nothing back: it frees a word
  // that others CAS with a WRITE (tuple_scheme_needs_silent_failed_cas).
  bool needs_silent_failed_cas = false;
  // Whether a sweep under `s` should find nothing: `correct`, unless the
  // scheme needs a silent failed CAS and `s` has failed_cas_writes_back.
  bool correct_under(const Semantics& s) const {
    return correct && !(needs_silent_failed_cas && s.failed_cas_writes_back);
  }
};
// Every built-in, tuples first, in the order `--scheme all` runs them.
const std::vector<BuiltinInfo>& builtins();
// The entry of (structure, scheme), or null.
const BuiltinInfo* find_builtin(const std::string& structure, const std::string& scheme);
// The schemes of one structure, in registry order.
std::vector<std::string> builtin_schemes(const std::string& structure);
// What a locks scheme needs of the semantics, for sweeps and exhaustive runs
// alike: spin-write-unlock shows a relaxation no profile turns on
// (failed_cas_writes_back), so it is turned on wherever WRITEs may be lost
// to atomics (atomic_loses_write). Other schemes: unchanged.
void lock_scheme_prepare_semantics(const std::string& scheme, Semantics* s);
// "the locks structure takes the schemes alock, spin, ... and alock-no-victim"
// (registry order), for usage errors.
std::string builtin_schemes_message(const std::string& structure);

struct BuiltinOptions {
  std::string structure = "tuples";   // tuples | btree | hash | locks
  std::string scheme = "versioning";  // a builtins() scheme of that structure
  uint32_t tuple_bytes = 256;         // tuples only
  uint32_t keys = 4;                  // few keys: writers and readers meet (btree: 200 is usual)
  uint32_t read_percent = 50;
  uint32_t max_attempts = 400;        // latch, validation or CAS retries before an operation gives up
                                      // (locks: wait-loop iterations; latchwork check uses 200,000)
  uint32_t local_percent = 50;        // locks: share of lock() calls on a lock of the worker's own node
  // The options alone: "" or a message.
  std::string validate() const;
  // validate(), and the cluster a seed of `o` runs on (its shape applied)
  // is valid, its queue pairs hold the scheme's outstanding work requests,
  // and the structure fits in its memory for o.shape (a dry run of the
  // set-up): "" or a message.
  std::string validate(const Options& o) const;
};

// The memory nodes of a built-in check: small, so that a store too large
// for them is refused (as a message) before any seed runs.
inline constexpr uint64_t kBuiltinMemoryNodeBytes = 8ull << 20;

// Driver options for a built-in on `base` (backend, semantics, memory node
// count, switch and budget come from it): the scheme's hardware (the switch
// for switch-optimistic; two memory nodes at least and the SMART policies of
// the scheme for hash; two memory nodes at least for locks),
// kBuiltinMemoryNodeBytes per memory node, first seed base.seed. The shape
// stays the default (2 x 2 x 2 workers; locks: 1 x 1 x 1 compute workers and
// 2 threads per memory node, which the locks need at least); set it after.
Options builtin_check_options(const BuiltinOptions& b, const ClusterConfig& base);

// Tuples: the bytes key `key` occupies (tuple, latch, metadata) in the run
// of finding `f` under `o`, for trace(..., lo, bytes); {null, 0} for the
// B-tree, whose entries move between nodes, the hash table, whose blocks are
// out of place, or a key out of range.
std::pair<RemoteAddr, uint64_t> builtin_key_range(const BuiltinOptions& b, const Options& o, const Finding& f,
                                                  uint64_t key);

// Makes a fresh workload per run. b must validate().
WorkloadFactory builtin_workload(const BuiltinOptions& b);

// Exhaustive exploration of a built-in (explore_workload.h) at its small
// scope: the cluster of builtin_check_options, 2 compute workers (one node,
// two threads) x 2 operations, program seeds 1..4 (`latchwork check
// --exhaustive`); Sherman's tree: 2 compute nodes x 1 thread x 1 operation
// (its per-compute-node lock table and cache are not state). Set shape and
// seeds after for another scope. Locks have their own explorer
// (explore_locks.h). Hash tables and Sherman allocate blocks by RPC, which
// the explorer serves with the node's handler.
WorkloadExploreOptions builtin_explore_options(const BuiltinOptions& b, const ClusterConfig& base);

}  // namespace lw::check
