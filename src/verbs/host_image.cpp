// Node-memory snapshots in a memfd (host_image.h).
#include "verbs/host_image.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "latchwork/base/assert.h"
#include "latchwork/base/zero_bytes.h"

namespace lw {

namespace {

uint64_t floor_to(uint64_t x, uint64_t a) { return x - x % a; }
uint64_t ceil_to(uint64_t x, uint64_t a) { return floor_to(x + a - 1, a); }

// pwrite all of [p, p + len) at `at`, retrying short writes; false on error.
bool write_all(int fd, const std::byte* p, uint64_t len, uint64_t at) {
  while (len > 0) {
    const ssize_t n = pwrite(fd, p, len, static_cast<off_t>(at));
    if (n <= 0) return false;
    p += n;
    at += static_cast<uint64_t>(n);
    len -= static_cast<uint64_t>(n);
  }
  return true;
}

uint64_t page_bytes() {
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return page;
}

}  // namespace


std::shared_ptr<const HostImage> HostImage::capture(uint64_t offset, uint64_t bytes, const Reader& read) {
  LW_CHECK(bytes > 0);
  const uint64_t page = page_bytes();
  const uint64_t base = floor_to(offset, page);
  const uint64_t end = offset + bytes;
  const int fd = memfd_create("latchwork-host-image", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  uint64_t stored = 0;
  std::vector<Run> runs;
  if (!fill(fd, base, offset, end, read, &runs, &stored)) {
    close(fd);
    return nullptr;
  }
  // Read through one shared mapping, kept: a copy is then a memcpy, and the
  // file's pages are mapped once for every node that installs the image
  // (pread copied in the kernel, at twice the cost).
  const uint64_t file_bytes = ceil_to(end, page) - base;
  void* view = mmap(nullptr, file_bytes, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (view == MAP_FAILED) return nullptr;
  return std::shared_ptr<const HostImage>(
      new HostImage(static_cast<const std::byte*>(view), file_bytes, offset, bytes, std::move(runs), stored));
}

// Writes the range's non-zero pages into the file (its page p holds node
// page base + p); the rest stay holes. *stored: the bytes written.
bool HostImage::fill(int fd, uint64_t base, uint64_t offset, uint64_t end, const Reader& read,
                     std::vector<Run>* runs, uint64_t* stored) {
  const uint64_t page = page_bytes();
  if (ftruncate(fd, static_cast<off_t>(ceil_to(end, page) - base)) != 0) return false;
  // Chunks aligned to file pages; bytes outside the range stay zero.
  const uint64_t chunk = std::max<uint64_t>(uint64_t{1} << 20, page) / page * page;
  std::vector<std::byte> buf(chunk);
  for (uint64_t c = base; c < end; c += chunk) {
    const uint64_t lo = std::max(c, offset), hi = std::min(c + chunk, end);
    std::fill(buf.begin(), buf.end(), std::byte{0});
    read(lo, buf.data() + (lo - c), hi - lo);
    const uint64_t used = ceil_to(hi - c, page);
    uint64_t run = 0;  // start of the pending run of non-zero pages
    for (uint64_t p = 0; p <= used; p += page) {
      if (p < used && !all_zero(buf.data() + p, page)) continue;
      if (run < p) {
        if (!write_all(fd, buf.data() + run, p - run, c - base + run)) return false;
        *stored += p - run;
        if (!runs->empty() && runs->back().at + runs->back().len == c - base + run)
          runs->back().len += p - run;  // continues across the chunk boundary
        else
          runs->push_back({c - base + run, p - run});
      }
      run = p + page;
    }
  }
  return true;
}

HostImage::~HostImage() { munmap(const_cast<std::byte*>(view_), view_bytes_); }

uint64_t HostImage::file_offset(uint64_t node_offset) const {
  LW_CHECK(node_offset >= floor_to(offset_, page_bytes()));
  return node_offset - floor_to(offset_, page_bytes());
}

void HostImage::read(uint64_t from, uint64_t to, std::byte* dst) const {
  LW_CHECK(offset_ <= from && from <= to && to <= offset_ + bytes_);
  std::memcpy(dst, view_ + file_offset(from), to - from);
}

void HostImage::restore(uint64_t from, uint64_t to, std::byte* dst) const {
  LW_CHECK(offset_ <= from && from <= to && to <= offset_ + bytes_);
  std::memset(dst, 0, to - from);
  const uint64_t lo = file_offset(from), hi = file_offset(to);
  // The first run that ends after lo (runs are in file order, disjoint).
  auto r = std::upper_bound(runs_.begin(), runs_.end(), lo, [](uint64_t at, const Run& run) { return at < run.at + run.len; });
  for (; r != runs_.end() && r->at < hi; ++r) {
    const uint64_t a = std::max(r->at, lo), b = std::min(r->at + r->len, hi);
    std::memcpy(dst + (a - lo), view_ + a, b - a);
  }
}

void HostImage::copy_nonzero(uint64_t from, uint64_t to, std::byte* dst) const {
  nonzero_ranges(from, to, [&](uint64_t a, uint64_t b) {
    std::memcpy(dst + (a - from), view_ + file_offset(a), b - a);
  });
}

void HostImage::nonzero_ranges(uint64_t from, uint64_t to,
                               const std::function<void(uint64_t, uint64_t)>& fn) const {
  LW_CHECK(offset_ <= from && from <= to && to <= offset_ + bytes_);
  const uint64_t lo = file_offset(from), hi = file_offset(to);
  for (const Run& r : runs_) {
    const uint64_t a = std::max(r.at, lo), b = std::min(r.at + r.len, hi);
    if (a < b) fn(from + (a - lo), from + (b - lo));
  }
}

}  // namespace lw
