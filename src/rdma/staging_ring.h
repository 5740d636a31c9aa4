// The registered bounce buffer of a verbs-backend thread: local buffers of
// the verbs API are ordinary memory, so READ results land here and WRITE
// sources are copied here. Spans are managed by a SpanRing; 64 bytes after
// the ring are the landing area of internal flush READs.
#pragma once

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "span_ring.h"

namespace lw::rdma {

class StagingRing {
 public:
  StagingRing() = default;
  ~StagingRing();
  StagingRing(const StagingRing&) = delete;
  StagingRing& operator=(const StagingRing&) = delete;

  std::string init(ibv_pd* pd, uint64_t bytes);

  bool take(uint64_t len, uint64_t* offset) { return ring_.take(len, offset); }
  void give_back(uint64_t offset) { ring_.give_back(offset); }

  std::byte* at(uint64_t offset) const { return base_ + offset; }
  uint64_t addr(uint64_t offset) const { return reinterpret_cast<uint64_t>(base_ + offset); }
  uint32_t lkey() const { return mr_->lkey; }
  uint64_t flush_area() const { return ring_.capacity(); }

 private:
  std::byte* base_ = nullptr;
  uint64_t mapped_ = 0;
  ibv_mr* mr_ = nullptr;
  SpanRing ring_;
};

}  // namespace lw::rdma
