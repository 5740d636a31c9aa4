// Creates the backend a config names: sim (the default) or threads.
#pragma once

#include <memory>
#include <string>

#include "latchwork/verbs/backend.h"

namespace lw {

// Returns null and sets *error when the config is invalid.
std::unique_ptr<Backend> make_backend(const ClusterConfig& config, std::string* error);

}  // namespace lw
