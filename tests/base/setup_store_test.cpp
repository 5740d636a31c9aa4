// The set-up store: one identity rule (keys equal in every byte and every
// compared value), a bound by bytes and entries with the least recently
// used going first, and products of a reuse scope dropped at its end.
#include "base/setup_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "latchwork/base/assert.h"

namespace lw {
namespace {

struct Options {
  int a = 0;
  double b = 0;
  bool operator==(const Options&) const = default;
};

TEST(SetupKey, EqualOnlyInEveryByteAndEveryComparedValue) {
  auto key = [](std::string_view kind, uint64_t n, Options o) {
    SetupKey k(kind);
    k.add(n).add_compared(o);
    return k;
  };
  EXPECT_TRUE(key("x", 1, {2, 0.5}) == key("x", 1, {2, 0.5}));
  EXPECT_FALSE(key("x", 1, {2, 0.5}) == key("y", 1, {2, 0.5})) << "kinds differ";
  EXPECT_FALSE(key("x", 1, {2, 0.5}) == key("x", 2, {2, 0.5})) << "bytes differ";
  EXPECT_FALSE(key("x", 1, {2, 0.5}) == key("x", 1, {2, 0.25})) << "a compared value differs";
  // Bytes and values in another order make another key.
  SetupKey ab("x"), ba("x");
  ab.add(uint64_t{1}).add_compared(Options{});
  ba.add_compared(Options{}).add(uint64_t{1});
  EXPECT_FALSE(ab == ba);
  // Spans hash their elements, with their count: [1, 2] + [] differs from [1] + [2].
  const std::vector<uint32_t> one_two{1, 2}, one{1}, two{2}, none;
  SetupKey s1("s"), s2("s");
  s1.add(std::span<const uint32_t>(one_two)).add(std::span<const uint32_t>(none));
  s2.add(std::span<const uint32_t>(one)).add(std::span<const uint32_t>(two));
  EXPECT_FALSE(s1 == s2);
  // An object identity: the same object only (held alive by the key).
  auto p = std::make_shared<const int>(7), q = std::make_shared<const int>(7);
  SetupKey kp("p"), kp2("p"), kq("p");
  kp.add_compared(p);
  kp2.add_compared(p);
  kq.add_compared(q);
  EXPECT_TRUE(kp == kp2);
  EXPECT_FALSE(kp == kq);
  EXPECT_EQ(p.use_count(), 3) << "both keys hold it";
}

SetupKey numbered(uint64_t i) {
  SetupKey k("n");
  k.add(i);
  return k;
}

TEST(SetupStore, FindsByEqualKeysAndKeepsTheFirstOfEqualAdds) {
  SetupStore store(1 << 20);
  EXPECT_EQ(store.find<const int>(numbered(1)), nullptr);
  auto one = std::make_shared<const int>(1);
  EXPECT_EQ(store.add(numbered(1), one, 4, SetupLifetime::kProcess), one);
  EXPECT_EQ(store.find<const int>(numbered(1)), one);
  EXPECT_EQ(store.add(numbered(1), std::make_shared<const int>(1), 4, SetupLifetime::kProcess), one)
      << "another thread made it too: the first is kept and returned";
  EXPECT_EQ(store.entries(), 1u);
  int made = 0;
  auto make = [&] {
    ++made;
    return std::make_shared<const int>(2);
  };
  auto size = [](const int&) { return 4; };
  auto two = store.get_or_make<const int>(numbered(2), SetupLifetime::kProcess, make, size);
  EXPECT_EQ(store.get_or_make<const int>(numbered(2), SetupLifetime::kProcess, make, size), two);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(store.hits(), 2u);
}

TEST(SetupStore, StaysWithinItsBoundDroppingTheLeastRecentlyUsed) {
  SetupStore store(1000);
  const uint64_t key_bytes = numbered(0).bytes();
  const uint64_t each = 300 - key_bytes;  // three fit, a fourth does not
  for (uint64_t i = 0; i < 3; ++i)
    store.add(numbered(i), std::make_shared<const int>(int(i)), each, SetupLifetime::kProcess);
  ASSERT_EQ(store.entries(), 3u);
  ASSERT_TRUE(store.find<const int>(numbered(0)));  // 0 is now the most recent
  store.add(numbered(3), std::make_shared<const int>(3), each, SetupLifetime::kProcess);
  EXPECT_EQ(store.entries(), 3u);
  EXPECT_LE(store.bytes(), 1000u);
  EXPECT_TRUE(store.find<const int>(numbered(0)));
  EXPECT_FALSE(store.find<const int>(numbered(1))) << "the least recently used went first";
  EXPECT_TRUE(store.find<const int>(numbered(3)));
  // One larger than the bound is returned and not kept.
  auto big = std::make_shared<const int>(9);
  EXPECT_EQ(store.add(numbered(9), big, 5000, SetupLifetime::kProcess), big);
  EXPECT_FALSE(store.find<const int>(numbered(9)));
  // At most kMaxEntries, whatever their bytes.
  SetupStore many(uint64_t{1} << 30);
  for (uint64_t i = 0; i < SetupStore::kMaxEntries + 10; ++i)
    many.add(numbered(i), std::make_shared<const int>(0), 1, SetupLifetime::kProcess);
  EXPECT_EQ(many.entries(), SetupStore::kMaxEntries);
}

TEST(SetupStore, TheEndOfAReuseScopeDropsOnlyItsProducts) {
  SetupStore store(1 << 20);
  auto kept = std::make_shared<const int>(1);
  store.add(numbered(1), kept, 8, SetupLifetime::kProcess);
  store.add(numbered(2), std::make_shared<const int>(2), 8, SetupLifetime::kReuseScope);
  store.drop_scoped();
  EXPECT_EQ(store.find<const int>(numbered(1)), kept);
  EXPECT_EQ(store.find<const int>(numbered(2)), nullptr);
  EXPECT_EQ(store.bytes(), 8 + numbered(1).bytes());
}

// A span is viewed while the caller looks up, and copied when the store
// keeps the key: a kept key outlives the data it was built from.
TEST(SetupStore, AKeptKeyOwnsTheSpansItViewed) {
  SetupStore store(1 << 20);
  auto key_of = [](const std::vector<std::pair<uint64_t, uint64_t>>& pairs) {
    SetupKey k("pairs");
    k.add(std::span<const std::pair<uint64_t, uint64_t>>(pairs));
    return k;
  };
  auto pairs = std::make_unique<std::vector<std::pair<uint64_t, uint64_t>>>(300, std::pair<uint64_t, uint64_t>{1, 2});
  auto product = std::make_shared<const int>(5);
  store.add(key_of(*pairs), product, 4, SetupLifetime::kProcess);
  const std::vector<std::pair<uint64_t, uint64_t>> same = *pairs;
  (*pairs)[150].second = 3;  // the caller's data changes, then goes
  pairs.reset();
  EXPECT_EQ(store.find<const int>(key_of(same)), product);
  std::vector<std::pair<uint64_t, uint64_t>> middle = same;
  middle[150].second = 3;  // equal length and ends: a hash candidate, not equal
  EXPECT_EQ(store.find<const int>(key_of(middle)), nullptr);
}

TEST(SetupStore, AKindNamingTwoTypesIsAProducersBug) {
  SetupStore store(1 << 20);
  store.add(numbered(1), std::make_shared<const int>(1), 4, SetupLifetime::kProcess);
  ThrowOnInvariant throwing;
  EXPECT_THROW((void)store.find<const double>(numbered(1)), InvariantViolation);
}

}  // namespace
}  // namespace lw
