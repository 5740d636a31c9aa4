#include "latchwork/base/zipf.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "base/setup_store.h"
#include "latchwork/base/assert.h"

namespace lw {

std::string ZipfKeys::validate(uint64_t keys, double theta) {
  if (keys == 0 || keys > kMaxKeys) return "keys must be in [1, 2^26]";
  if (!(theta >= 0 && theta <= 10)) return "zipf theta must be in [0, 10]";
  return {};
}

ZipfKeys::ZipfKeys(uint64_t keys, double theta) : keys_(keys), theta_(theta) {
  LW_CHECK_MSG(validate(keys, theta).empty(), validate(keys, theta));
  if (theta == 0) return;
  cdf_.resize(keys);
  double sum = 0;
  for (uint64_t k = 0; k < keys; ++k) {
    sum += 1.0 / std::pow(static_cast<double>(k + 1), theta);
    cdf_[k] = sum;
  }
  for (double& c : cdf_) c /= sum;
  cdf_.back() = 1.0;
  // About four keys per guide entry, at most 2^20 entries (4 MB).
  uint64_t m = 1;
  while (m < keys / 4 && m < (uint64_t{1} << 20)) m *= 2;
  guide_.resize(m + 1);
  for (uint64_t j = 0; j <= m; ++j) {
    const double at = static_cast<double>(j) / static_cast<double>(m);
    guide_[j] = static_cast<uint32_t>(std::upper_bound(cdf_.begin(), cdf_.end(), at) - cdf_.begin());
  }
}

std::shared_ptr<const ZipfKeys> ZipfKeys::shared(uint64_t keys, double theta) {
  return SetupStore::process().get_or_make<const ZipfKeys>(
      SetupKey("zipf.keys").add(keys).add(theta), SetupLifetime::kProcess,
      [&] { return std::make_shared<const ZipfKeys>(keys, theta); },
      [](const ZipfKeys& z) { return z.cdf_.size() * sizeof(double) + z.guide_.size() * sizeof(uint32_t); });
}

uint64_t ZipfKeys::sample(Rng& rng) const {
  if (cdf_.empty()) return rng.below(keys_);
  return key_at(rng.uniform());
}

uint64_t ZipfKeys::key_at(double u) const {
  LW_CHECK(u >= 0 && u < 1 && !cdf_.empty());
  const uint64_t m = guide_.size() - 1;
  const uint64_t j = static_cast<uint64_t>(u * static_cast<double>(m));
  LW_CHECK(j < m);
  const auto lo = cdf_.begin() + guide_[j], hi = cdf_.begin() + guide_[j + 1];
  auto it = std::upper_bound(lo, hi, u);
  return std::min<uint64_t>(static_cast<uint64_t>(it - cdf_.begin()), keys_ - 1);
}

double ZipfKeys::cumulative(uint64_t k) const {
  LW_CHECK(k < keys_);
  if (cdf_.empty()) return static_cast<double>(k + 1) / static_cast<double>(keys_);
  return cdf_[k];
}

double ZipfKeys::probability(uint64_t k) const {
  LW_CHECK(k < keys_);
  if (cdf_.empty()) return 1.0 / static_cast<double>(keys_);
  return k == 0 ? cdf_[0] : cdf_[k] - cdf_[k - 1];
}

}  // namespace lw
