// A snapshot of a range of node memory: its non-zero pages, kept in an
// anonymous in-memory file (memfd; the zero pages are holes), copied into
// later nodes instead of building the same bytes again (NodeMemory::install_image,
// Backend::host_install_image).
//
// Why: a repro figure loads the same data into every point; encoding every
// record and bucket was a third of a DrTM+H point's wall time. Copying the
// image's pages costs a fraction of that.
//
// Measured and not kept: mapping the file copy-on-write over the node. A
// point then touched only the pages it used (DrTM+H Fig. 9, one job: 10.3 ->
// 8.7 s), but with two jobs each first write to a page it had read cost a
// TLB shootdown across cores (6.2 -> 7.1 s; system time 2.4 -> 6.0 s).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace lw {

class HostImage : public std::enable_shared_from_this<HostImage> {
 public:
  // Reads the range [offset, offset + bytes) of a node through `read`
  // (called with increasing, chunk-sized pieces) into a new image. Null if
  // the system refuses the file (memfd_create, ftruncate or a write fails);
  // callers then write the bytes as before.
  using Reader = std::function<void(uint64_t offset, std::byte* dst, uint64_t len)>;
  static std::shared_ptr<const HostImage> capture(uint64_t offset, uint64_t bytes, const Reader& read);

  ~HostImage();
  HostImage(const HostImage&) = delete;
  HostImage& operator=(const HostImage&) = delete;

  uint64_t offset() const { return offset_; }
  uint64_t bytes() const { return bytes_; }
  // Bytes the file holds (its non-zero pages): what keeping it costs.
  uint64_t stored_bytes() const { return stored_; }

  // Copies the image's bytes [from, to) (node offsets inside the range) to
  // `dst`, where `dst` holds zeros already: only the non-zero pages are
  // copied (into memory that reads zero, as a node's fresh allocations do).
  void copy_nonzero(uint64_t from, uint64_t to, std::byte* dst) const;
  // The node ranges [lo, hi) within [from, to) that copy_nonzero writes.
  void nonzero_ranges(uint64_t from, uint64_t to, const std::function<void(uint64_t, uint64_t)>& fn) const;
  // The same into any memory: zero pages are written too.
  void read(uint64_t from, uint64_t to, std::byte* dst) const;
  // As read(), without reading the file's holes (a memfd's hole read through
  // the mapping would be filled with a page of its own): for the few pages a
  // run wrote over an installed image (NodeMemoryReuse).
  void restore(uint64_t from, uint64_t to, std::byte* dst) const;

 private:
  // A run of non-zero pages in the file: [at, at + len).
  struct Run {
    uint64_t at, len;
  };
  HostImage(const std::byte* view, uint64_t view_bytes, uint64_t offset, uint64_t bytes, std::vector<Run> runs,
            uint64_t stored)
      : view_(view), view_bytes_(view_bytes), offset_(offset), bytes_(bytes), stored_(stored), runs_(std::move(runs)) {}
  static bool fill(int fd, uint64_t base, uint64_t offset, uint64_t end, const Reader& read,
                   std::vector<Run>* runs, uint64_t* stored);
  uint64_t file_offset(uint64_t node_offset) const;

  const std::byte* view_;  // the file, mapped read-only and shared
  uint64_t view_bytes_;
  uint64_t offset_, bytes_, stored_;
  std::vector<Run> runs_;  // in file order
};

}  // namespace lw
