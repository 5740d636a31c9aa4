// Shared by the built-ins' source files (builtin.cpp, builtin_tuples.cpp,
// builtin_btree.cpp, builtin_hash.cpp).
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

}  // namespace lw::check::builtin_detail
