// The torn-read experiment of Jasny et al. Fig. 1b.
//
// One writer (compute node 0) repeatedly fills a block's payload with its
// version number and publishes it without a latch (it is the only writer):
// one WRITE of the whole block, or for versioning the latched word, the data
// and the new word as three ordered WRITEs. It cycles through `slots` blocks. Readers (compute node 1) read a random block with the
// scheme's read protocol and validate it. Whether a read was really torn is
// decided from the contents: every payload word must hold the same version.
#pragma once

#include <cstdint>
#include <string>

#include "latchwork/config/cluster_config.h"
#include "latchwork/sync/optimistic.h"

namespace lw {

struct TornReadOptions {
  ConsistencyScheme scheme = ConsistencyScheme::kBookend;
  uint32_t size = 512;     // block bytes, a multiple of 64
  uint64_t ops = 20000;    // reads in total
  uint32_t readers = 4;    // reader coroutines
  uint32_t slots = 4;      // blocks the writer cycles through

  std::string validate() const;
  // validate(), and the run's cluster built from `base` is valid and its
  // queue pairs hold every reader's outstanding work requests.
  std::string validate(const ClusterConfig& base) const;
};

struct TornReadResult {
  std::string scheme;
  uint32_t size = 0;
  uint64_t reads = 0;
  uint64_t accepted = 0;          // reads the scheme's check passed
  uint64_t torn = 0;              // reads whose payload was not uniform
  uint64_t torn_detected = 0;     // torn and rejected by the check
  uint64_t torn_undetected = 0;   // torn and accepted: silent corruption
  uint64_t writes = 0;
  Nanos elapsed_ns = 0;
  uint64_t trace_hash = 0;
  double wall_seconds = 0;
  std::string backend;
  std::string profile;
  uint64_t seed = 0;

  // Undetected torn reads as a percentage of all torn reads (Fig. 1b's axis).
  double undetected_percent() const {
    return torn ? 100.0 * static_cast<double>(torn_undetected) / static_cast<double>(torn) : 0.0;
  }
  std::string to_json() const;
};

// Runs on the backend `base` names; the cluster's shape is set by the experiment.
TornReadResult run_torn_read(const ClusterConfig& base, const TornReadOptions& options);

}  // namespace lw
