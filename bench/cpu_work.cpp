// The CPU work the NIC model charges a thread for an operation's own steps
// (NicParams' CPU table, CpuWork in verbs/worker.h), measured on this
// machine's CPU with the code (or the same arithmetic) the structures run.
// Each row is the best of many samples of about 0.3 ms, per unit charged:
//   crc64_ns_per_byte       crc64() over a 1 KB node (FG+'s check)
//   farm_check_ns_per_line  OptimisticLayout(farm, 1 KB).decode per 64 B line
//   key_hash_ns             RACE's two hash functions of one key
//   key_scan_ns             one 8-byte slot or entry tested in a scan (RACE's
//                           28 slots by fingerprint; a leaf's entries by key)
//   op_issue_ns             a client's per-operation loop: a Zipf 0.99 key
//                           drawn over 2^20 keys, two clock reads, the
//                           latency appended to the run's samples
//   copy_ns_per_byte        memcpy of a 256-byte record image (a record's
//                           value into a message, a log entry or a buffer)
//   txn_record_ns           one record through an OCC read/write set: the
//                           set searched for it (16 records), its three
//                           buffers reset to the record's size, its image's
//                           line versions checked; copies are charged apart
// The values in configs/nic/*.json cite this file, its row and the CPU.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <vector>

#include "latchwork/base/crc64.h"
#include "latchwork/base/random.h"
#include "latchwork/base/zipf.h"
#include "latchwork/sync/optimistic.h"
#include "sections.h"

namespace lw::bench {
namespace {

// Best of `samples` samples of about 0.3 ms: noise on a shared machine only
// adds time.
template <typename F>
double best_ns(const Options& o, F&& f) {
  constexpr uint64_t kProbe = 1000;
  const double probe = sample_ns(kProbe, f);
  const uint64_t ops = std::clamp<uint64_t>(static_cast<uint64_t>(300'000 / std::max(probe, 0.1)), kProbe, 1'000'000);
  const int samples = o.quick ? 5 : 40 + 10 * o.repeats;
  double best = probe;
  for (int i = 0; i < samples; ++i) best = std::min(best, sample_ns(ops, f));
  return best;
}

void add(Report& r, const char* name, double ns, const char* unit, const char* how) {
  Row& row = r.add("cpu work per unit (NicParams' CPU table)", name, ns, unit);
  row.detail = how;
}

// The per-record steps of Txn's read and write sets (src/txn/txn.cpp
// declare() and accept(), txn_commit.cpp's version checks), copies apart.
struct SetEntry {
  uint32_t table = 0;
  uint64_t key = 0;
  uint64_t version = 0;
  std::vector<std::byte> image, value, update;
};

double txn_record(const Options& o, Rng& rng) {
  constexpr uint32_t kSet = 16, kImage = 256, kPayload = 192, kLines = kImage / 64;
  std::vector<SetEntry> set(kSet);
  std::vector<std::byte> image(kImage);
  for (uint32_t l = 0; l < kLines; ++l) std::memcpy(image.data() + l * 64, &l, 1);
  uint64_t next = rng.next();
  uint32_t at = 0;
  const double ns = best_ns(o, [&] {
    const uint64_t key = ++next;
    bool found = false;
    for (const SetEntry& e : set) found = found || (e.table == 1 && e.key == key);
    SetEntry& e = set[at++ % kSet];
    e.table = 1;
    e.key = key;
    e.image.assign(kImage, std::byte{0});
    e.value.assign(kPayload, std::byte{0});
    e.update.assign(kPayload, std::byte{0});
    uint64_t v = 0;
    bool consistent = !found;
    for (uint32_t l = 0; l < kLines; ++l) consistent = consistent && image[l * 64] == static_cast<std::byte>(l);
    std::memcpy(&v, image.data() + 8, 8);
    e.version = v + consistent;
    benchmark::DoNotOptimize(e.version);
  });
  return ns;
}

}  // namespace

void cpu_work(const Options& o, Report& rep) {
  std::vector<std::byte> node(1024);
  Rng rng(7);
  for (auto& b : node) b = static_cast<std::byte>(rng.next());

  const double crc = best_ns(o, [&] { benchmark::DoNotOptimize(crc64(node.data(), node.size())); });
  add(rep, "crc64_ns_per_byte", crc / 1024, "ns/byte", "crc64() of a 1 KB node");

  const OptimisticLayout farm(ConsistencyScheme::kFarm, 1024);
  std::vector<std::byte> payload(farm.payload_bytes()), image(1024);
  farm.encode(1, payload, image);
  const double farm_ns = best_ns(o, [&] {
    benchmark::DoNotOptimize(farm.decode(image, payload));
    benchmark::ClobberMemory();
  });
  add(rep, "farm_check_ns_per_line", farm_ns / 16, "ns/line", "FaRM decode of a 1 KB block (16 lines)");

  uint64_t key = 1;
  const double hash = best_ns(o, [&] {
    uint64_t a = ++key ^ 0x9e37'79b9'7f4a'7c15ull, b = key ^ 0xc2b2'ae3d'27d4'eb4full;
    benchmark::DoNotOptimize(splitmix64(a) + splitmix64(b));
  });
  add(rep, "key_hash_ns", hash, "ns/key", "two splitmix64 hash functions of one key (RACE)");

  std::array<uint64_t, 28> slots{};
  for (auto& s : slots) s = rng.next();
  uint8_t fp = 0;
  const double scan = best_ns(o, [&] {
    uint32_t hits = 0;
    for (uint64_t s : slots) hits += s != 0 && static_cast<uint8_t>(s >> 48) == fp;
    ++fp;
    benchmark::DoNotOptimize(hits);
  });
  add(rep, "key_scan_ns", scan / 28, "ns/slot", "28 slot words tested by fingerprint (RACE's 4 buckets)");

  const ZipfKeys zipf(1u << 20, 0.99);
  std::vector<uint64_t> latencies;
  latencies.reserve(1u << 20);
  const double issue = best_ns(o, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(zipf.sample(rng));
    const auto t1 = std::chrono::steady_clock::now();
    if (latencies.size() == latencies.capacity()) latencies.clear();
    latencies.push_back(static_cast<uint64_t>((t1 - t0).count()));
  });
  add(rep, "op_issue_ns", issue, "ns/op", "Zipf 0.99 draw over 2^20 keys, two clock reads, a sample appended");

  std::vector<std::byte> from(256), to(256);
  for (auto& b : from) b = static_cast<std::byte>(rng.next());
  const double copy = best_ns(o, [&] {
    std::memcpy(to.data(), from.data(), from.size());
    benchmark::ClobberMemory();
    from[0] = to[1];
  });
  add(rep, "copy_ns_per_byte", copy / 256, "ns/byte", "memcpy of a 256-byte record image");

  add(rep, "txn_record_ns", txn_record(o, rng), "ns/record",
      "a record into a 16-record OCC set: set searched, three buffers reset, 4 line versions checked");
}

}  // namespace lw::bench
