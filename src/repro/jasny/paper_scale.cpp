// Jasny et al. at --scale paper (paper_scale.h): nothing to change.
#include "repro/paper_scale.h"

namespace lw::jasny_repro {

std::string paper_scale_unchanged() {
  return "Jasny et al.'s set-ups are the paper's already (workers, nodes, tuple and key counts of each "
         "microbenchmark); their windows measure steady rates that longer windows do not move";
}

}  // namespace lw::jasny_repro
