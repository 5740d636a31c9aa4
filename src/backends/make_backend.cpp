#include "latchwork/backends.h"

#include "latchwork/sim/sim_backend.h"
#include "latchwork/threads/threads_backend.h"

namespace lw {

std::unique_ptr<Backend> make_backend(const ClusterConfig& config, std::string* error) {
  std::string e = config.validate();
  if (!e.empty()) {
    if (error) *error = e;
    return nullptr;
  }
  if (config.backend == "sim") return std::make_unique<SimBackend>(config);
  if (config.backend == "threads") return std::make_unique<ThreadsBackend>(config);
  if (error) *error = "unknown backend \"" + config.backend + "\"";
  return nullptr;
}

}  // namespace lw
