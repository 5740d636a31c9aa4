#include "latchwork/workloads/ycsb.h"

#include <algorithm>
#include <numeric>

#include "latchwork/base/assert.h"

namespace lw::ycsb {

const char* to_string(Mix m) {
  switch (m) {
    case Mix::kWriteHeavy: return "write-heavy";
    case Mix::kReadHeavy: return "read-heavy";
    case Mix::kReadOnly: return "read-only";
    case Mix::kUpdateOnly: return "update-only";
  }
  return "?";
}

bool parse_mix(const std::string& s, Mix* out) {
  for (Mix m : {Mix::kWriteHeavy, Mix::kReadHeavy, Mix::kReadOnly, Mix::kUpdateOnly}) {
    if (s == to_string(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

uint32_t update_percent(Mix m) {
  switch (m) {
    case Mix::kWriteHeavy: return 50;
    case Mix::kReadHeavy: return 5;
    case Mix::kReadOnly: return 0;
    case Mix::kUpdateOnly: return 100;
  }
  return 0;
}

std::string WorkloadSpec::validate() const { return ZipfKeys::validate(keys, zipf); }

Workload::Workload(const WorkloadSpec& spec) : spec_(spec) {
  LW_CHECK_MSG(spec.validate().empty(), spec.validate());
  zipf_ = ZipfKeys::shared(spec.keys, spec.zipf);
  // A multiplier coprime to the key count makes the map a bijection; a few
  // draws find one (half of all odd numbers are coprime to a power of two,
  // and a bound keeps the loop finite: 1 always works).
  Rng rng(spec.seed ^ 0x5ca1ab1eull);
  mul_ = 1;
  for (int i = 0; i < 64 && spec.keys > 2; ++i) {
    const uint64_t m = rng.between(spec.keys / 3 + 1, spec.keys - 1);
    if (std::gcd(m, spec.keys) == 1) {
      mul_ = m;
      break;
    }
  }
  add_ = rng.below(spec.keys);
}

uint64_t Workload::key_of_rank(uint64_t rank) const {
  LW_CHECK(rank < spec_.keys);
  const unsigned __int128 v = static_cast<unsigned __int128>(mul_) * rank + add_;
  return static_cast<uint64_t>(v % spec_.keys) + 1;
}

std::vector<uint64_t> Workload::load_keys() const {
  std::vector<uint64_t> keys(spec_.keys);
  for (uint64_t r = 0; r < spec_.keys; ++r) keys[r] = key_of_rank(r);
  return keys;
}

Op Workload::next(Rng& rng) const {
  Op op;
  // Draw the kind first, then the key, in a fixed order, so that a stream
  // depends only on its seed.
  const uint32_t pct = update_percent(spec_.mix);
  op.type = rng.below(100) < pct ? OpType::kUpdate : OpType::kLookup;
  op.key = key_of_rank(zipf_->sample(rng));
  return op;
}

std::string ActiveSchedule::validate(uint32_t threads, uint32_t min_active, uint32_t max_active,
                                     Nanos interval_ns, uint32_t intervals) {
  if (threads == 0) return "the schedule needs at least one thread";
  if (min_active == 0 || min_active > max_active || max_active > threads)
    return "active threads must satisfy 1 <= min <= max <= threads (" + std::to_string(threads) + ")";
  if (interval_ns == 0) return "the schedule's interval must be positive";
  if (intervals == 0 || intervals > kMaxIntervals) return "the schedule needs 1 to 65536 intervals";
  return {};
}

ActiveSchedule ActiveSchedule::make(uint32_t threads, uint32_t min_active, uint32_t max_active,
                                    Nanos interval_ns, uint32_t intervals, uint64_t seed) {
  const std::string e = validate(threads, min_active, max_active, interval_ns, intervals);
  LW_CHECK_MSG(e.empty(), e);
  ActiveSchedule s;
  s.interval_ns_ = interval_ns;
  s.threads_ = threads;
  Rng rng(seed ^ 0x7ab1e1ull);
  std::vector<uint32_t> order(threads);
  s.active_.assign(uint64_t{intervals} * threads, 0);
  for (uint32_t i = 0; i < intervals; ++i) {
    const uint32_t n = static_cast<uint32_t>(rng.between(min_active, max_active));
    s.counts_.push_back(n);
    // A seeded Fisher-Yates shuffle: the first n threads of it run.
    std::iota(order.begin(), order.end(), 0u);
    for (uint32_t k = threads - 1; k > 0; --k) std::swap(order[k], order[rng.below(k + 1)]);
    for (uint32_t k = 0; k < n; ++k) s.active_[uint64_t{i} * threads + order[k]] = 1;
  }
  return s;
}

uint32_t ActiveSchedule::interval_at(Nanos t) const {
  LW_CHECK(!counts_.empty());
  return static_cast<uint32_t>((t / interval_ns_) % counts_.size());
}

Nanos ActiveSchedule::next_boundary(Nanos t) const { return (t / interval_ns_ + 1) * interval_ns_; }

bool ActiveSchedule::active(uint32_t thread, uint32_t interval) const {
  LW_CHECK(thread < threads_ && interval < counts_.size());
  return active_[uint64_t{interval} * threads_ + thread] != 0;
}

}  // namespace lw::ycsb
