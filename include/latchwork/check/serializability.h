// Serializability of transactions (the check driver's model for
// `latchwork check --structure txn`), in the manner of Elle: from each
// committed transaction's read and written versions (txn/history.h) build
// the direct serialization graph and report its cycles.
//
// Versions of a record are installed in order under its lock, so for a
// record x: the writer of x@v precedes the writer of x@v+1 (ww), the writer
// of x@v precedes every reader of x@v (wr), and every reader of x@v precedes
// the writer of x@v+1 (rw, an anti-dependency). A serializable history has
// an acyclic graph. Besides cycles the model reports what breaks the version
// order itself: two commits installing the same version (lost-update), a
// version installed with no committed predecessor (version-gap), a read of
// a version no committed transaction wrote (aborted-read), and a final
// record whose version or payload is not the last committed write's
// (final-state: aborted transactions must leave no trace).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "latchwork/check/models.h"
#include "latchwork/txn/history.h"

namespace lw::check {

class SerializabilityModel final : public HistoryModel {
 public:
  // A committed transaction (thread-safe).
  void committed(const txn::CommitRecord& r);
  // A record's state after the run (host-side read of the primary).
  void final_state(uint16_t table, uint64_t key, uint64_t version, uint64_t payload_hash);
  // Versions the store was loaded with are 0; reads of version 0 need no writer.
  // Names of the tables, index = table id ("smallbank.savings"), for the
  // printed cycles; unnamed tables print as "table 3".
  void set_table_names(std::vector<std::string> names);

  const char* name() const override { return "serializability"; }
  size_t size() const override;
  // Violations: "cycle" (detail: the cycle, each edge with its kind and
  // record, each transaction with its coordinator, placement and interval),
  // "lost-update", "version-gap", "aborted-read", "final-state".
  void check(std::vector<ModelViolation>* out) const override;

  // Limits: cycles reported per check (the shortest per strongly connected
  // component, up to this many).
  static constexpr size_t kMaxCyclesReported = 4;
  // Violations of each other kind reported per check (then one summary).
  static constexpr size_t kMaxPerKind = 8;
  // Start transactions per strongly connected component from which the
  // shortest cycle is searched (BFS each): bounds the time on huge SCCs.
  static constexpr size_t kMaxCycleSearches = 64;

 private:
  struct Final {
    uint16_t table;
    uint64_t key, version, payload_hash;
  };
  mutable std::mutex mu_;
  std::vector<txn::CommitRecord> txns_;
  std::vector<Final> finals_;
  std::vector<std::string> table_names_;
};

}  // namespace lw::check
