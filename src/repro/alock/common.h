// Shared set-up of the ALock reproductions (src/repro/alock/*.cpp): the
// CloudLab cluster of ALock §6 (symmetric nodes, one dual-port ConnectX-3
// each: NIC profile cx3-56g) and the lock-table options.
#pragma once

#include <string>

#include "repro/repro_lock.h"

namespace lw::alock_repro {

// `nodes` symmetric nodes x `threads` worker threads (memory-node threads;
// the one compute node stays idle), cx3-56g, the connectx semantics.
ClusterConfig cluster(uint32_t nodes, uint32_t threads);
// A lock-table run of `kind` with ALock §6.1's budgets (local 5, remote 20).
workloads::LockTableOptions table(locks::LockKind kind, uint32_t nodes, uint32_t threads, uint64_t locks,
                                  uint32_t locality, uint64_t ops_per_worker);
// A point of a figure running that table.
ReproPoint point(std::string panel, std::string series, double x, const workloads::LockTableOptions& o);
// "alock" | "spin" | "mcs".
std::string kind_name(locks::LockKind k);
// A stated ratio: series' y over `over`'s y at x.
PaperValue ratio(std::string series, std::string over, double x, double value, std::string source,
                 double tolerance = 0.25);

}  // namespace lw::alock_repro
