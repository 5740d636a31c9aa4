// Zipf-distributed keys: key k (0-based) has probability proportional to
// 1 / (k + 1)^theta. theta = 0 is uniform. The cumulative distribution is
// precomputed once per key count and shared by every worker; sampling is a
// binary search on a uniform draw from the worker's own seeded stream.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "latchwork/base/random.h"

namespace lw {

class ZipfKeys {
 public:
  static constexpr uint64_t kMaxKeys = uint64_t{1} << 26;  // 512 MB of table at most

  ZipfKeys(uint64_t keys, double theta);
  // The same distribution, shared: experiments that sweep many points over
  // the same keys build the table (millions of pow calls) once. Keeps the
  // few most recently used tables.
  static std::shared_ptr<const ZipfKeys> shared(uint64_t keys, double theta);
  uint64_t keys() const { return keys_; }
  double theta() const { return theta_; }
  uint64_t sample(Rng& rng) const;
  // Probability of key k (for tests and reports).
  double probability(uint64_t k) const;

  static std::string validate(uint64_t keys, double theta);

 private:
  uint64_t keys_;
  double theta_;
  std::vector<double> cdf_;  // empty when uniform
};

}  // namespace lw
