// Zipf-distributed keys: key k (0-based) has probability proportional to
// 1 / (k + 1)^theta. theta = 0 is uniform. The cumulative distribution is
// precomputed once per key count and shared by every worker; sampling is a
// binary search on a uniform draw from the worker's own seeded stream,
// narrowed by a guide table to the keys whose range holds the draw.
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
  // the same keys build the table (millions of pow calls) once. Kept in the
  // process's set-up store (bounded by bytes).
  static std::shared_ptr<const ZipfKeys> shared(uint64_t keys, double theta);
  uint64_t keys() const { return keys_; }
  double theta() const { return theta_; }
  uint64_t sample(Rng& rng) const;
  // The key a uniform draw u in [0, 1) picks when theta > 0 (sample() is
  // key_at(rng.uniform()); a uniform table draws rng.below(keys) instead).
  uint64_t key_at(double u) const;
  // P(key <= k) as sampling uses it (uniform: exact fractions are not stored).
  double cumulative(uint64_t k) const;
  // Probability of key k (for tests and reports).
  double probability(uint64_t k) const;

  static std::string validate(uint64_t keys, double theta);

 private:
  uint64_t keys_;
  double theta_;
  std::vector<double> cdf_;  // empty when uniform
  // guide_[j]: the first key whose cdf exceeds j / (guide_.size() - 1), a
  // power of two. A draw u in [j/M, (j+1)/M) samples a key in
  // [guide_[j], guide_[j + 1]]: the search of all keys (20 steps for a
  // million, most missing the cache) shrinks to that range, with the same
  // answer (M a power of two: u * M and j / M are exact).
  std::vector<uint32_t> guide_;
};

}  // namespace lw
