// Zipf keys: the head gets its share, uniform is uniform, draws replay by seed.
#include "latchwork/base/zipf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/setup_store.h"

namespace lw {
namespace {

TEST(ZipfKeys, SamplesFollowTheDistribution) {
  for (double theta : {0.0, 1.0, 1.5, 2.0}) {
    ZipfKeys z(1000, theta);
    Rng rng(3);
    std::vector<uint64_t> hits(1000);
    const int n = 200000;
    for (int i = 0; i < n; ++i) ++hits[z.sample(rng)];
    for (uint64_t k : {0, 1, 9}) {
      const double expect = z.probability(k) * n;
      EXPECT_NEAR(static_cast<double>(hits[k]), expect, 5 * std::sqrt(expect) + 5)
          << "theta " << theta << " key " << k;
    }
  }
  EXPECT_NEAR(ZipfKeys(1000, 2.0).probability(0), 0.608, 0.01);  // 1/zeta(2) for large n
  EXPECT_DOUBLE_EQ(ZipfKeys(1000, 0).probability(5), 0.001);
}

TEST(ZipfKeys, ReplaysBySeedAndRejectsBadInput) {
  ZipfKeys z(50, 1.0);
  Rng a(9), b(9);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(z.sample(a), z.sample(b));
  EXPECT_FALSE(ZipfKeys::validate(0, 1).empty());
  EXPECT_FALSE(ZipfKeys::validate(10, -1).empty());
}

TEST(ZipfKeys, SharedTablesAreReusedAndEqualToFreshOnes) {
  const auto a = ZipfKeys::shared(5000, 1.5);
  const auto b = ZipfKeys::shared(5000, 1.5);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(ZipfKeys::shared(5000, 1.0).get(), a.get());
  const ZipfKeys fresh(5000, 1.5);
  for (uint64_t k : {0ull, 1ull, 17ull, 4999ull}) EXPECT_EQ(a->probability(k), fresh.probability(k));
  // Kept in the process's set-up store (its bound: setup_store_test.cpp).
  const uint64_t hits = SetupStore::process().hits();
  EXPECT_EQ(ZipfKeys::shared(5000, 1.5).get(), a.get());
  EXPECT_EQ(SetupStore::process().hits(), hits + 1);
}

// The guide table only narrows the search: every draw picks the key a search
// of the whole table picks, at the guide's boundaries too.
TEST(ZipfKeys, GuidedSearchPicksTheKeyOfAFullSearch) {
  for (uint64_t keys : {1ull, 3ull, 7ull, 1000ull, 100003ull}) {
    for (double theta : {0.5, 0.99, 2.0, 8.0}) {
      const ZipfKeys z(keys, theta);
      std::vector<double> cdf(keys);
      for (uint64_t k = 0; k < keys; ++k) cdf[k] = z.cumulative(k);
      auto full = [&](double u) {
        const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
        return std::min<uint64_t>(static_cast<uint64_t>(it - cdf.begin()), keys - 1);
      };
      std::vector<double> draws = {0.0, std::nextafter(1.0, 0.0)};
      for (uint64_t m = 1; m <= (uint64_t{1} << 20); m *= 2) {  // every guide size's boundaries
        for (uint64_t j : {uint64_t{1}, m / 3, m / 2, m - 1}) {
          if (j == 0 || j >= m) continue;
          const double at = static_cast<double>(j) / static_cast<double>(m);
          draws.insert(draws.end(), {at, std::nextafter(at, 0.0), std::nextafter(at, 1.0)});
        }
      }
      for (uint64_t k : {uint64_t{0}, keys / 2, keys - 1})  // the table's own values
        if (cdf[k] < 1) draws.insert(draws.end(), {cdf[k], std::nextafter(cdf[k], 0.0), std::nextafter(cdf[k], 1.0)});
      Rng rng(keys * 31 + static_cast<uint64_t>(theta * 10));
      for (int i = 0; i < 20000; ++i) draws.push_back(rng.uniform());
      for (double u : draws) ASSERT_EQ(z.key_at(u), full(u)) << "keys " << keys << " theta " << theta << " u " << u;
    }
  }
}

}  // namespace
}  // namespace lw
