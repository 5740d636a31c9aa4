// Shared by the built-ins' source files (builtin.cpp, builtin_tuples.cpp,
// builtin_btree.cpp, builtin_hash.cpp, builtin_locks.cpp).
#pragma once

#include <string>

#include "latchwork/check/builtin.h"

namespace lw::check::builtin_detail {

// Sets the structure up on a simulator of `c` without running it: "" or why not.
std::string tuples_dry_run(const ClusterConfig& c, const BuiltinOptions& b, uint32_t ops_per_worker);
std::string btree_dry_run(const ClusterConfig& c, const BuiltinOptions& b);
std::string hash_dry_run(const ClusterConfig& c, const BuiltinOptions& b);

// The hash table's cluster: two memory nodes at least; smart-ht switches the
// SMART runtime's policies on, the other schemes off.
void hash_prepare_cluster(const std::string& scheme, ClusterConfig* c);

std::pair<RemoteAddr, uint64_t> tuples_key_range(const ClusterConfig& c, const BuiltinOptions& b,
                                                 uint32_t ops_per_worker, uint64_t key);

WorkloadFactory tuples_workload(const BuiltinOptions& b);
WorkloadFactory btree_workload(const BuiltinOptions& b);
WorkloadFactory hash_workload(const BuiltinOptions& b);

// The lock table (builtin_locks.cpp): two memory nodes at least; the seed
// cluster's shape and the table checked ("" or why not).
void locks_prepare_cluster(ClusterConfig* c);
std::string locks_validate(const ClusterConfig& c, const BuiltinOptions& b);
WorkloadFactory locks_workload(const BuiltinOptions& b);

// Sherman's tree (builtin_sherman.cpp): two memory nodes at least, the
// scheme's preset applied to the cluster (smart-bt: the SMART runtime).
std::string sherman_dry_run(const ClusterConfig& c, const BuiltinOptions& b);
void sherman_prepare_cluster(const std::string& scheme, ClusterConfig* c);
WorkloadFactory sherman_workload(const BuiltinOptions& b);

}  // namespace lw::check::builtin_detail
