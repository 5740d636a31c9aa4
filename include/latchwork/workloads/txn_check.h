// Transactions as a check workload (check/driver.h): `latchwork check
// --structure txn`. Each seed builds the store of an OLTP workload at a
// small scale (few accounts, warehouses, subscribers: conflicts are
// frequent) on >= 3 memory nodes (a primary and two backups), runs the
// coordinators of a design, and checks:
//   - serializability (check/serializability.h): every committed
//     transaction's read and written versions form an acyclic direct
//     serialization graph, no version is installed twice or skipped, no
//     read sees an uncommitted version, and every record's final version
//     and payload are its last committed write's;
//   - the workload's own invariant (TxnWorkload::check: SmallBank's total
//     balance, TPC-C's dense order ids and stock, ...);
//   - after every coordinator drained its log reclaims: every backup equals
//     its primary, every lock word is free, no record is torn.
//
// Coordinators: every driver worker is one coordinator (one Txn), global
// index = SeedRun::worker_index. Symmetric designs (DrTM+H, FaRM, DrTM+R,
// FaSST) run them on the memory nodes' threads (Shape::memory_node_threads,
// one per thread) and also on the driver's compute workers, which act as
// coordinators that own no node (the engine treats them as node 0's for
// mixed-atomics); run_txn uses memory-node threads only, but the extra
// clients only add interleavings. Disaggregated designs (FORD, SMART-DTX)
// run them on the compute workers only.
//
// A transaction is retried up to max_attempts times; one that still aborts
// is given up (SeedRun::gave_up: starvation unless a lock stays held).
#pragma once

#include <cstdint>
#include <string>

#include "latchwork/check/driver.h"
#include "latchwork/txn/design.h"
#include "latchwork/workloads/oltp.h"

namespace lw::workloads {

// The small scale of each workload used by checks (few records: conflicts
// are frequent; TPC-C's order slots wrap, which its check allows).
OltpOptions txn_check_scale(const std::string& workload);

struct TxnCheckOptions {
  std::string design = "drtmh";               // txn::design_names()
  txn::Broken broken = txn::Broken::kNone;     // a seeded bug the check must find
  std::string workload = "smallbank";          // oltp_workload_names()
  OltpOptions oltp = txn_check_scale("smallbank");  // nodes is set per run
  uint32_t max_attempts = 256;                 // hot SmallBank accounts starve at 64
  Nanos retry_backoff_ns = 1'000;              // the unit of txn::retry_delay()
  uint64_t log_ring_bytes = 16 << 10;
  // "" or a message (unknown design or workload, bad scale, a broken variant
  // the design cannot run).
  std::string validate() const;
};

// The memory nodes a txn check needs at least (3 replicas).
inline constexpr uint32_t kTxnCheckMemoryNodes = 3;
inline constexpr uint64_t kTxnCheckMemoryNodeBytes = 16ull << 20;

// Options with t's workload scale: t.oltp = the scale of t.workload.
TxnCheckOptions txn_check_defaults(const std::string& design, const std::string& workload,
                                   txn::Broken broken = txn::Broken::kNone);

// Driver options on `base`: at least kTxnCheckMemoryNodes memory nodes of
// kTxnCheckMemoryNodeBytes, first seed base.seed, and the design's shape:
// symmetric 1 x 2 x 2 compute workers + 2 threads per memory node,
// disaggregated 2 x 2 x 2 compute workers; 30 transactions per worker.
check::Options txn_check_options(const TxnCheckOptions& t, const ClusterConfig& base);

// validate(), o.validate(), and the store of o's first seed fits (a dry run
// of the set-up): "" or a message.
std::string txn_check_validate(const TxnCheckOptions& t, const check::Options& o);

// A fresh workload per run. t must validate().
check::WorkloadFactory txn_check_workload(const TxnCheckOptions& t);

}  // namespace lw::workloads
