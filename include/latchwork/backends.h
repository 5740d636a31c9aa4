// Creates the backend a config names: sim (the default), threads, or verbs
// (real RDMA; connects to the memory nodes of the cluster file).
#pragma once

#include <memory>
#include <string>

#include "latchwork/verbs/backend.h"

namespace lw {

// Returns null and sets *error when the config is invalid.
std::unique_ptr<Backend> make_backend(const ClusterConfig& config, std::string* error);

// Whether this build has the verbs backend (libibverbs found at configure time).
bool verbs_backend_available();

}  // namespace lw
