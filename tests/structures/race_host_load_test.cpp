// Host load images of the RACE table: a load put back from an image leaves
// node memory, the table's allocators and the nodes' free space exactly as
// inserting the records did; images are used only for the same records on
// the same layout; the cache that shares them is bounded.
#include <gtest/gtest.h>

#include <vector>

#include "latchwork/backends.h"
#include "latchwork/structures/race/hash_table.h"
#include "base/setup_store.h"
#include "structures/race/load_image_key.h"

namespace lw::race {
namespace {

ClusterConfig cluster() {
  ClusterConfig c;
  c.set_profile("spec");
  c.memory_nodes = 2;
  c.memory_node_bytes = 16ull << 20;
  return c;
}

std::unique_ptr<Backend> backend() {
  std::string err;
  std::unique_ptr<Backend> b = make_backend(cluster(), &err);
  LW_CHECK_MSG(b, err);
  return b;
}

HashTable table(Backend& b, uint64_t capacity = 4096) {
  TableConfig t;
  t.capacity = capacity;
  t.block_chunk_bytes = 16u << 10;  // several chunks per node
  Result<HashTable> r = HashTable::create(b, t);
  LW_CHECK(r.ok());
  return r.value;
}

// Keys with repeats (a repeat is an update: a new block, the slot moved).
HostRecords records(uint64_t n, uint64_t salt = 0) {
  HostRecords r;
  for (uint64_t i = 0; i < n; ++i) r.emplace_back(1 + (i * 7919) % (n - n / 8), i + salt);
  return r;
}

std::vector<std::byte> read(Backend& b, RemoteAddr at, uint64_t bytes) {
  std::vector<std::byte> out(bytes);
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min<uint64_t>(bytes - done, kMaxTransferBytes);
    b.host_read(at + done, out.data() + done, n);
    done += n;
  }
  return out;
}

TEST(RaceHostLoad, AnImageLeavesWhatTheInsertsLeft) {
  const HostRecords recs = records(3000);
  std::unique_ptr<Backend> a = backend(), b = backend();
  const HashTable ta = table(*a), tb = table(*b);
  ASSERT_TRUE(ok(ta.host_load(*a, recs)));
  const std::shared_ptr<const HostLoadImage> image = ta.host_image(*a, recs);
  ASSERT_TRUE(image);
  ASSERT_TRUE(tb.fits(*image, recs));
  ASSERT_TRUE(ok(tb.host_load(*b, recs, image.get())));
  // Every byte the load wrote, on both.
  ASSERT_EQ(image->ranges.size(), 2u + 2u);  // two subtables, blocks on two nodes
  for (const HostLoadImage::Range& r : image->ranges)
    EXPECT_EQ(read(*a, r.at, r.bytes.size()), read(*b, r.at, r.bytes.size())) << r.at.to_string();
  EXPECT_EQ(ta.host_contents(*a).value, tb.host_contents(*b).value);
  // The table's host allocators and the nodes' free space are where the
  // inserts left them: the next insert and the next allocation agree.
  ASSERT_TRUE(ok(ta.host_insert(*a, 999'999, 1)));
  ASSERT_TRUE(ok(tb.host_insert(*b, 999'999, 1)));
  for (NodeId n = 0; n < 2; ++n) {
    EXPECT_EQ(a->allocate(n, 64), b->allocate(n, 64)) << n;
    for (const HostLoadImage::Range& r : image->ranges)
      if (r.at.node() == n) {
        EXPECT_EQ(read(*a, r.at, r.bytes.size()), read(*b, r.at, r.bytes.size()));
      }
  }
  EXPECT_EQ(ta.host_contents(*a).value, tb.host_contents(*b).value);
}

TEST(RaceHostLoad, AnImageFitsOnlyItsRecordsAndLayout) {
  const HostRecords recs = records(500);
  std::unique_ptr<Backend> a = backend();
  const HashTable ta = table(*a);
  ASSERT_TRUE(ok(ta.host_load(*a, recs)));
  const std::shared_ptr<const HostLoadImage> image = ta.host_image(*a, recs);
  ASSERT_TRUE(image);
  std::unique_ptr<Backend> b = backend();
  EXPECT_TRUE(table(*b).fits(*image, recs));
  HostRecords other = recs;
  other.back().second += 1;  // one value differs
  EXPECT_FALSE(table(*b).fits(*image, other));
  std::unique_ptr<Backend> c = backend();
  EXPECT_FALSE(table(*c, 8192).fits(*image, recs));  // another size
  std::unique_ptr<Backend> d = backend();
  ASSERT_FALSE(d->allocate(0, 4096).is_null());  // the table lands elsewhere
  const HashTable td = table(*d);
  EXPECT_FALSE(td.fits(*image, recs));
  ThrowOnInvariant throwing;
  EXPECT_THROW((void)td.host_load(*d, recs, image.get()), InvariantViolation);
}

TEST(RaceHostLoad, NoImageOfATableWithOtherInserts) {
  const HostRecords recs = records(200);
  std::unique_ptr<Backend> a = backend();
  const HashTable ta = table(*a);
  ASSERT_TRUE(ok(ta.host_load(*a, recs)));
  ASSERT_TRUE(ok(ta.host_insert(*a, 777'777, 7)));
  EXPECT_EQ(ta.host_image(*a, recs), nullptr);
  // And a load into a table that holds inserts is refused.
  std::unique_ptr<Backend> b = backend();
  const HashTable tb = table(*b);
  ASSERT_TRUE(ok(tb.host_insert(*b, 5, 5)));
  ThrowOnInvariant throwing;
  EXPECT_THROW((void)tb.host_load(*b, recs), InvariantViolation);
}

// The set-up store's key of a load image (load_image_key.h): equal for the
// same records in a table of the same layout on another backend, different
// for other records or a table elsewhere; the store finds an image by it.
TEST(RaceHostLoad, TheImageKeyIsTheRecordsAndTheLayout) {
  const HostRecords recs = records(400), others = records(400, 1);
  std::unique_ptr<Backend> a = backend(), c = backend(), d = backend();
  const HashTable ta = table(*a), tc = table(*c);
  ASSERT_FALSE(d->allocate(0, 4096).is_null());  // the table lands elsewhere
  const HashTable td = table(*d);
  EXPECT_TRUE(load_image_key(ta, recs) == load_image_key(tc, recs));
  EXPECT_FALSE(load_image_key(ta, recs) == load_image_key(tc, others));
  EXPECT_FALSE(load_image_key(ta, recs) == load_image_key(td, recs));
  HostRecords reordered = recs;
  std::swap(reordered.front(), reordered.back());
  EXPECT_FALSE(load_image_key(ta, recs) == load_image_key(tc, reordered));

  ASSERT_TRUE(ok(ta.host_load(*a, recs)));
  const auto ia = ta.host_image(*a, recs);
  ASSERT_TRUE(ia);
  SetupStore store(uint64_t{1} << 30);
  EXPECT_EQ(store.find<const HostLoadImage>(load_image_key(tc, recs)), nullptr);
  EXPECT_EQ(store.add(load_image_key(ta, recs), ia, ia->bytes(), SetupLifetime::kReuseScope), ia);
  const auto found = store.find<const HostLoadImage>(load_image_key(tc, recs));
  EXPECT_EQ(found, ia);
  EXPECT_TRUE(found && tc.fits(*found, recs));
  EXPECT_EQ(store.find<const HostLoadImage>(load_image_key(td, recs)), nullptr);
}

}  // namespace
}  // namespace lw::race
