#include "staging_ring.h"

#include "rdma_device.h"

#include <sys/mman.h>

#include "latchwork/base/layout.h"

namespace lw::rdma {

StagingRing::~StagingRing() {
  if (mr_) ibv_dereg_mr(mr_);
  if (base_) ::munmap(base_, mapped_);
}

std::string StagingRing::init(ibv_pd* pd, uint64_t bytes) {
  const uint64_t cap = align_up(bytes, 4096);
  mapped_ = cap + 4096;
  void* p = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return "cannot map a staging buffer of " + std::to_string(mapped_) + " bytes";
  base_ = static_cast<std::byte*>(p);
  mr_ = ibv_reg_mr(pd, base_, mapped_, kLocalAccess);
  if (!mr_)
    return "cannot register a staging buffer of " + std::to_string(mapped_) +
           " bytes (ibv_reg_mr; check `ulimit -l`)";
  ring_ = SpanRing(cap);
  return {};
}

}  // namespace lw::rdma
