#include "latchwork/sync/optimistic.h"

#include <cstring>
#include <vector>

#include "latchwork/base/crc64.h"

namespace lw {
namespace {

constexpr uint32_t kFarmData = kCacheLine - kWord;  // data bytes per FaRM line

uint64_t load64(std::span<const std::byte> s, size_t at) {
  uint64_t v;
  std::memcpy(&v, s.data() + at, 8);
  return v;
}
void store64(std::span<std::byte> s, size_t at, uint64_t v) { std::memcpy(s.data() + at, &v, 8); }

// The CPU side of a scheme's check or stamp (Jasny §4.4): CRC over every
// payload byte, FaRM over every line. Modelled time on the simulator.
void charge_check(Worker& w, const OptimisticLayout& l) {
  if (l.scheme() == ConsistencyScheme::kCrc64) w.compute(CpuWork::kCrc64Byte, l.payload_bytes());
  if (l.scheme() == ConsistencyScheme::kFarm) w.compute(CpuWork::kFarmLine, l.block_bytes() / kCacheLine);
}

}  // namespace

const char* to_string(ConsistencyScheme s) {
  switch (s) {
    case ConsistencyScheme::kVersioning: return "versioning";
    case ConsistencyScheme::kCrc64: return "crc64";
    case ConsistencyScheme::kFarm: return "farm";
    case ConsistencyScheme::kBookend: return "bookend";
  }
  return "?";
}

bool parse_scheme(std::string_view name, ConsistencyScheme* out) {
  for (auto s : {ConsistencyScheme::kVersioning, ConsistencyScheme::kCrc64,
                 ConsistencyScheme::kFarm, ConsistencyScheme::kBookend}) {
    if (name == to_string(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

OptimisticLayout::OptimisticLayout(ConsistencyScheme scheme, uint32_t block_bytes)
    : scheme_(scheme), block_bytes_(block_bytes) {
  LW_CHECK_MSG(valid_block_size(block_bytes), "optimistic blocks are whole cache lines");
  switch (scheme) {
    case ConsistencyScheme::kVersioning: payload_bytes_ = block_bytes - kWord; break;
    case ConsistencyScheme::kCrc64:
    case ConsistencyScheme::kBookend: payload_bytes_ = block_bytes - 2 * kWord; break;
    case ConsistencyScheme::kFarm: payload_bytes_ = block_bytes / kCacheLine * kFarmData; break;
  }
}

void OptimisticLayout::encode(uint64_t version, std::span<const std::byte> payload,
                              std::span<std::byte> image) const {
  LW_CHECK(payload.size() == payload_bytes_ && image.size() == block_bytes_);
  const uint64_t word = VersionWord::make(version, false);
  store64(image, 0, word);
  if (scheme_ == ConsistencyScheme::kFarm) {
    for (uint32_t line = 0; line < block_bytes_ / kCacheLine; ++line) {
      if (line > 0) store64(image, line * kCacheLine, word);
      std::memcpy(image.data() + line * kCacheLine + kWord, payload.data() + line * kFarmData,
                  kFarmData);
    }
    return;
  }
  std::memcpy(image.data() + kWord, payload.data(), payload_bytes_);
  if (scheme_ == ConsistencyScheme::kCrc64)
    store64(image, block_bytes_ - kWord, crc64(payload.data(), payload.size()));
  if (scheme_ == ConsistencyScheme::kBookend) store64(image, block_bytes_ - kWord, word);
}

void OptimisticLayout::extract(std::span<const std::byte> image, std::span<std::byte> payload) const {
  LW_CHECK(payload.size() == payload_bytes_ && image.size() == block_bytes_);
  if (scheme_ == ConsistencyScheme::kFarm) {
    for (uint32_t line = 0; line < block_bytes_ / kCacheLine; ++line)
      std::memcpy(payload.data() + line * kFarmData, image.data() + line * kCacheLine + kWord,
                  kFarmData);
    return;
  }
  std::memcpy(payload.data(), image.data() + kWord, payload_bytes_);
}

bool OptimisticLayout::decode(std::span<const std::byte> image, std::span<std::byte> payload) const {
  extract(image, payload);
  const uint64_t word = load64(image, 0);
  if (VersionWord::latched(word)) return false;
  switch (scheme_) {
    case ConsistencyScheme::kVersioning:
      return true;  // needs its second and third READ: see try_read
    case ConsistencyScheme::kCrc64:
      return load64(image, block_bytes_ - kWord) == crc64(payload.data(), payload.size());
    case ConsistencyScheme::kBookend:
      return load64(image, block_bytes_ - kWord) == word;
    case ConsistencyScheme::kFarm:
      for (uint32_t line = 1; line < block_bytes_ / kCacheLine; ++line)
        if (load64(image, line * kCacheLine) != word) return false;
      return true;
  }
  return false;
}

Task<Status> OptimisticBlock::latch(Worker& w, uint64_t* version,
                                    const RetryPolicy& policy) const {
  Backoff backoff(policy);
  uint64_t seen;
  Status s = co_await w.read(&seen, base_, kWord);
  if (!ok(s)) co_return s;
  // CAS v|0 -> v|1, learning the current word from each failure.
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    if (VersionWord::latched(seen)) {
      co_await backoff.wait(w);
      s = co_await w.read(&seen, base_, kWord);
      if (!ok(s)) co_return s;
      continue;
    }
    Result<uint64_t> r = co_await w.cas(base_, seen, seen | VersionWord::kLatched);
    if (!r.ok()) co_return r.status;
    if (r.value == seen) {
      *version = VersionWord::version(seen);
      co_return Status::kOk;
    }
    seen = r.value;
  }
  co_return Status::kRetryExhausted;
}

Task<Status> OptimisticBlock::publish(Worker& w, uint64_t version,
                                      std::span<const std::byte> payload) const {
  std::vector<std::byte> image(layout_.block_bytes());
  layout_.encode(version + 1, payload, image);
  charge_check(w, layout_);
  Status s = co_await w.write(base_ + kWord, image.data() + kWord, layout_.block_bytes() - kWord);
  if (!ok(s)) co_return s;
  const uint64_t held = VersionWord::make(version, true);
  Result<uint64_t> r = co_await w.cas(base_, held, VersionWord::make(version + 1, false));
  if (!r.ok()) co_return r.status;
  LW_CHECK_MSG(r.value == held, "optimistic latch changed while held exclusively");
  co_return Status::kOk;
}

Task<Status> OptimisticBlock::write(Worker& w, std::span<const std::byte> payload,
                                    const RetryPolicy& policy) const {
  LW_CHECK(payload.size() == layout_.payload_bytes());
  uint64_t version = 0;
  Status s = co_await latch(w, &version, policy);
  if (!ok(s)) co_return s;
  co_return co_await publish(w, version, payload);
}

Task<Status> OptimisticBlock::write_single_writer(Worker& w, uint64_t version,
                                                  std::span<const std::byte> payload) const {
  std::vector<std::byte> image(layout_.block_bytes());
  layout_.encode(version, payload, image);
  charge_check(w, layout_);
  if (layout_.scheme() != ConsistencyScheme::kVersioning)
    co_return co_await w.write(base_, image.data(), layout_.block_bytes());
  const uint64_t busy = VersionWord::make(version, true);
  Batch b;
  b.write(base_, &busy, kWord);
  b.write(base_ + kWord, image.data() + kWord, layout_.block_bytes() - kWord);
  b.write(base_, image.data(), kWord);  // the unlatched word of `version`
  co_return co_await w.execute(b);
}

Task<Status> OptimisticBlock::update(Worker& w,
                                     const std::function<void(std::span<std::byte>)>& modify,
                                     const RetryPolicy& policy) const {
  uint64_t version = 0;
  Status s = co_await latch(w, &version, policy);
  if (!ok(s)) co_return s;
  // Under the latch nothing else writes: one READ sees a stable block.
  std::vector<std::byte> image(layout_.block_bytes()), payload(layout_.payload_bytes());
  s = co_await w.read(image.data(), base_, layout_.block_bytes());
  if (!ok(s)) co_return s;
  layout_.extract(image, payload);
  modify(payload);
  co_return co_await publish(w, version, payload);
}

Task<OptimisticBlock::Attempt> OptimisticBlock::try_read(Worker& w, std::span<std::byte> payload,
                                                         std::span<std::byte> image) const {
  LW_CHECK(payload.size() == layout_.payload_bytes() && image.size() == layout_.block_bytes());
  Attempt a;
  if (layout_.scheme() != ConsistencyScheme::kVersioning) {
    a.status = co_await w.read(image.data(), base_, layout_.block_bytes());
    if (ok(a.status)) {
      a.valid = layout_.decode(image, payload);
      charge_check(w, layout_);
    }
    co_return a;
  }
  // Versioning needs the word before the data: two READs in sequence (they
  // could be reordered if posted together), then the word again.
  uint64_t before = 0, after = 0;
  a.status = co_await w.read(&before, base_, kWord);
  if (!ok(a.status)) co_return a;
  a.status = co_await w.read(image.data() + kWord, base_ + kWord, layout_.block_bytes() - kWord);
  if (!ok(a.status)) co_return a;
  a.status = co_await w.read(&after, base_, kWord);
  if (!ok(a.status)) co_return a;
  std::memcpy(image.data(), &before, kWord);
  layout_.extract(image, payload);
  a.valid = !VersionWord::latched(before) && before == after;
  co_return a;
}

Task<Status> OptimisticBlock::read(Worker& w, std::span<std::byte> payload,
                                   const RetryPolicy& policy) const {
  Backoff backoff(policy);
  std::vector<std::byte> image(layout_.block_bytes());
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Attempt a = co_await try_read(w, payload, image);
    if (!ok(a.status)) co_return a.status;
    if (a.valid) co_return Status::kOk;
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

Task<Status> OptimisticBlock::read_validated(Worker& w, std::span<std::byte> payload,
                                             const RetryPolicy& policy) const {
  if (layout_.scheme() == ConsistencyScheme::kVersioning) co_return co_await read(w, payload, policy);
  Backoff backoff(policy);
  std::vector<std::byte> image(layout_.block_bytes());
  for (uint32_t attempt = 0; attempt < policy.max_attempts; ++attempt) {
    Attempt a = co_await try_read(w, payload, image);
    if (!ok(a.status)) co_return a.status;
    if (a.valid) {
      uint64_t first = 0, again = 0;
      std::memcpy(&first, image.data(), kWord);
      Status s = co_await w.read(&again, base_, kWord);
      if (!ok(s)) co_return s;
      if (again == first) co_return Status::kOk;
    }
    co_await backoff.wait(w);
  }
  co_return Status::kRetryExhausted;
}

}  // namespace lw
