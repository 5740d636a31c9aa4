// What `latchwork lock` and `latchwork node` print for a lock-table run:
// a text block or a JSON object, the same fields for every backend.
#pragma once

#include <nlohmann/json.hpp>

#include "latchwork/runtime/op_stats.h"
#include "latchwork/workloads/lock_table.h"

namespace lw::tool {

nlohmann::json latency_json(const Histogram& h);
nlohmann::json lock_result_json(const workloads::LockTableOptions& o, const workloads::LockTableResult& r);
void print_lock_result(const workloads::LockTableOptions& o, const workloads::LockTableResult& r);

}  // namespace lw::tool
