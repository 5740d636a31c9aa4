#include "latchwork/backends.h"

#include "latchwork/sim/sim_backend.h"
#include "latchwork/threads/threads_backend.h"
#ifdef LW_HAVE_VERBS
#include "latchwork/rdma/verbs_backend.h"
#endif

namespace lw {

std::unique_ptr<Backend> make_backend(const ClusterConfig& config, std::string* error) {
  std::string e = config.validate();
  if (!e.empty()) {
    if (error) *error = e;
    return nullptr;
  }
  if (config.backend == "sim") return std::make_unique<SimBackend>(config);
  if (config.backend == "threads") return std::make_unique<ThreadsBackend>(config);
  if (config.backend == "verbs") {
#ifdef LW_HAVE_VERBS
    return VerbsBackend::connect(config, error);
#else
    if (error)
      *error = "this build has no verbs backend: libibverbs-dev was missing at configure time "
               "(run scripts/bootstrap.sh, then reconfigure)";
    return nullptr;
#endif
  }
  if (error) *error = "unknown backend \"" + config.backend + "\"";
  return nullptr;
}

bool verbs_backend_available() {
#ifdef LW_HAVE_VERBS
  return true;
#else
  return false;
#endif
}

}  // namespace lw
