// Memory nodes served by this very process (`latchwork node`: a symmetric
// node serves its registered memory and runs workers). run_memnode publishes
// its region under a random instance number, which its `hello` reply carries;
// a VerbsBackend in the same process that meets that number knows the node's
// memory is its own and gives the node's threads CPU access to it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lw::rdma {

struct LocalRegion {
  uint64_t instance = 0;
  std::byte* base = nullptr;  // offset 0 of the node's host memory
  uint64_t bytes = 0;
};

void publish_local_region(const LocalRegion& r);
void withdraw_local_region(uint64_t instance);
// False when no server of this process has that instance.
bool find_local_region(uint64_t instance, LocalRegion* out);

}  // namespace lw::rdma
